//! Ways to lay one training step over devices (docs/theory.md §8.6), and what each costs: bytes
//! per device by class, modelled seconds (the cluster lab's FLOP rate and α-β-γ links), bytes on
//! the wire, the pipeline's bubble. A layout is data parallelism (with a ZeRO stage) × a pipeline
//! of contiguous stages × micro-batches, with optional checkpointing on one stage: plain,
//! checkpointed, ZeRO-3 and pipelined steps are its corners, hybrids its inside.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use super::pipeline::{Costs, Schedule, Timeline};
use super::profile::{DeviceBytes, Profile};
pub use super::remat::{checkpointed, step_curve};
use super::zero::{per_device, ClassBytes, Stage};
use crate::cluster::ClusterConfig;
use engine::collectives::{Algorithm, Link};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Layout {
    /// Data-parallel replicas; each takes batch / data samples.
    pub data: usize,
    /// What the replicas partition (ZeRO); `Stage::None` replicates everything.
    pub zero: Stage,
    /// Pipeline stages per replica, each a contiguous stretch of layers on its own device.
    pub stages: usize,
    /// Micro-batches per replica's batch, their gradients added before the one update.
    pub micro: usize,
    pub schedule: Schedule,
    /// Checkpoint every `segment` layers (one stage only); None keeps every activation.
    pub segment: Option<usize>,
}

impl Layout {
    pub const PLAIN: Layout = Layout {
        data: 1,
        zero: Stage::None,
        stages: 1,
        micro: 1,
        schedule: Schedule::OneFOneB,
        segment: None,
    };

    pub fn devices(&self) -> usize {
        self.data * self.stages
    }

    /// Rows of one micro-batch on one replica, if the batch splits evenly.
    pub fn micro_rows(&self, batch: usize) -> Option<usize> {
        let parts = self.data * self.micro;
        (parts > 0 && batch.is_multiple_of(parts) && batch >= parts).then(|| batch / parts)
    }

    /// A short name: "plain", "checkpoint every 3", "ZeRO-3 ×4", "pipeline 4 stages × 8 (1F1B)",
    /// or their combination.
    pub fn label(&self) -> String {
        self.name(false)
    }

    /// The label in few characters, for under a chart's bars and in a narrow table: "plain",
    /// "ckpt /3", "ZeRO-3 ×4", "pipe 4×8", or their combination.
    pub fn short_label(&self) -> String {
        self.name(true)
    }

    fn name(&self, short: bool) -> String {
        let mut parts = Vec::new();
        if self.data > 1 {
            parts.push(match self.zero {
                Stage::None => format!("data ×{}", self.data),
                s => format!("ZeRO-{} ×{}", s as u8, self.data),
            });
        }
        if self.stages > 1 {
            parts.push(if short {
                format!("pipe {}×{}", self.stages, self.micro)
            } else {
                format!(
                    "pipeline {} stages × {} micro ({})",
                    self.stages,
                    self.micro,
                    self.schedule.label()
                )
            });
        } else if self.micro > 1 && !short {
            parts.push(format!("{} micro-batches", self.micro));
        }
        if let Some(k) = self.segment {
            parts.push(if short {
                format!("ckpt /{k}")
            } else {
                format!("checkpoint every {k} layers")
            });
        }
        if parts.is_empty() {
            "plain".into()
        } else {
            parts.join(" + ")
        }
    }
}

/// The simulated devices and their links.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// Bytes of memory per device.
    pub memory: u64,
    pub flops_per_second: f64,
    /// Fixed seconds per pass of one (micro-)batch (kernel launches, synchronisation), as the
    /// cluster lab charges per step.
    pub step_overhead: f64,
    pub link: Link,
}

/// One layout's step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub layout: Layout,
    /// Each stage's device (every replica's alike).
    pub devices: Vec<DeviceBytes>,
    /// The layers on each stage.
    pub stage_layers: Vec<Range<usize>>,
    pub peak: u64,
    pub fits: bool,
    pub compute_seconds: f64,
    pub comm_seconds: f64,
    pub step_seconds: f64,
    /// Bytes the busiest device sends per step.
    pub wire_bytes: f64,
    /// Idle share of the pipeline's devices (0 without one).
    pub bubble: f64,
    /// FLOPs re-run by checkpointing per step.
    pub recompute_flops: f64,
    pub timeline: Option<Timeline>,
}

impl Estimate {
    /// The device holding the most bytes (each pipeline stage's is one device of the layout).
    pub fn busiest(&self) -> DeviceBytes {
        self.devices
            .iter()
            .max_by_key(|d| d.total())
            .copied()
            .unwrap_or_default()
    }
}

