//! What a simulated cluster is: its workers, how the batch scales, the allreduce, the links,
//! compression, consistency and the workers' speed.

use serde::{Deserialize, Serialize};

use super::comm;
use crate::compress::Compression;
use crate::timeline::{iteration, Iteration, Timeline, Work};
use engine::collectives::{Algorithm, Link, Schedule, Topology};

/// How the global batch follows the worker count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scaling {
    /// The global batch stays fixed and is split across the workers.
    Strong,
    /// Each worker keeps its batch; the global batch grows with the workers.
    Weak,
}

impl Scaling {
    /// The batch each worker computes its gradient on; None where strong scaling would leave a
    /// worker without a sample (a global batch smaller than the worker count).
    pub fn worker_batch(self, batch: usize, workers: usize) -> Option<usize> {
        match self {
            Scaling::Strong => Some(batch / workers.max(1)).filter(|&b| b > 0),
            Scaling::Weak => Some(batch),
        }
    }
}

/// When gradients are applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Consistency {
    /// Every step waits for all workers and applies their mean (the allreduce).
    #[default]
    Synchronous,
    /// Each worker pushes its gradient to a parameter server, which applies it at once; the
    /// gradient was computed on the weights the worker pulled before, `staleness` updates ago. A
    /// worker may run at most `bound` iterations ahead of the slowest (stale synchronous parallel,
    /// Ho et al. 2013); None leaves it unbounded.
    Asynchronous { bound: Option<usize> },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClusterConfig {
    pub workers: usize,
    pub algorithm: Algorithm,
    pub topology: Topology,
    pub compression: Compression,
    pub error_feedback: bool,
    pub seed: u64,
    #[serde(default)]
    pub consistency: Consistency,
    /// How many times longer the last worker computes (1 = no straggler; ignored for one worker).
    #[serde(default = "one")]
    pub straggler: f64,
    /// One worker's training speed in FLOP/s, for the modelled compute time.
    #[serde(default = "default_flops")]
    pub flops_per_second: f64,
    /// Allreduce each layer's gradients as soon as backward has produced them.
    #[serde(default)]
    pub overlap: bool,
    /// Seconds each step costs whatever its batch (kernel launches, synchronisation): compute is
    /// this plus the batch's FLOPs at `flops_per_second`, so a worker at batch 1 is not 1/64 of
    /// the time of batch 64.
    #[serde(default = "default_overhead")]
    pub step_overhead_seconds: f64,
    /// Deep gradient compression's momentum correction (Lin et al. 2018), with this momentum:
    /// each worker accumulates its own velocity and sends the compressed velocity, and the
    /// trainer applies the sum with plain SGD. Only with error feedback (the accumulation).
    #[serde(default)]
    pub momentum_correction: Option<f32>,
}

fn one() -> f64 {
    1.0
}

/// A modest GPU's sustained training speed: 10 TFLOP/s.
pub const DEFAULT_FLOPS: f64 = 1e13;

fn default_flops() -> f64 {
    DEFAULT_FLOPS
}

/// The stated fixed cost of one training step on a worker: 0.2 ms, about a dozen kernel launches
/// and a synchronisation on a GPU (an assumption of the model, not a measurement).
pub const DEFAULT_STEP_OVERHEAD: f64 = 2e-4;

fn default_overhead() -> f64 {
    DEFAULT_STEP_OVERHEAD
}

impl ClusterConfig {
    /// Synchronous, uncompressed, no straggler, no overlap, on a flat network.
    pub fn new(workers: usize, algorithm: Algorithm, link: Link) -> Self {
        Self {
            workers,
            algorithm,
            topology: Topology::flat(link),
            compression: Compression::None,
            error_feedback: false,
            seed: 1,
            consistency: Consistency::Synchronous,
            straggler: 1.0,
            flops_per_second: DEFAULT_FLOPS,
            overlap: false,
            step_overhead_seconds: DEFAULT_STEP_OVERHEAD,
            momentum_correction: None,
        }
    }

    /// Error feedback is on and the compressor has a contractive form for it.
    pub fn uses_error_feedback(&self) -> bool {
        self.error_feedback && self.compression.supports_error_feedback()
    }

    /// Modelled seconds of forward + backward of `batch` samples on each worker: the fixed step
    /// overhead plus the batch's FLOPs at the worker's speed (docs/theory.md §6.1).
    pub fn compute_seconds(&self, work: &Work, batch: usize) -> Vec<f64> {
        let base = self.step_overhead_seconds.max(0.0)
            + work.flops_per_sample * batch as f64 / self.flops_per_second.max(1.0);
        (0..self.workers.max(1))
            .map(|w| {
                let slow = self.workers > 1 && w + 1 == self.workers;
                base * if slow { self.straggler.max(1.0) } else { 1.0 }
            })
            .collect()
    }

    /// Seconds and bytes of one allreduce of `n` values by the configured algorithm, compression
    /// and topology.
    pub fn allreduce(&self, n: usize) -> (f64, f64) {
        let schedule = Schedule::new(self.algorithm, self.workers, n, self.topology.gpus_per_node);
        comm(self, &schedule)
    }

    /// One synchronous iteration of `batch` samples per worker, laid out in time.
    pub fn iteration(&self, work: &Work, batch: usize) -> Timeline {
        let n = work.params();
        iteration(&Iteration {
            compute: self.compute_seconds(work, batch),
            shares: work.buckets.iter().map(|b| b.share).collect(),
            bucket_comm: if self.overlap {
                work.buckets.iter().map(|b| self.allreduce(b.params).0).collect()
            } else {
                Vec::new()
            },
            whole_comm: self.allreduce(n).0,
            overlap: self.overlap,
        })
    }

    /// Seconds of one asynchronous round trip on the server's link: push the (compressed)
    /// gradient to the server, pull the dense weights back. The link is shared: a worker whose
    /// gradient is ready while another's round trip holds it waits (docs/theory.md §6.3).
    pub fn push_pull_seconds(&self, n: usize) -> f64 {
        let link = self.topology.inter;
        2.0 * link.alpha + (self.compression.bytes(n) + 4.0 * n as f64) * link.beta
    }
}
