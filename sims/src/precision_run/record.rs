//! A precision comparison's saved results: the shared config and every run, as JSON (reloaded
//! without retraining) and as a CSV of one row per run.

use serde::{Deserialize, Serialize};

use super::PrecisionRun;
use engine::error::Error;
use engine::precision::LossScaling;
use engine::train::TrainConfig;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrecisionRecord {
    /// The config every run shares but for its precision.
    pub base: TrainConfig,
    pub steps: usize,
    pub runs: Vec<PrecisionRun>,
}

const HEADER: &str = "run,weights,activations,gradients,optimizer_state,master,rounding,loss_scaling,steps_trained,diverged_at,train_accuracy,test_accuracy,skipped_steps,final_scale,lost_updates,gradient_underflow,gradient_subnormal,gradient_overflow,bytes_weights_copy,bytes_master,bytes_gradients,bytes_optimizer_state,bytes_activations,bytes_total";

impl PrecisionRecord {
    pub fn from_json(text: &str) -> Result<Self, Error> {
        crate::record::lab_file(crate::record::read_json(text, "a precision record")?, Self::check)
    }

    /// The fp32 run, the others' reference (None when not compared).
    pub fn fp32(&self) -> Option<&PrecisionRun> {
        self.runs.iter().find(|r| r.precision.is_fp32())
    }

    pub fn csv(&self) -> String {
        let opt = |v: Option<String>| v.unwrap_or_default();
        let rows = self.runs.iter().map(|r| {
            let p = &r.precision;
            let last = r.checks.iter().rev().find(|c| !c.skipped);
            let scaling = match p.loss_scaling {
                LossScaling::None => "none".to_string(),
                LossScaling::Static { scale } => format!("static {scale}"),
                LossScaling::Dynamic { initial, interval } => {
                    format!("dynamic from {initial} every {interval}")
                }
                LossScaling::Delayed { history, margin } => {
                    format!("delayed per tensor over {history} steps margin {margin}")
                }
            };
            [
                r.label.clone(),
                p.weights.name().into(),
                p.activations.name().into(),
                p.gradients.name().into(),
                p.optimizer_state.name().into(),
                p.master.name().into(),
                format!("{:?}", p.rounding).to_lowercase(),
                scaling,
                r.losses.len().to_string(),
                opt(r.diverged_at.map(|s| s.to_string())),
                r.train_accuracy.to_string(),
                opt(r.test_accuracy.map(|a| a.to_string())),
                r.skipped_steps.to_string(),
                r.final_scale.to_string(),
                opt(last.and_then(|c| c.lost_updates).map(|v| v.to_string())),
                opt(last.map(|c| c.gradient_shares.underflow.to_string())),
                opt(last.map(|c| c.gradient_shares.subnormal.to_string())),
                opt(last.map(|c| c.gradient_shares.overflow.to_string())),
                r.bytes.weights.to_string(),
                r.bytes.master.to_string(),
                r.bytes.gradients.to_string(),
                r.bytes.optimizer_state.to_string(),
                r.bytes.activations.to_string(),
                r.bytes.total().to_string(),
            ]
        });
        engine::table::to_csv(&engine::table::header(HEADER), rows)
    }
}

crate::run_record!(PrecisionRecord, |r| r.runs.len());
