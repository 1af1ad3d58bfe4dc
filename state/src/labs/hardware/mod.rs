//! The hardware lab's settings (`/hardware`): the workload whose training step is placed on the
//! device's measured roofline, fused or as the teaching kernels, how many runs time each kernel,
//! and the product counted on a systolic array (its size, the picture's dataflow, the product's
//! shape).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use engine::train::{DataConfig, ImageConfig, TrainConfig};
use engine::collectives::Link;
use lab_sims::hardware::distributed::{distributed, DistPoint};
use lab_sims::hardware::systolic::{Dataflow, Gemm};

use crate::lab::{one_of, LabState};
use crate::table::{field, hide_field, ranged, Setting, Table};

/// The worker counts of the distributed roofline.
pub const WORKERS: [usize; 6] = [2, 4, 8, 16, 32, 64];

/// Training images the step's batches come from (a step's kernels do not depend on how many).
pub const IMAGES: usize = 1000;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HardwareLab {
    /// "W1" (the MLP 784-128-10) or "W2" (the small CNN), the benchmark's workloads.
    pub workload: String,
    /// The fused step (the engine's default), or one kernel per op (the teaching kernels).
    pub fused: bool,
    /// Runs of each kernel and probe timed.
    pub reps: usize,
    /// The systolic array's side (PEs per row and column).
    pub array: usize,
    /// The dataflow the picture animates.
    pub flow: Dataflow,
    /// The product counted on the array: A is m × k, B is k × n.
    pub m: usize,
    pub k: usize,
    pub n: usize,
    /// The distributed roofline's experiment: the cluster lab's model, this global batch split
    /// among the workers, each at `worker_gflops`, over `link` (the cluster lab's defaults).
    pub cluster_batch: usize,
    pub worker_gflops: f64,
    #[serde(with = "crate::names::link")]
    pub link: usize,
    pub backend: crate::lab::Backend,
    pub hide: BTreeSet<String>,
}

impl Default for HardwareLab {
    fn default() -> Self {
        let cluster = crate::cluster::ClusterLab::default();
        Self {
            workload: "W1".into(),
            fused: true,
            reps: 10,
            array: 16,
            flow: Dataflow::WeightStationary,
            // W1's first layer for a batch of 64: the batch (64 × 784) by W (784 × 128).
            m: 64,
            k: 784,
            n: 128,
            cluster_batch: cluster.batch,
            worker_gflops: cluster.gflops,
            link: cluster.inter,
            backend: crate::lab::Backend::Webgpu,
            hide: BTreeSet::new(),
        }
    }
}

impl HardwareLab {
    /// The workload's config, its batches from the first `IMAGES` training images.
    pub fn config(&self) -> TrainConfig {
        let base = if self.workload == "W2" { engine::workloads::w2() } else { engine::workloads::w1() };
        TrainConfig {
            data: DataConfig::Images(ImageConfig {
                set: "mnist".into(),
                train_limit: IMAGES,
                test_limit: 100,
            }),
            ..base
        }
    }

    /// The distributed roofline: the cluster lab's model, `cluster_batch` split among 2 to 64
    /// workers at `worker_gflops` over `link`; and the two roofs, a worker's FLOP/s and the
    /// link's bytes/s.
    pub fn distributed(&self) -> (Vec<DistPoint>, (f64, f64)) {
        let c = crate::cluster::ClusterLab::default();
        let link = Link::preset(Link::PRESETS[self.link.min(Link::PRESETS.len() - 1)]).expect("a preset");
        let roofs = (self.worker_gflops * 1e9, 1.0 / link.beta);
        let points = c
            .work()
            .map_or(Vec::new(), |work| distributed(&work, self.cluster_batch, roofs.0, link, &WORKERS));
        (points, roofs)
    }

    pub fn gemm(&self) -> Gemm {
        Gemm {
            m: self.m,
            k: self.k,
            n: self.n,
        }
    }
}

impl LabState for HardwareLab {
    const LAB: &'static str = "hardware";
    const VERSION: u32 = 1;
}

/// One row per setting; a control's name is its test id without `hw-`.
impl Table for HardwareLab {
    const SETTINGS: &'static [Setting<Self>] = &[
        field!("workload", |s, n| one_of(n, "workload", &mut s.workload, &["W1", "W2"])),
        field!("fused"),
        ranged!("reps", reps, 1, 200),
        ranged!("array", array, 1, 256),
        field!("flow"),
        ranged!("m", m, 1, 100_000),
        ranged!("k", k, 1, 100_000),
        ranged!("n", n, 1, 100_000),
        ranged!("cluster_batch", cluster_batch, 2, 65_536),
        ranged!("worker_gflops", worker_gflops, 1e-3, 1e6),
        field!("link"),
        field!("backend"),
    ];
    const OTHER_CONTROLS: &'static [&'static str] = &["run", "cancel"];
    const SHARED_CONTROLS: &'static [&'static str] = crate::table::RECORDED_RUN_CONTROLS;

    hide_field!();
}

crate::lab::runs_on_field!(HardwareLab);

/// The lab's settings under the name the registry's generated list reads (`build.rs`).
pub type State = HardwareLab;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_sets_the_product_and_bad_values_are_clamped_or_refused() {
        let (lab, notices) = HardwareLab::from_query("m=128&flow=output_stationary&array=0&workload=W3");
        assert_eq!((lab.m, lab.flow, lab.array, lab.workload.as_str()), (128, Dataflow::OutputStationary, 1, "W1"));
        assert_eq!(notices.len(), 2, "{notices:?}");
        assert_eq!(HardwareLab::default().gemm(), Gemm { m: 64, k: 784, n: 128 });
        let (lab, notices) = HardwareLab::from_query("link=100gbe&worker_gflops=50&cluster_batch=1");
        assert_eq!((Link::PRESETS[lab.link], lab.worker_gflops, lab.cluster_batch), ("100gbe", 50.0, 2));
        assert_eq!(notices.len(), 1, "{notices:?}");
    }
}