/// The workers of the ZeRO table: the data-parallel layout's among `layouts` (the ZeRO run's),
/// else 4.
pub fn zero_table_workers(layouts: impl IntoIterator<Item = Layout>) -> usize {
    layouts
        .into_iter()
        .find(|l| l.data > 1 && l.stages == 1)
        .map_or(4, |l| l.data)
}

/// Why a layout cannot run this network and batch.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    #[error("a batch of {batch} does not split into {data} × {micro} equal micro-batches")]
    Uneven { batch: usize, data: usize, micro: usize },
    #[error("1 to {layers} stages (one layer each at most)")]
    Stages { layers: usize },
    #[error("checkpointing is modelled on one stage only")]
    CheckpointedPipeline,
}

/// The rows of one micro-batch, or why a layout cannot run this network and batch.
pub fn check(layout: &Layout, profile: &Profile, batch: usize) -> Result<usize, LayoutError> {
    let rows = layout.micro_rows(batch).ok_or(LayoutError::Uneven {
        batch,
        data: layout.data,
        micro: layout.micro,
    })?;
    if layout.stages == 0 || layout.stages > profile.layers.len() {
        return Err(LayoutError::Stages {
            layers: profile.layers.len(),
        });
    }
    if layout.segment.is_some() && layout.stages > 1 {
        return Err(LayoutError::CheckpointedPipeline);
    }
    Ok(rows)
}

/// Contiguous stages with the slowest as fast as it can be (by forward + backward FLOPs).
pub fn split_stages(profile: &Profile, stages: usize) -> Vec<Range<usize>> {
    let n = profile.layers.len();
    let p = stages.clamp(1, n.max(1));
    let cost: Vec<f64> = profile
        .layers
        .iter()
        .map(|l| l.forward_flops_per_row + l.backward_flops_per_row)
        .collect();
    let sum = |a: usize, b: usize| cost[a..b].iter().sum::<f64>();
    // best[k][j]: over layers 0..j in k stages, the least (slowest stage, sum of squared stage
    // costs): the slowest first, then the others as even as they can be. cut[k][j]: its last cut.
    let mut best = vec![vec![(f64::INFINITY, f64::INFINITY); n + 1]; p + 1];
    let mut cut = vec![vec![0usize; n + 1]; p + 1];
    best[0][0] = (0.0, 0.0);
    for k in 1..=p {
        for j in k..=n {
            for i in (k - 1)..j {
                let (slowest, squares) = best[k - 1][i];
                let c = sum(i, j);
                let v = (slowest.max(c), squares + c * c);
                if v.0 < best[k][j].0 || (v.0 == best[k][j].0 && v.1 < best[k][j].1) {
                    best[k][j] = v;
                    cut[k][j] = i;
                }
            }
        }
    }
    let mut out = Vec::with_capacity(p);
    let mut j = n;
    for k in (1..=p).rev() {
        let i = cut[k][j];
        out.push(i..j);
        j = i;
    }
    out.reverse();
    out
}

