//! A training step's memory on one device, by tensor class, read from the buffers the engine
//! really allocates for it (`plan::Plan`'s table; docs/theory.md §8.4): the weights (and batch
//! norm's running statistics), their gradients, the optimizer's state, the activations the
//! forward pass keeps for the backward (per layer), and the workspace the backward and the loss
//! need for the step only (the backward's gradients sharing memory where their lives do not
//! overlap, `plan::liveness`). The data set and the lab's logs and evaluation buffers are counted
//! apart, as what a real system would keep elsewhere.

use serde::{Deserialize, Serialize};

use engine::optim::Optimizer;
use engine::plan::Plan;

/// Bytes by class.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepMemory {
    pub weights: u64,
    pub gradients: u64,
    pub optimizer: u64,
    /// (buffer, bytes) of each activation kept for the backward, in layer order.
    pub activations: Vec<(String, u64)>,
    pub workspace: u64,
    /// The data set on the device, the logs, the landscape's and prediction's buffers.
    pub other: u64,
}

impl StepMemory {
    pub fn activation_bytes(&self) -> u64 {
        self.activations.iter().map(|a| a.1).sum()
    }

    /// Everything a training step needs: all classes but `other`.
    pub fn step_bytes(&self) -> u64 {
        self.weights + self.gradients + self.optimizer + self.activation_bytes() + self.workspace
    }
}

/// Sorts the plan's buffers into classes. The plan keeps two optimizer slots for every optimizer
/// (one kernel layout for all); only the `Optimizer::state_vectors` it uses are counted, the rest
/// go to `other`, as do the 1-value placeholders of buffers a model does not need.
pub fn step_memory(plan: &Plan, optimizer: &Optimizer) -> StepMemory {
    let mut m = StepMemory::default();
    let used_slots = optimizer.state_vectors();
    // What the engine allocates: a buffer that lives in another's memory (`plan::liveness`)
    // costs nothing of its own; its home holds the largest of them.
    let allocations = plan.table.allocations();
    for (spec, &len) in plan.table.specs.iter().zip(&allocations) {
        let bytes = len as u64 * 4;
        if bytes == 0 {
            continue;
        }
        let name = spec.name.as_str();
        match name {
            // A model without batch norm keeps a 1-value placeholder (buffers are never empty).
            "norm.running" if spec.len > 1 => m.weights += bytes,
            "params" | "params.copy" => m.weights += bytes,
            "grads" => m.gradients += bytes,
            "grads.nonfinite" => m.workspace += bytes,
            "optimizer.a" if used_slots >= 1 => m.optimizer += bytes,
            "optimizer.b" if used_slots >= 2 => m.optimizer += bytes,
            "optimizer.bounds" | "optimizer.norms" => m.workspace += bytes,
            _ if name.starts_with("train.act")
                || name.starts_with("train.argmax")
                || name.starts_with("train.norm_stats")
                || name.starts_with("train.projection")
                || name == "batch.x" =>
            {
                m.activations.push((spec.name.clone(), bytes))
            }
            _ if name.starts_with("train.") || name.starts_with("batch.") => m.workspace += bytes,
            _ => m.other += bytes,
        }
    }
    m
}
