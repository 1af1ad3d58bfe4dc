//! A network's training step per layer and per sample, read from the buffers and kernels the
//! engine really builds for it (docs/theory.md §8.6): each layer's parameters, the bytes it keeps
//! for the backward and the workspace its backward needs per sample, and its FLOPs per sample.
//! Every per-sample buffer of a plan holds `rows × values`, so the profile of one batch size
//! gives any other's exactly (`Profile::at`, tested against plans built at that size), but for a
//! convolution's split-K partial sums, sized by its geometry and counted at the profiled batch;
//! the layouts (`parallelism::layout`) cut and scale it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::memory::step_memory;
use engine::kernel::BufId;
use engine::model::Layer;
use engine::plan::liveness::transient;
use engine::train::Trainer;

/// The buffers a chain of layers' backward keeps its gradients in (`stage_gradients_per_row`).
pub const GRADIENT_HOMES: usize = 3;

/// One layer of the step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LayerProfile {
    pub label: String,
    pub params: usize,
    /// Bytes per sample kept from the forward for the backward: its output and saved statistics.
    pub kept_per_row: u64,
    /// Bytes kept whatever the batch (batch norm's per-channel statistics).
    pub kept_fixed: u64,
    /// Bytes per sample of its output alone: what a pipeline stage ending here hands on.
    pub output_per_row: u64,
    /// Its output is its input's buffer (a flatten): kept by the layer before.
    pub shares_input: bool,
    /// Bytes per sample of the gradient of its output (the logits' for the last layer), which
    /// the backward writes and the layer's backward reads.
    pub work_per_row: u64,
    pub forward_flops_per_row: f64,
    pub backward_flops_per_row: f64,
}

/// A bytes total by tensor class on one device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceBytes {
    pub weights: u64,
    pub gradients: u64,
    pub optimizer: u64,
    pub activations: u64,
    pub workspace: u64,
}

impl DeviceBytes {
    pub fn total(&self) -> u64 {
        self.weights + self.gradients + self.optimizer + self.activations + self.workspace
    }

    /// The tensor class holding the most bytes, named as the memory chart's legend names it
    /// (the first of equal ones).
    pub fn largest(&self) -> &'static str {
        let classes = [
            ("weights", self.weights),
            ("gradients", self.gradients),
            ("optimizer state", self.optimizer),
            ("activations", self.activations),
            ("workspace", self.workspace),
        ];
        classes
            .iter()
            .fold(classes[0], |best, &c| if c.1 > best.1 { c } else { best })
            .0
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    pub layers: Vec<LayerProfile>,
    /// The batch's inputs, per sample (kept: the first layer's backward reads them).
    pub input_per_row: u64,
    /// The loss's buffers per sample that live through the step (labels, indices, per-sample
    /// losses).
    pub loss_per_row: u64,
    /// Bytes per sample the engine allocates for the backward's gradients, which share memory
    /// where their lives do not overlap (`engine::plan::liveness`): read from the plan.
    #[serde(default)]
    pub gradients_per_row: u64,
    /// Workspace whatever the batch (the optimizer's bounds and norms, the overflow flag).
    pub fixed_workspace: u64,
    /// Weights' companions that are not trained by gradients (batch norm's running statistics).
    pub extra_weights: u64,
    /// Optimizer state vectors per parameter (SGD 0, momentum 1, Adam 2).
    pub state_copies: usize,
}

/// A layer's name for charts and tables.
fn label(layer: &Layer) -> String {
    match layer {
        Layer::Dense { units } => format!("dense {units}"),
        Layer::Conv2d { filters, kernel, .. } => format!("conv {kernel}×{kernel}×{filters}"),
        Layer::Activation { kind } => format!("{kind:?}").to_lowercase(),
        other => format!("{other:?}")
            .split([' ', '{', '('])
            .next()
            .unwrap_or("layer")
            .to_lowercase(),
    }
}