/// What `layout` costs for `profile` at `batch` samples per step on `machine`.
pub fn estimate(
    layout: &Layout,
    profile: &Profile,
    batch: usize,
    machine: &Machine,
) -> Result<Estimate, LayoutError> {
    let r = check(layout, profile, batch)? as u64;
    let stage_layers = split_stages(profile, layout.stages);
    let p = stage_layers.len();
    let rate = machine.flops_per_second.max(1.0);
    let state = profile.state_copies;
    let in_per_row = |s: &Range<usize>| {
        if s.start == 0 {
            profile.input_per_row
        } else {
            profile.layers[s.start - 1].output_per_row
        }
    };
    let (mut fwd, mut bwd) = (0.0f64, 0.0f64);
    let mut boundary = 0u64;
    for s in &stage_layers {
        let (f, b) = profile.flops_per_row(s.clone());
        // Each micro-batch's pass pays the step's fixed cost (its launches), half each way.
        fwd = fwd.max(f * r as f64 / rate + machine.step_overhead / 2.0);
        bwd = bwd.max(b * r as f64 / rate + machine.step_overhead / 2.0);
        if s.start > 0 {
            boundary = boundary.max(in_per_row(s) * r);
        }
    }
    let timeline = (p > 1).then(|| {
        let transfer = machine.link.alpha + boundary as f64 * machine.link.beta;
        Timeline::simulate(
            layout.schedule,
            p,
            layout.micro,
            Costs {
                forward: fwd,
                backward: bwd,
                transfer,
            },
        )
    });
    let mut recompute_flops = 0.0;
    let devices: Vec<DeviceBytes> = stage_layers
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let layers = &profile.layers[s.clone()];
            let params = layers.iter().map(|l| l.params).sum::<usize>();
            let classes = per_device(ClassBytes::fp32(state), params as f64, layout.data, layout.zero);
            let extra = if i == 0 { profile.extra_weights } else { 0 };
            // ZeRO-3 gathers one layer's weights at a time for its forward and backward.
            let gathered = if layout.zero == Stage::Weights && layout.data > 1 {
                4 * layers.iter().map(|l| l.params).max().unwrap_or(0) as u64
            } else {
                0
            };
            let kept_per_row = in_per_row(s) + layers.iter().map(|l| l.kept_per_row).sum::<u64>();
            let kept_fixed = layers.iter().map(|l| l.kept_fixed).sum::<u64>();
            let in_flight = timeline.as_ref().map_or(1, |t| t.peak_in_flight(i)) as u64;
            let activations = match layout.segment {
                Some(k) => {
                    recompute_flops = checkpointed(profile, k, r as usize).1 * layout.micro as f64;
                    super::remat::peak(profile, r as usize, k)
                }
                None => in_flight * (r * kept_per_row + kept_fixed),
            };
            let loss = if s.end == profile.layers.len() {
                profile.loss_per_row
            } else {
                0
            };
            DeviceBytes {
                weights: classes.weights.ceil() as u64 + extra,
                gradients: classes.gradients.ceil() as u64,
                optimizer: classes.optimizer.ceil() as u64,
                activations,
                // One stage holds the engine's own plan; a pipeline's stages share theirs alike.
                workspace: profile.fixed_workspace
                    + gathered
                    + r * (loss
                        + if p == 1 {
                            profile.gradients_per_row
                        } else {
                            profile.stage_gradients_per_row(s.clone())
                        }),
            }
        })
        .collect();
    let replica_rows = r as f64 * layout.micro as f64;
    let compute_seconds = match &timeline {
        Some(t) => t.makespan,
        None => {
            let (f, b) = profile.flops_per_row(0..profile.layers.len());
            machine.step_overhead * layout.micro as f64 + ((f + b) * replica_rows + recompute_flops) / rate
        }
    };
    let largest_stage = stage_layers
        .iter()
        .map(|s| profile.layers[s.clone()].iter().map(|l| l.params).sum::<usize>())
        .max()
        .unwrap_or(0);
    // The cluster lab's cost of a ring allreduce of the largest stage's gradients.
    let allreduce = ClusterConfig::new(layout.data, Algorithm::Ring, machine.link)
        .allreduce(largest_stage)
        .0;
    // ZeRO-2 and 3 send their collectives per micro-batch (`zero::wire_values`): the time scales
    // with the values sent, in allreduces' worth.
    let values = |stage| super::zero::wire_values(largest_stage as f64, layout.data, stage, layout.micro);
    let allreduces = if layout.data > 1 {
        values(layout.zero) / values(Stage::None)
    } else {
        1.0
    };
    let comm_seconds = allreduce * allreduces;
    let wire_data = values(layout.zero) * 4.0;
    // A middle stage sends each micro-batch's activations on and their gradient back.
    let wire_pipe = if p > 1 {
        2.0 * layout.micro as f64 * boundary as f64
    } else {
        0.0
    };
    let peak = devices.iter().map(DeviceBytes::total).max().unwrap_or(0);
    Ok(Estimate {
        layout: *layout,
        stage_layers,
        peak,
        fits: peak <= machine.memory,
        compute_seconds,
        comm_seconds,
        step_seconds: compute_seconds + comm_seconds,
        wire_bytes: wire_data + wire_pipe,
        bubble: timeline.as_ref().map_or(0.0, Timeline::bubble_fraction),
        recompute_flops,
        timeline,
        devices,
    })
}

/// Every layout of at most `devices` devices (data × stages, ZeRO none or 3, micro-batches 1 to
/// 16, 1F1B) that fits `machine`, fastest first.
pub fn search(profile: &Profile, batch: usize, machine: &Machine, devices: usize) -> Vec<Estimate> {
    let mut out = Vec::new();
    for data in 1..=devices {
        for stages in 1..=(devices / data).min(profile.layers.len()) {
            for micro in [1, 2, 4, 8, 16] {
                if stages > 1 && micro < stages {
                    continue;
                }
                for zero in [Stage::None, Stage::Weights] {
                    if zero == Stage::Weights && data == 1 {
                        continue;
                    }
                    let layout = Layout {
                        data,
                        zero,
                        stages,
                        micro,
                        ..Layout::PLAIN
                    };
                    if let Ok(e) = estimate(&layout, profile, batch, machine) {
                        if e.fits {
                            out.push(e);
                        }
                    }
                }
            }
        }
    }
    out.sort_by(|a, b| {
        a.step_seconds
            .total_cmp(&b.step_seconds)
            .then(a.layout.devices().cmp(&b.layout.devices()))
    });
    out
}
