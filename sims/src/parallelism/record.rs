//! The parallelism lab's saved results: the network's profile, the simulated machine, each
//! layout's estimate and training run, as JSON (reloaded without retraining) and as a CSV of one
//! row per layout.

use serde::{Deserialize, Serialize};

use super::layout::{Estimate, Machine};
use super::layout_run::LayoutRun;
use super::profile::Profile;
use engine::error::Error;
use engine::train::TrainConfig;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParallelismRecord {
    /// The network, data and optimizer every layout trains (at the whole batch).
    pub config: TrainConfig,
    pub steps: usize,
    pub machine: Machine,
    pub profile: Profile,
    /// One per layout, in the order of `runs` (the runs may stop short of them).
    pub estimates: Vec<Estimate>,
    pub runs: Vec<LayoutRun>,
    /// The first run's trained first block split over devices (tensor parallelism).
    #[serde(default)]
    pub tensor: Vec<super::tensor_block::SplitCheck>,
}

const HEADER: &str = "layout,devices,peak_bytes_per_device,fits,weights_bytes,gradients_bytes,optimizer_bytes,activations_bytes,workspace_bytes,step_seconds,compute_seconds,comm_seconds,wire_bytes_per_device,bubble,recompute_flops,steps_trained,final_loss,test_accuracy,weight_gap_vs_first";

impl ParallelismRecord {
    /// The first pipelined layout's simulated step, the one the lab draws.
    pub fn pipeline(&self) -> Option<&super::pipeline::Timeline> {
        self.estimates.iter().find_map(|e| e.timeline.as_ref())
    }

    /// The record in `text`, refused unless the lab could have written it (`check`).
    pub fn from_json(text: &str) -> Result<Self, Error> {
        crate::record::lab_file(
            crate::record::read_json(text, "a parallelism record")?,
            Self::check,
        )
    }

    /// One row per layout; its bytes by class are the busiest device's.
    pub fn csv(&self) -> String {
        let opt = |v: Option<String>| v.unwrap_or_default();
        let rows = self.estimates.iter().enumerate().map(|(i, e)| {
            let run = self.runs.get(i);
            let d = e
                .devices
                .iter()
                .max_by_key(|d| d.total())
                .copied()
                .unwrap_or_default();
            [
                e.layout.label(),
                e.layout.devices().to_string(),
                e.peak.to_string(),
                e.fits.to_string(),
                d.weights.to_string(),
                d.gradients.to_string(),
                d.optimizer.to_string(),
                d.activations.to_string(),
                d.workspace.to_string(),
                e.step_seconds.to_string(),
                e.compute_seconds.to_string(),
                e.comm_seconds.to_string(),
                e.wire_bytes.to_string(),
                e.bubble.to_string(),
                e.recompute_flops.to_string(),
                opt(run.map(|r| r.losses.len().to_string())),
                opt(run.and_then(|r| r.losses.last()).map(|l| l.to_string())),
                opt(run.and_then(|r| r.test_accuracy).map(|a| a.to_string())),
                opt(run.and_then(|r| r.weight_gap).map(|g| g.to_string())),
            ]
        });
        engine::table::to_csv(&engine::table::header(HEADER), rows)
    }
}

crate::run_record!(ParallelismRecord, |r| r.runs.len());
