//! Simulated data-parallel training (docs/theory.md §6): N workers compute real gradients on their own
//! shards at the same weights, their (optionally compressed) gradients are combined by a real
//! allreduce schedule, and the mean updates the one shared model — synchronous SGD, exactly as
//! each worker of a cluster would apply it. The schedule is also charged by the cost model, so the
//! time and bytes reported belong to the same messages that produced the update. Asynchronous SGD
//! applies each worker's gradient as it arrives, computed on the weights that worker read then.

use engine::error::Error;
use serde::{Deserialize, Serialize};

use crate::compress::{momentum_corrected, with_error_feedback, Compression};
use crate::timeline::{Phase, Segment, Work};
use engine::collectives::{cost, Schedule};
use engine::model::Compiled;
use engine::rng::Rng;
use engine::train::Trainer;

mod config;
mod curve;
pub mod record_check;

pub use config::{ClusterConfig, Consistency, Scaling, DEFAULT_STEP_OVERHEAD};
pub use curve::{scaling_curve, ScalingPoint};

/// What one step (synchronous: all workers; asynchronous: one worker's update) did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepReport {
    /// Mean of the workers' batch losses (asynchronous: the applied gradient's batch loss).
    pub loss: f32,
    /// Seconds the allreduce (or push and pull) would take on the topology, and its bytes.
    pub comm_seconds: f64,
    pub bytes: f64,
    /// Bytes without compression, for the saving.
    pub dense_bytes: f64,
    /// Modelled seconds since training began, at the end of this step.
    pub time: f64,
    /// Samples this step's update was computed on.
    pub samples: usize,
    /// Updates applied between the weights the gradient was computed on and its own (0 when
    /// synchronous).
    pub staleness: usize,
}

/// An asynchronous worker: its iterations done, and the gradient it is computing.
#[derive(Clone, Debug, Default)]
struct WorkerState {
    clock: usize,
    /// (finish time, weights version read, batch loss); its gradient is in `grads[w]`.
    running: Option<(f64, u64, f32)>,
    blocked_since: Option<f64>,
}

/// The segments kept of an asynchronous run, for its timeline.
pub const TRACE_SEGMENTS: usize = 600;

/// The cluster: the shared model is the trainer (its batch is one worker's batch), plus the
/// schedule, each worker's gradient buffer and error-feedback memory, and the modelled clock.
pub struct Cluster {
    pub config: ClusterConfig,
    schedule: Schedule,
    work: Work,
    /// Modelled seconds of one synchronous iteration, and the allreduce's seconds and bytes.
    iteration_seconds: f64,
    comm: (f64, f64),
    dense_bytes: f64,
    worker_batch: usize,
    errors: Vec<Vec<f32>>,
    /// Momentum correction: each worker's velocity.
    velocities: Vec<Vec<f32>>,
    grads: Vec<Vec<f32>>,
    rng: Rng,
    time: f64,
    version: u64,
    states: Vec<WorkerState>,
    /// Asynchronous runs: the stretches of time the server's link is taken by round trips.
    link_busy: Vec<(f64, f64)>,
    /// Asynchronous runs: what each worker did when, the first [`TRACE_SEGMENTS`].
    pub trace: Vec<Segment>,
}

