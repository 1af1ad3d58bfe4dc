//! The kernels the transformer's step is built of, as small constructors: products with
//! strides, sums, layer norms; and what a block keeps for its backward.

use crate::kernel::{BufId, Kernel, Points};
use crate::ops::add::Add;
use crate::ops::matmul::{Matmul, MatmulDims};
use crate::ops::norm::{NormBackwardInput, NormBackwardParams, NormForward, NormGeom, NormKind};

/// What a block keeps from its forward pass for its backward: Q|K|V, the probabilities, the
/// heads' output, h (the residual after the attention), u (before the GELU) and after it; the
/// attention's and the MLP's inputs (x and h, or their norms), and each norm's output and
/// statistics.
#[derive(Clone, Copy)]
pub(super) struct Kept {
    pub(super) qkv: BufId,
    pub(super) probs: BufId,
    pub(super) out: BufId,
    pub(super) h: BufId,
    pub(super) u: BufId,
    pub(super) gelu: BufId,
    pub(super) attn_in: BufId,
    pub(super) mlp_in: BufId,
    pub(super) norm1: Option<(BufId, BufId)>,
    pub(super) norm2: Option<(BufId, BufId)>,
}

/// y = a + b over `n` values.
pub(super) fn add(a: BufId, b: BufId, y: BufId, n: usize) -> Box<dyn Kernel> {
    Box::new(Add {
        a,
        b,
        y,
        per_copy: n,
        points: Points::default(),
        b_shared: false,
    })
}

/// A layer norm over each of `rows` rows of `width` values, its γ at `gamma` (β after it).
pub(super) fn norm_geom(rows: usize, width: usize, gamma: usize) -> NormGeom {
    NormGeom {
        kind: NormKind::Layer,
        rows,
        channels: width,
        spatial: 1,
        w_off: gamma,
        b_off: gamma + width,
        run_off: 0,
    }
}

/// One layer norm's forward: `output` = LN(`input`), its statistics kept in `stats`.
pub(super) fn norm_forward(
    g: NormGeom,
    params: BufId,
    (input, output, stats): (BufId, BufId, BufId),
) -> Box<dyn Kernel> {
    Box::new(NormForward {
        g,
        input,
        params,
        output,
        stats,
        points: Points::default(),
    })
}

/// One layer norm's backward: its input's gradient into `d_in`, γ's and β's into `grads`.
pub(super) fn norm_backward(
    g: NormGeom,
    (params, grads): (BufId, BufId),
    (input, stats, d_out, d_in): (BufId, BufId, BufId, BufId),
) -> [Box<dyn Kernel>; 2] {
    [
        Box::new(NormBackwardInput {
            g,
            input,
            params,
            stats,
            d_out,
            d_in,
        }),
        Box::new(NormBackwardParams {
            g,
            input,
            stats,
            d_out,
            grads,
        }),
    ]
}

/// C = A · B with the strides given: (offset, row stride, column stride) of A and of B.
pub(super) fn product(
    (a, a_off, a_rs, a_cs): (BufId, usize, usize, usize),
    (b, b_off, b_rs, b_cs): (BufId, usize, usize, usize),
    (c, c_off, accumulate): (BufId, usize, bool),
    (m, n, k): (usize, usize, usize),
) -> Box<dyn Kernel> {
    let dims = MatmulDims {
        m,
        n,
        k,
        a_off,
        a_rs,
        a_cs,
        b_off,
        b_rs,
        b_cs,
        c_off,
        accumulate,
        ..Default::default()
    };
    Box::new(Matmul::new(a, b, c, dims))
}

/// The same product for each of `batch` samples, each its own 1 × k row of A and 1 × n row of C
/// (`a_bs` and `c_bs` apart), B shared: one product of `batch` rows with those row strides. (As
/// `batch` products of one row, each ran a whole tile of which one row was used: on a GPU emulated
/// on the processor that made the head's two products as dear as the block's largest.)
pub(super) fn rows_product(
    (a, a_off, a_bs): (BufId, usize, usize),
    (b, b_off, b_rs, b_cs): (BufId, usize, usize, usize),
    (c, c_off, c_bs): (BufId, usize, usize),
    (batch, n, k): (usize, usize, usize),
) -> Box<dyn Kernel> {
    let dims = MatmulDims {
        m: batch,
        n,
        k,
        a_off,
        a_rs: a_bs,
        a_cs: 1,
        b_off,
        b_rs,
        b_cs,
        c_off,
        c_rs: c_bs,
        ..Default::default()
    };
    Box::new(Matmul::new(a, b, c, dims))
}
