//! The plan's buffers that the host names: what it writes (data, batches, weights) and reads
//! (losses, gradients, predictions), for training and for the landscape's evaluation.

use crate::kernel::BufId;

/// The buffers the host reads or writes.
#[derive(Clone, Copy, Debug)]
pub struct HostBuffers {
    pub params: BufId,
    pub grads: BufId,
    pub data_x: BufId,
    pub data_y: BufId,
    pub indices: BufId,
    pub log_loss: BufId,
    pub log_accuracy: BufId,
    pub predict_x: BufId,
    pub probs: BufId,
    pub segment_bounds: BufId,
    /// The optimizer's two state vectors (velocity, moments, accumulators), one value per
    /// parameter each.
    pub optimizer_a: BufId,
    pub optimizer_b: BufId,
    /// Batch norm's running mean and variance (`model::initial_running` at the start).
    pub running: BufId,
    /// How many weight gradients of the last step were ±∞ or NaN (one u32).
    pub nonfinite: BufId,
    /// The last step's weight gradients as backward summed them in fp32, times the loss scale,
    /// before they were stored in the gradients' format: what the precision lab counts as
    /// flushed or overflowed. `grads` itself in an fp32 step, which rounds nothing.
    pub grads_unrounded: BufId,
    /// The pruning mask (one value per weight, 1 kept, 0 pruned) of a masked plan
    /// (`PlanConfig::masked`); `BufId(0)` otherwise.
    pub mask: BufId,
    /// Under delayed scaling (`precision::DelayedScaler`), each scaled tensor's scale exponent
    /// (i32 bits, written before a step) and amax (f32 bits, read after it); `BufId(0)` otherwise.
    pub scale_exponents: BufId,
    pub scale_amax: BufId,
}

/// The buffers of the landscape evaluation (`Plan::evaluate`): a fixed set of samples on the
/// device, a plane (center and two directions) and a list of points on it; the mean loss and
/// accuracy at point i land in slot i of the log.
#[derive(Clone, Copy, Debug)]
pub struct EvalBuffers {
    pub x: BufId,
    pub y: BufId,
    pub center: BufId,
    pub d1: BufId,
    pub d2: BufId,
    pub points: BufId,
    pub log_loss: BufId,
    pub log_accuracy: BufId,
    /// Points evaluated side by side in one run of `Plan::evaluate` (see `eval_points`).
    pub points_per_pass: usize,
}