impl Cluster {
    /// A cluster for the trainer's model; the trainer's batch is each worker's batch.
    pub fn new(config: ClusterConfig, compiled: &Compiled, worker_batch: usize) -> Self {
        let n = compiled.n_params;
        let schedule = Schedule::new(config.algorithm, config.workers, n, config.topology.gpus_per_node);
        let errors = if config.uses_error_feedback() {
            vec![vec![0.0; n]; config.workers]
        } else {
            Vec::new()
        };
        let velocities = if config.uses_error_feedback() && config.momentum_correction.is_some() {
            vec![vec![0.0; n]; config.workers]
        } else {
            Vec::new()
        };
        let work = Work::of(compiled);
        let (charged, iteration_seconds) = match config.consistency {
            Consistency::Synchronous => (
                comm(&config, &schedule),
                config.iteration(&work, worker_batch).seconds,
            ),
            Consistency::Asynchronous { .. } => {
                let bytes = config.compression.bytes(n) + 4.0 * n as f64;
                ((config.push_pull_seconds(n), bytes), 0.0)
            }
        };
        let dense_bytes = match config.consistency {
            Consistency::Synchronous => {
                let dense = ClusterConfig {
                    compression: Compression::None,
                    ..config.clone()
                };
                comm(&dense, &schedule).1
            }
            Consistency::Asynchronous { .. } => 8.0 * n as f64,
        };
        Self {
            rng: Rng::new(config.seed ^ 0xC1u64),
            grads: vec![Vec::with_capacity(n); config.workers],
            states: vec![WorkerState::default(); config.workers],
            link_busy: Vec::new(),
            config,
            schedule,
            work,
            iteration_seconds,
            comm: charged,
            dense_bytes,
            worker_batch,
            errors,
            velocities,
            time: 0.0,
            version: 0,
            trace: Vec::new(),
        }
    }

    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    pub fn work(&self) -> &Work {
        &self.work
    }

    /// Modelled seconds since training began.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// One synchronous step (every worker's gradient, allreduced) or one asynchronous update.
    pub async fn step(&mut self, trainer: &mut Trainer) -> Result<StepReport, Error> {
        match self.config.consistency {
            Consistency::Synchronous => self.sync_step(trainer).await,
            Consistency::Asynchronous { bound } => self.async_step(trainer, bound).await,
        }
    }

    /// Computes worker `w`'s gradient on the next batch at the current weights, compressed as it
    /// would be sent, into `grads[w]`; gives its batch loss.
    async fn gradient(&mut self, trainer: &mut Trainer, w: usize) -> Result<f32, Error> {
        let rows = trainer.next_batch_rows();
        let loss = trainer.loss_and_gradient_into(&rows, &mut self.grads[w]).await?;
        let c = self.config.compression;
        if let (Some(momentum), Some(u)) = (self.config.momentum_correction, self.velocities.get_mut(w)) {
            self.grads[w] =
                momentum_corrected(c, momentum, &self.grads[w], u, &mut self.errors[w], &mut self.rng);
        } else if self.config.uses_error_feedback() {
            self.grads[w] = with_error_feedback(c, &self.grads[w], &mut self.errors[w], &mut self.rng);
        } else if c != Compression::None {
            self.grads[w] = c.apply(&self.grads[w], &mut self.rng);
        }
        Ok(loss)
    }

    /// Each worker's gradient on the next batch of the shared sampler (so the shards are
    /// disjoint), compressed, allreduced by the schedule, averaged and applied.
    async fn sync_step(&mut self, trainer: &mut Trainer) -> Result<StepReport, Error> {
        let p = self.config.workers;
        let mut loss = 0.0;
        for w in 0..p {
            loss += self.gradient(trainer, w).await? / p as f32;
        }
        self.schedule.execute(&mut self.grads);
        let scale = 1.0 / p as f32;
        self.grads[0].iter_mut().for_each(|v| *v *= scale);
        trainer.apply_gradient(&self.grads[0])?;
        self.time += self.iteration_seconds;
        Ok(StepReport {
            loss,
            comm_seconds: self.comm.0,
            bytes: self.comm.1,
            dense_bytes: self.dense_bytes,
            time: self.time,
            samples: p * self.worker_batch,
            staleness: 0,
        })
    }

    /// Worker `w` pulls the current weights at time `now` and starts its next gradient; when it is
    /// computed, the push and the pull wait for the server's link to be free.
    async fn start(&mut self, trainer: &mut Trainer, w: usize, now: f64) -> Result<(), Error> {
        let loss = self.gradient(trainer, w).await?;
        let compute = self.config.compute_seconds(&self.work, self.worker_batch)[w];
        let ready = now + compute;
        let on_link = self.reserve_link(now, ready, self.comm.0);
        let finish = on_link + self.comm.0;
        self.record(w, Phase::Backward, now, ready);
        self.record(w, Phase::Wait, ready, on_link);
        self.record(w, Phase::Comm, on_link, finish);
        self.states[w].running = Some((finish, self.version, loss));
        Ok(())
    }