impl Profile {
    /// The profile of `trainer`'s training step (its plan at its batch).
    pub fn of(trainer: &Trainer) -> Profile {
        let plan = trainer.plan();
        let rows = plan.batch.max(1) as u64;
        let compiled = &trainer.compiled;
        let spans = &plan.layers;
        let memory = step_memory(plan, &trainer.config.optimizer);
        let bytes = |id: BufId| plan.table.len_of(id) as u64 * 4;
        let id_of: BTreeMap<&str, BufId> = plan
            .table
            .specs
            .iter()
            .enumerate()
            .map(|(i, s)| (s.name.as_str(), BufId(i)))
            .collect();
        // Parameters: from each layer's offset to the next parameter layer's.
        let mut offsets: Vec<usize> = compiled
            .layers
            .iter()
            .filter(|l| l.has_params())
            .map(|l| l.w_off)
            .collect();
        offsets.push(compiled.n_params);
        let mut claimed: Vec<BufId> = vec![spans.acts[0]];
        let layers = compiled
            .layers
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let params = if l.has_params() {
                    let k = offsets.iter().position(|&o| o == l.w_off).unwrap_or(0);
                    offsets[k + 1] - l.w_off
                } else {
                    0
                };
                // A flatten's output shares its input's buffer: count a buffer once.
                let out = spans.acts[i + 1];
                let (mut kept, mut fixed, mut output) = (0, 0, 0);
                let per_channel = matches!(l.layer, Layer::BatchNorm { .. });
                let shares_input = claimed.contains(&out);
                if !shares_input {
                    claimed.push(out);
                    kept += bytes(out);
                }
                output += bytes(out);
                for &id in &spans.saved[i] {
                    if !claimed.contains(&id) {
                        claimed.push(id);
                        *if per_channel { &mut fixed } else { &mut kept } += bytes(id);
                    }
                }
                let name = &plan.table.specs[out.0].name;
                let gradient = if i + 1 == compiled.layers.len() {
                    id_of.get("batch.d_logits")
                } else {
                    name.strip_prefix("train.")
                        .and_then(|n| id_of.get(format!("train.d_{n}").as_str()))
                };
                let work = gradient.filter(|id| !claimed.contains(id)).map_or(0, |&id| {
                    claimed.push(id);
                    bytes(id)
                });
                let flops = |r: &std::ops::Range<usize>| {
                    plan.train[r.clone()].iter().map(|k| k.flops()).sum::<f64>() / rows as f64
                };
                LayerProfile {
                    label: label(&l.layer),
                    params,
                    kept_per_row: kept / rows,
                    kept_fixed: fixed,
                    output_per_row: output / rows,
                    shares_input,
                    work_per_row: work / rows,
                    forward_flops_per_row: flops(&spans.forward[i]),
                    backward_flops_per_row: flops(&spans.backward[i]),
                }
            })
            .collect::<Vec<_>>();
        // What no layer claimed: the rest of the activations (the inputs), the loss's buffers,
        // the fixed workspace.
        let claimed_kept: u64 = layers.iter().map(|l| l.kept_per_row * rows + l.kept_fixed).sum();
        let per_row_work: u64 = plan
            .table
            .specs
            .iter()
            .filter(|s| s.name.starts_with("train.") || s.name.starts_with("batch."))
            .filter(|s| !memory.activations.iter().any(|a| a.0 == s.name) && !transient(&s.name))
            .map(|s| s.len as u64 * 4)
            .sum();
        // The gradients' homes, all per sample but a convolution's split-K partial sums (sized
        // by its geometry, which may share them): exact at the batch profiled.
        let allocations = plan.table.allocations();
        let gradients: u64 = (plan.table.specs.iter().zip(&allocations))
            .filter(|(s, _)| transient(&s.name))
            .map(|(_, &n)| n as u64 * 4)
            .sum();
        Profile {
            layers,
            input_per_row: (memory.activation_bytes() - claimed_kept) / rows,
            loss_per_row: per_row_work / rows,
            gradients_per_row: gradients / rows,
            fixed_workspace: memory.workspace - per_row_work - gradients,
            extra_weights: memory.weights - compiled.n_params as u64 * 4,
            state_copies: trainer.config.optimizer.state_vectors(),
        }
    }

    pub fn params(&self) -> usize {
        self.layers.iter().map(|l| l.params).sum()
    }

    /// FLOPs of one sample's forward and backward through layers `range`.
    pub fn flops_per_row(&self, range: std::ops::Range<usize>) -> (f64, f64) {
        self.layers[range].iter().fold((0.0, 0.0), |(f, b), l| {
            (f + l.forward_flops_per_row, b + l.backward_flops_per_row)
        })
    }

    /// One device's bytes for the whole network at `rows` samples, every activation kept: what
    /// `step_memory` reads from a plan built at that batch.
    pub fn at(&self, rows: usize) -> DeviceBytes {
        let r = rows as u64;
        let params = self.params() as u64 * 4;
        DeviceBytes {
            weights: params + self.extra_weights,
            gradients: params,
            optimizer: params * self.state_copies as u64,
            activations: r * (self.input_per_row + self.layers.iter().map(|l| l.kept_per_row).sum::<u64>())
                + self.layers.iter().map(|l| l.kept_fixed).sum::<u64>(),
            workspace: self.fixed_workspace + r * (self.loss_per_row + self.gradients_per_row),
        }
    }

    /// Bytes per sample of the gradients the backward of layers `range` holds (a pipeline
    /// stage's): the three largest of their output gradients, which take turns in three buffers
    /// as the whole network's do (`engine::plan::liveness`: the fused step holds a layer's
    /// output gradient and the next layer's input gradient at once, the teaching kernels the
    /// product's gradient between them).
    pub fn stage_gradients_per_row(&self, range: std::ops::Range<usize>) -> u64 {
        let mut works: Vec<u64> = self.layers[range].iter().map(|l| l.work_per_row).collect();
        works.sort_unstable_by(|a, b| b.cmp(a));
        works.iter().take(GRADIENT_HOMES).sum()
    }
}
