//! Where a reduced-precision step rounds what it stores (docs/theory.md §7.2): the kernels the
//! plan adds around forward, backward and the update for a `precision::Precision`.

use super::*;
use crate::ops::finite::CountNonFinite;
use crate::ops::quantize::{Quantize, Scale};
use crate::precision::{Format, Precision, Rounding};

/// Rounds the tensors of one class to its format (nothing for fp32).
#[derive(Clone, Copy, Debug)]
pub(super) struct Store {
    format: Format,
    rounding: Rounding,
    /// Tells this class's stochastic-rounding noise from the others'.
    stream: u32,
}

/// The classes' noise streams.
const WEIGHTS: u32 = 1;
const ACTIVATIONS: u32 = 2;
const GRADIENTS: u32 = 3;
const STATE: u32 = 4;
const MASTER: u32 = 5;

impl Store {
    fn new(format: Format, p: &Precision, seed: u32, class: u32) -> Option<Store> {
        (format != Format::F32).then_some(Store {
            format,
            rounding: p.rounding,
            stream: dropout::hash(seed ^ dropout::hash(class)),
        })
    }

    pub fn activations(p: &Precision, seed: u32) -> Option<Store> {
        Self::new(p.activations, p, seed, ACTIVATIONS)
    }

    pub fn gradients(p: &Precision, seed: u32) -> Option<Store> {
        Self::new(p.gradients, p, seed, GRADIENTS)
    }

    fn kernel(self, x: BufId, len: usize, id: u32, scale: Scale) -> Box<dyn Kernel> {
        Box::new(Quantize {
            x,
            src: None,
            offset: 0,
            len,
            format: self.format,
            rounding: self.rounding,
            scale,
            stream: self.stream ^ dropout::hash(id),
        })
    }

    /// Rounds x[..len] in place; `id` (a layer's index) gives the tensor its own noise.
    pub fn round(self, ops: &mut KernelList, x: BufId, len: usize, id: usize) {
        ops.push(self.kernel(x, len, id as u32, Scale::One));
    }
}

/// Rounds x[..len] when `store` is given.
pub(super) fn round(store: Option<Store>, ops: &mut KernelList, x: BufId, len: usize, id: usize) {
    if let Some(s) = store {
        s.round(ops, x, len, id);
    }
}

/// The buffer forward and backward read the weights from: a copy when the master weights keep
/// another, reduced format (mixed precision), else the master weights themselves.
pub(super) fn weight_buffer(t: &mut BufferTable, p: &Precision, (params, n): (BufId, usize)) -> BufId {
    if p.weights != Format::F32 && p.has_weight_copy() {
        t.add("params.copy", Elem::F32, n)
    } else {
        params
    }
}

/// At the start of a pass: the master weights rounded to `weights`' format into `weights`
/// (`weight_buffer`), or in place when that is the master itself (a reduced master is already
/// rounded; rounding again changes nothing).
pub(super) fn round_weights(
    ops: &mut KernelList,
    p: &Precision,
    seed: u32,
    (params, weights, n): (BufId, BufId, usize),
) {
    let Some(store) = Store::new(p.weights, p, seed, WEIGHTS) else {
        return;
    };
    ops.push(Box::new(Quantize {
        x: weights,
        src: (weights != params).then_some(params),
        offset: 0,
        len: n,
        format: store.format,
        rounding: store.rounding,
        scale: Scale::One,
        stream: store.stream,
    }));
}

/// The loss's gradient times the loss scale, stored in the gradients' format: where backward
/// starts.
pub(super) fn scale_loss_gradient(
    ops: &mut KernelList,
    p: &Precision,
    seed: u32,
    (d_logits, len): (BufId, usize),
) {
    let store = Store::gradients(p, seed).unwrap_or(Store {
        format: Format::F32,
        rounding: p.rounding,
        stream: 0,
    });
    if store.format != Format::F32 || p.loss_scaling != Default::default() {
        ops.push(store.kernel(d_logits, len, u32::MAX, Scale::LossScale));
    }
}

/// After backward: a copy of the weight gradients as summed in fp32 (`unrounded`, for what the
/// lab counts as flushed or overflowed), the gradients stored in their format, then the count of
/// overflowed ones, ±∞ or saturated at the format's largest (the dynamic scaler's test).
pub(super) fn store_gradients(
    ops: &mut KernelList,
    p: &Precision,
    seed: u32,
    (grads, n, nonfinite, unrounded): (BufId, usize, BufId, BufId),
) {
    if p.is_fp32() {
        return; // fp32 gradients do not overflow where fp32 training would not
    }
    // Rounding to fp32 is a copy.
    ops.push(Box::new(Quantize {
        x: unrounded,
        src: Some(grads),
        offset: 0,
        len: n,
        format: Format::F32,
        rounding: Rounding::Nearest,
        scale: Scale::One,
        stream: 0,
    }));
    round(Store::gradients(p, seed), ops, grads, n, usize::MAX - 1);
    let spec = p.gradients.spec();
    for clear in [true, false] {
        ops.push(Box::new(CountNonFinite {
            x: grads,
            n,
            count: nonfinite,
            clear,
            saturates_at: spec.saturates.then_some(spec.max),
        }));
    }
}

/// Before the optimizer: the gradients divided by the loss scale, in fp32.
pub(super) fn unscale_gradients(ops: &mut KernelList, p: &Precision, (grads, n): (BufId, usize)) {
    if p.loss_scaling != Default::default() {
        let fp32 = Store {
            format: Format::F32,
            rounding: Rounding::Nearest,
            stream: 0,
        };
        ops.push(fp32.kernel(grads, n, 0, Scale::Unscale));
    }
}

/// After the optimizer: its state and the master weights stored in their formats.
pub(super) fn store_update(
    ops: &mut KernelList,
    p: &Precision,
    seed: u32,
    (params, state_a, state_b, n): (BufId, BufId, BufId, usize),
) {
    if let Some(s) = Store::new(p.optimizer_state, p, seed, STATE) {
        s.round(ops, state_a, n, 0);
        s.round(ops, state_b, n, 1);
    }
    round(Store::new(p.master, p, seed, MASTER), ops, params, n, 0);
}
