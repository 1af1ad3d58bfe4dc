//! Simulated data-parallel training (DOMAIN.md §6): N workers compute real gradients on their own
//! shards at the same weights, their (optionally compressed) gradients are combined by a real
//! allreduce schedule, and the mean updates the one shared model — synchronous SGD, exactly as
//! each worker of a cluster would apply it. The schedule is also charged by the cost model, so the
//! time and bytes reported belong to the same messages that produced the update.

use serde::{Deserialize, Serialize};

use crate::collectives::{cost, Algorithm, Schedule, Topology};
use crate::compress::{with_error_feedback, Compression};
use crate::rng::Rng;
use crate::train::Trainer;

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
    /// The batch each worker computes its gradient on.
    pub fn worker_batch(self, batch: usize, workers: usize) -> usize {
        match self {
            Scaling::Strong => (batch / workers.max(1)).max(1),
            Scaling::Weak => batch,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClusterConfig {
    pub workers: usize,
    pub algorithm: Algorithm,
    pub topology: Topology,
    pub compression: Compression,
    pub error_feedback: bool,
    pub seed: u64,
}

/// What one synchronous step did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepReport {
    /// Mean of the workers' batch losses.
    pub loss: f32,
    /// Seconds the allreduce would take on the topology, and its bytes on the wire.
    pub comm_seconds: f64,
    pub bytes: f64,
    /// Bytes without compression, for the saving.
    pub dense_bytes: f64,
}

/// The cluster: one trainer (the shared model; its batch is one worker's batch), the schedule,
/// and each worker's error-feedback memory.
pub struct Cluster {
    pub config: ClusterConfig,
    schedule: Schedule,
    /// Modelled seconds and bytes of one allreduce as configured, and the bytes uncompressed:
    /// fixed by the config, so charged once.
    comm: (f64, f64),
    dense_bytes: f64,
    errors: Vec<Vec<f32>>,
    rng: Rng,
}

impl Cluster {
    pub fn new(config: ClusterConfig, n_params: usize) -> Self {
        let schedule = Schedule::new(
            config.algorithm,
            config.workers,
            n_params,
            config.topology.gpus_per_node,
        );
        let errors = if config.error_feedback {
            vec![vec![0.0; n_params]; config.workers]
        } else {
            Vec::new()
        };
        let rng = Rng::new(config.seed ^ 0xC1u64);
        let comm = comm(&config, &schedule);
        let dense_bytes = cost(&schedule, &config.topology, 4.0).bytes;
        Self {
            config,
            schedule,
            comm,
            dense_bytes,
            errors,
            rng,
        }
    }

    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// One synchronous step: each worker's gradient on the next batch of the shared sampler (so
    /// the workers' shards are disjoint), compressed, allreduced by the schedule, averaged and
    /// applied.
    pub async fn step(&mut self, trainer: &mut Trainer) -> Result<StepReport, String> {
        let p = self.config.workers;
        let c = self.config.compression;
        let mut grads = Vec::with_capacity(p);
        let mut loss = 0.0;
        for w in 0..p {
            let rows = trainer.next_batch_rows();
            let (l, g) = trainer.loss_and_gradient(&rows).await?;
            loss += l / p as f32;
            let sent = if self.config.error_feedback {
                with_error_feedback(c, &g, &mut self.errors[w], &mut self.rng)
            } else {
                c.apply_owned(g, &mut self.rng)
            };
            grads.push(sent);
        }
        self.schedule.execute(&mut grads);
        let mean: Vec<f32> = grads[0].iter().map(|v| v / p as f32).collect();
        trainer.apply_gradient(&mean)?;
        Ok(StepReport {
            loss,
            comm_seconds: self.comm.0,
            bytes: self.comm.1,
            dense_bytes: self.dense_bytes,
        })
    }
}

/// Time and bytes of one allreduce of the schedule's values under the configured compression:
/// dense formats shrink every message to their bytes per value; sparse ones are allgathered around
/// a ring instead ((p − 1) steps of k values with their indices, DOMAIN.md §6).
fn comm(config: &ClusterConfig, schedule: &Schedule) -> (f64, f64) {
    let (c, n) = (config.compression, schedule.n);
    let p = config.workers as f64;
    if c.is_sparse() {
        let link = config.topology.inter;
        let per = c.bytes(n);
        ((p - 1.0) * (link.alpha + per * link.beta), p * (p - 1.0) * per)
    } else {
        let per_value = c.bytes(n) / n.max(1) as f64;
        let k = cost(schedule, &config.topology, per_value);
        (k.seconds, k.bytes)
    }
}