    /// The earliest time from `ready` at which the server's link is free for `seconds`, taken
    /// from then on. Round trips that ended by `now` are forgotten (no later request precedes it).
    fn reserve_link(&mut self, now: f64, ready: f64, seconds: f64) -> f64 {
        self.link_busy.retain(|&(_, end)| end > now);
        let mut start = ready;
        for &(a, b) in &self.link_busy {
            if b <= start {
                continue;
            }
            if a >= start + seconds {
                break;
            }
            start = b;
        }
        let at = self.link_busy.partition_point(|&(a, _)| a < start);
        self.link_busy.insert(at, (start, start + seconds));
        start
    }

    fn record(&mut self, worker: usize, phase: Phase, start: f64, end: f64) {
        if self.trace.len() < TRACE_SEGMENTS && end > start {
            self.trace.push(Segment {
                worker,
                phase,
                start,
                end,
                bucket: 0,
            });
        }
    }

    /// The next gradient to arrive is applied at once; its worker starts again if the staleness
    /// bound lets it (it may not run more than `bound` iterations ahead of the slowest worker),
    /// and so does any worker that was waiting on the bound.
    async fn async_step(&mut self, trainer: &mut Trainer, bound: Option<usize>) -> Result<StepReport, Error> {
        if self.version == 0 && self.states.iter().all(|s| s.running.is_none()) {
            for w in 0..self.config.workers {
                self.start(trainer, w, 0.0).await?;
            }
        }
        let (w, (finish, read, loss)) = self
            .states
            .iter()
            .enumerate()
            .filter_map(|(w, s)| s.running.map(|r| (w, r)))
            .min_by(|a, b| a.1 .0.total_cmp(&b.1 .0))
            .ok_or_else(|| Error::Mismatch("no worker is running".into()))?;
        let staleness = (self.version - read) as usize;
        trainer.apply_gradient(&self.grads[w])?;
        self.version += 1;
        self.time = finish;
        self.states[w].running = None;
        self.states[w].clock += 1;
        let slowest = self.states.iter().map(|s| s.clock).min().unwrap_or(0);
        let order: Vec<usize> = std::iter::once(w)
            .chain((0..self.config.workers).filter(|&x| x != w))
            .collect();
        for x in order {
            let s = &self.states[x];
            if s.running.is_some() || (x != w && s.blocked_since.is_none()) {
                continue;
            }
            if bound.is_some_and(|b| s.clock - slowest > b) {
                self.states[x].blocked_since.get_or_insert(finish);
                continue;
            }
            if let Some(since) = self.states[x].blocked_since.take() {
                self.record(x, Phase::Wait, since, finish);
            }
            self.start(trainer, x, finish).await?;
        }
        Ok(StepReport {
            loss,
            comm_seconds: self.comm.0,
            bytes: self.comm.1,
            dense_bytes: self.dense_bytes,
            time: self.time,
            samples: self.worker_batch,
            staleness,
        })
    }
}

/// Time and bytes of one allreduce of the schedule's values under the configured compression
/// (docs/theory.md §6.4). Uncompressed, the schedule is charged as it is. Compressed vectors do not
/// add up in place — sparse ones have different supports, quantized ones different per-worker
/// scales, so a sum no longer fits in b bits — so every worker's compressed vector is allgathered
/// around a ring instead, whatever algorithm was chosen, and each worker sums the p decompressed
/// vectors itself: (p − 1) steps of one message each way, p(p − 1) messages on the wire. That is
/// exactly what the simulation computes (the exact sum of the decompressed vectors), and at many
/// workers it can send more than the dense ring.
pub(crate) fn comm(config: &ClusterConfig, schedule: &Schedule) -> (f64, f64) {
    let (c, n) = (config.compression, schedule.n);
    let p = config.workers as f64;
    if p <= 1.0 {
        return (0.0, 0.0);
    }
    if c == Compression::None {
        let k = cost(schedule, &config.topology, 4.0);
        return (k.seconds, k.bytes);
    }
    let link = config.topology.inter;
    let per = c.bytes(n);
    (
        (p - 1.0) * (link.alpha + per * (link.beta + link.gamma)),
        p * (p - 1.0) * per,
    )
}
