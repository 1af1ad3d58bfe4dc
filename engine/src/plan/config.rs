//! What a plan is compiled from: the model, the loss and its regularization, the optimizer, the
//! batch and data sizes, the precision, and the optional mask and clipping.

use crate::model::Compiled;
use crate::optim::Optimizer;

/// The training loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Loss {
    /// Softmax cross-entropy (docs/theory.md §1.1).
    #[default]
    CrossEntropy,
    /// Mean squared error of the raw outputs against one-hot targets.
    Mse,
}

/// L1 / L2 penalties on the weights (not the biases), and group lasso on the hidden dense
/// layers' neurons, added to their gradients in the update.
#[derive(Clone, Copy, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Regularization {
    pub l1: f32,
    pub l2: f32,
    /// λ of λ Σ ‖W_o‖₂ over each hidden dense layer's rows (a neuron's incoming weights).
    #[serde(skip_serializing_if = "is_zero")]
    pub group: f32,
}

fn is_zero(v: &f32) -> bool {
    *v == 0.0
}

pub struct PlanConfig<'a> {
    pub model: &'a Compiled,
    pub loss: Loss,
    pub regularization: Regularization,
    /// Seeds the dropout masks.
    pub seed: u32,
    pub optimizer: Optimizer,
    pub batch: usize,
    pub data_rows: usize,
    /// The data's features are bytes, stored four to a word (`Dataset::packed_u8`).
    pub data_packed: bool,
    /// Real targets (their f32 bits in the label buffer) instead of classes; needs `Loss::Mse`.
    pub regression: bool,
    pub predict_rows: usize,
    /// Samples in the landscape evaluation (0: no evaluation plan).
    pub eval_rows: usize,
    /// Several landscape points per evaluation pass (`eval_points`); else one.
    pub eval_batched: bool,
    /// The formats the training step stores its tensors in, and its loss scaling.
    pub precision: crate::precision::Precision,
    /// A pruning mask on the weights (`HostBuffers::mask`), applied after every update.
    pub masked: bool,
    /// The gradient's global norm is clipped to this before the update (0: not clipped).
    pub clip_norm: f32,
}
