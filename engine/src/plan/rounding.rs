//! Where a reduced-precision step rounds what it stores (docs/theory.md §7.2): the kernels the
//! plan adds around forward, backward and the update for a `precision::Precision`.

use super::*;
use crate::ops::finite::CountNonFinite;
use crate::ops::quantize::{Quantize, Scale, TensorScale};
use crate::precision::{Format, Precision, Rounding};

/// Rounds the tensors of one class to its format (nothing for fp32).
#[derive(Clone, Copy, Debug)]
pub(super) struct Store {
    format: Format,
    rounding: Rounding,
    /// Tells this class's stochastic-rounding noise from the others'.
    stream: u32,
    /// Under delayed scaling: the scales, and where this class's tensors start among them.
    slots: Option<(Slots, u32)>,
}

/// The per-tensor scales of a delayed-scaling step (`precision::DelayedScaler`), one slot per
/// tensor stored in a reduced format: each parameter tensor's weights (by segment), each layer's
/// output, each layer's input gradient and the loss's, each parameter tensor's gradient.
#[derive(Clone, Copy, Debug)]
pub(super) struct Slots {
    pub exponents: BufId,
    pub amax: BufId,
    segments: u32,
    layers: u32,
    /// Whether the tensors' amax is recorded (training) or only their scales read (prediction).
    record: bool,
}

/// What a delayed scale belongs to, slot by slot (`Plan::scaled_tensors`).
#[derive(Clone, Debug, PartialEq)]
pub struct ScaledTensor {
    pub name: String,
    pub format: Format,
    /// The parameters of a weight or weight-gradient tensor.
    pub params: Option<std::ops::Range<usize>>,
    /// A weight gradient (what the precision lab's histograms and shares count).
    pub weight_gradient: bool,
}

impl Slots {
    /// The slots of a plan under `p` (None without delayed scaling).
    pub fn new(t: &mut BufferTable, p: &Precision, segments: usize, layers: usize) -> Option<Slots> {
        p.loss_scaling.per_tensor().then(|| {
            let n = 2 * segments + 2 * layers + 1;
            Slots {
                exponents: t.add("scaling.exponents", Elem::U32, n),
                amax: t.add("scaling.amax", Elem::U32, n),
                segments: segments as u32,
                layers: layers as u32,
                record: true,
            }
        })
    }

    /// The same scales, read without recording (prediction).
    pub fn replaying(self) -> Slots {
        Slots {
            record: false,
            ..self
        }
    }

    fn first(self, class: u32) -> u32 {
        let (s, l) = (self.segments, self.layers);
        match class {
            WEIGHTS => 0,
            ACTIVATIONS => s,
            GRADIENTS => s + l,
            WEIGHT_GRADIENTS => s + 2 * l + 1,
            _ => unreachable!("the optimizer's state and the master weights are stored unscaled"),
        }
    }

    fn scale(self, slot: u32) -> Scale {
        Scale::Tensor(TensorScale {
            exponents: self.exponents,
            amax: self.amax,
            slot,
            record: self.record,
        })
    }

    /// Each slot's tensor, in slot order: `bounds` are the parameter segments' (`segment_bounds`).
    pub fn describe(self, p: &Precision, bounds: &[u32]) -> Vec<ScaledTensor> {
        let segment = |i: usize| Some(bounds[i] as usize..bounds[i + 1] as usize);
        let tensor = |name: String, format, params, weight_gradient| ScaledTensor {
            name,
            format,
            params,
            weight_gradient,
        };
        let s = self.segments as usize;
        let l = self.layers as usize;
        let mut out: Vec<ScaledTensor> = (0..s)
            .map(|i| tensor(format!("weights {i}"), p.weights, segment(i), false))
            .collect();
        out.extend((0..l).map(|i| tensor(format!("activations {i}"), p.activations, None, false)));
        out.extend((0..l).map(|i| tensor(format!("input gradient {i}"), p.gradients, None, false)));
        out.push(tensor("loss gradient".into(), p.gradients, None, false));
        out.extend((0..s).map(|i| tensor(format!("weight gradient {i}"), p.gradients, segment(i), true)));
        out
    }
}

/// The classes' noise streams.
const WEIGHTS: u32 = 1;
const ACTIVATIONS: u32 = 2;
const GRADIENTS: u32 = 3;
const STATE: u32 = 4;
const MASTER: u32 = 5;
const WEIGHT_GRADIENTS: u32 = 6;

impl Store {
    fn new(format: Format, p: &Precision, seed: u32, class: u32, slots: Option<Slots>) -> Option<Store> {
        (format != Format::F32).then_some(Store {
            format,
            rounding: p.rounding,
            stream: dropout::hash(seed ^ dropout::hash(class)),
            slots: slots.map(|s| (s, s.first(class))),
        })
    }

