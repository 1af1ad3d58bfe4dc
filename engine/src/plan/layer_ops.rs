//! What several passes build per layer: the geometry of a convolution, a pool and a
//! normalization as their kernels take it, a convolution's backward kernels, and batch norm's
//! running-statistics update after a step.

use super::*;

/// What the forward pass leaves for the backward pass: each layer's input and output buffer
/// (acts[i] → layer i → acts[i + 1]), the arg-max of every max-pool and the statistics of every
/// normalization.
pub(super) struct Forward {
    pub(super) acts: Vec<BufId>,
    pub(super) argmax: Vec<Option<BufId>>,
    pub(super) stats: Vec<Option<BufId>>,
    /// Where each layer's kernels start in the kernel list (and, last, where the pass ends).
    pub(super) starts: Vec<usize>,
}

/// A conv layer's geometry, or a residual end's 1×1 projection (reading the block's input).
pub(super) fn conv_geom(l: &CompiledLayer, rows: usize) -> ConvGeom {
    let (filters, kernel, stride, padding) = l.conv().expect("a conv layer or a projection");
    let [c, h, w] = if matches!(l.layer, Layer::SkipAdd { .. }) {
        l.skip_shape
    } else {
        l.in_shape
    };
    ConvGeom {
        batch: rows,
        in_c: c,
        in_h: h,
        in_w: w,
        out_c: filters,
        k_h: kernel,
        k_w: kernel,
        stride,
        pad: padding,
        w_off: l.w_off,
        b_off: l.b_off,
    }
}

pub(super) fn pool_geom(l: &CompiledLayer, rows: usize) -> PoolGeom {
    let Layer::Pool { size, stride, .. } = l.layer else {
        unreachable!("not a pool layer")
    };
    let [c, h, w] = l.in_shape;
    PoolGeom {
        planes: rows * c,
        in_h: h,
        in_w: w,
        size,
        stride,
    }
}

pub(super) fn norm_geom(l: &CompiledLayer, rows: usize) -> NormGeom {
    let [c, h, w] = l.in_shape;
    NormGeom {
        kind: if matches!(l.layer, Layer::LayerNorm) {
            NormKind::Layer
        } else {
            NormKind::Batch
        },
        rows,
        channels: c,
        spatial: h * w,
        w_off: l.w_off,
        b_off: l.b_off,
        run_off: l.run_off,
    }
}

/// Batch norm's running statistics after a training step: one kernel per batch-norm layer,
/// from the statistics its forward pass kept.
pub(super) fn update_running(model: &Compiled, fwd: &Forward, running: BufId, rows: usize) -> KernelList {
    let mut ops: KernelList = Vec::new();
    for (l, stats) in model.layers.iter().zip(&fwd.stats) {
        if let (Layer::BatchNorm { momentum }, Some(stats)) = (&l.layer, stats) {
            ops.push(Box::new(UpdateRunning {
                g: norm_geom(l, rows),
                stats: *stats,
                running,
                momentum: *momentum,
            }));
        }
    }
    ops
}

/// A convolution's backward pass (a conv layer's, or a residual block's projection): the weight
/// gradient in per-chunk partials reduced into `grads`, and the input gradient when `d_in` asks.
pub(super) fn conv_backward(
    t: &mut BufferTable,
    ops: &mut KernelList,
    (g, partials_name): (ConvGeom, &str),
    (input, d_out, d_in): (BufId, BufId, Option<BufId>),
    (params, grads): (BufId, BufId),
) {
    let partials = t.add(partials_name, Elem::F32, g.chunk_slots() * g.partial_len());
    let buffers = BackwardBuffers {
        input,
        d_out,
        d_in,
        params,
        partials,
        grads,
    };
    ops.extend(backward_kernels(g, buffers));
}

/// Whether backward computes the gradient of layer `i`'s input: only when some layer below it
/// has weights. `timeline::Work` counts FLOPs by the same rule.
pub fn input_gradient_needed(model: &Compiled, i: usize) -> bool {
    model.layers[..i].iter().any(|l| l.has_params())
}