    pub fn activations(p: &Precision, seed: u32, slots: Option<Slots>) -> Option<Store> {
        Self::new(p.activations, p, seed, ACTIVATIONS, slots)
    }

    pub fn gradients(p: &Precision, seed: u32, slots: Option<Slots>) -> Option<Store> {
        Self::new(p.gradients, p, seed, GRADIENTS, slots)
    }

    /// The same store, its scales read without recording (prediction).
    pub fn replaying(self) -> Store {
        Store {
            slots: self.slots.map(|(s, first)| (s.replaying(), first)),
            ..self
        }
    }

    /// Tensor `id` of the class: scaled by `scale`, or by its own delayed scale where the class
    /// has slots (and `scale` is one).
    fn quantize(self, x: BufId, (offset, len): (usize, usize), id: u32, scale: Scale) -> Quantize {
        let scale = match (self.slots, scale) {
            (Some((slots, first)), Scale::One) => slots.scale(first + id),
            _ => scale,
        };
        Quantize {
            x,
            src: None,
            offset,
            len,
            format: self.format,
            rounding: self.rounding,
            scale,
            stream: self.stream ^ dropout::hash(id),
        }
    }

    fn kernel(self, x: BufId, len: usize, id: u32, scale: Scale) -> Box<dyn Kernel> {
        Box::new(self.quantize(x, (0, len), id, scale))
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
/// Under delayed scaling, each parameter tensor (`bounds`' segments) by its own scale.
pub(super) fn round_weights(
    ops: &mut KernelList,
    (p, seed, slots): (&Precision, u32, Option<Slots>),
    (params, weights, n): (BufId, BufId, usize),
    bounds: &[u32],
) {
    let Some(store) = Store::new(p.weights, p, seed, WEIGHTS, slots) else {
        return;
    };
    let src = (weights != params).then_some(params);
    if store.slots.is_none() {
        ops.push(Box::new(Quantize {
            src,
            stream: store.stream,
            ..store.quantize(weights, (0, n), 0, Scale::One)
        }));
        return;
    }
    for (i, w) in bounds.windows(2).enumerate() {
        let (from, to) = (w[0] as usize, w[1] as usize);
        ops.push(Box::new(Quantize {
            src,
            ..store.quantize(weights, (from, to - from), i as u32, Scale::One)
        }));
    }
}

/// The loss's gradient times the loss scale, stored in the gradients' format: where backward
/// starts.
pub(super) fn scale_loss_gradient(
    ops: &mut KernelList,
    p: &Precision,
    seed: u32,
    (d_logits, len, layers): (BufId, usize, usize),
    slots: Option<Slots>,
) {
    let store = Store::gradients(p, seed, slots).unwrap_or(Store {
        format: Format::F32,
        rounding: p.rounding,
        stream: 0,
        slots: None,
    });
    if store.slots.is_some() {
        // The loss's gradient is the gradients' slot after the layers'.
        ops.push(store.kernel(d_logits, len, layers as u32, Scale::One));
    } else if store.format != Format::F32 || p.loss_scaling != Default::default() {
        ops.push(store.kernel(d_logits, len, u32::MAX, Scale::LossScale));
    }
}

/// After backward: a copy of the weight gradients as summed in fp32 (`unrounded`, for what the
/// lab counts as flushed or overflowed), the gradients stored in their format, then the count of
/// overflowed ones, ±∞ or saturated at the format's largest (the dynamic scaler's test).
pub(super) fn store_gradients(
    ops: &mut KernelList,
    (p, seed, slots): (&Precision, u32, Option<Slots>),
    (grads, n, nonfinite, unrounded): (BufId, usize, BufId, BufId),
    bounds: &[u32],
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
    match Store::gradients(p, seed, slots) {
        // Under delayed scaling, each parameter tensor's gradient by its own scale.
        Some(store) if slots.is_some() => {
            let store = Store {
                slots: slots.map(|s| (s, s.first(WEIGHT_GRADIENTS))),
                ..store
            };
            for (i, w) in bounds.windows(2).enumerate() {
                let (from, to) = (w[0] as usize, w[1] as usize);
                let q = store.quantize(grads, (from, to - from), i as u32, Scale::One);
                ops.push(Box::new(q));
            }
        }
        store => round(store, ops, grads, n, usize::MAX - 1),
    }
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
    // Under delayed scaling every tensor was unscaled where it was stored.
    if p.loss_scaling != Default::default() && !p.loss_scaling.per_tensor() {
        let fp32 = Store {
            format: Format::F32,
            rounding: Rounding::Nearest,
            stream: 0,
            slots: None,
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
    // Unscaled under delayed scaling too: the recipe keeps them in fp32.
    if let Some(s) = Store::new(p.optimizer_state, p, seed, STATE, None) {
        s.round(ops, state_a, n, 0);
        s.round(ops, state_b, n, 1);
    }
    round(Store::new(p.master, p, seed, MASTER, None), ops, params, n, 0);
}
