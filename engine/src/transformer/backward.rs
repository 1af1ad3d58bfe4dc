//! The transformer's backward through its blocks, last first: each block's MLP, then its
//! attention, the gradient of the block's input flowing in one buffer `dx` — added into in place
//! (a product that accumulates) without layer norm, or summed out of place through two scratch
//! buffers with it — then the embeddings' gradients.

use super::kernels::{add, norm_backward, norm_geom, product, Kept};
use super::layout::Layout;
use super::TransformerConfig;
use crate::kernel::{BufId, BufferTable, Elem, Kernel};
use crate::ops::activation::{ActBackward, Activation};
use crate::ops::attention::{AttentionBackward, AttentionGeom};
use crate::ops::bias::BiasGrad;
use crate::ops::embedding::{EmbedGeom, EmbedPositionsGrad, EmbedTableGrad};

/// What the backward reads: the model, its geometry, the parameters, gradients and token ids,
/// what each block kept, the blocks' inputs, the gradient buffer and (layer norm) the scratch.
pub(super) struct Backward<'a> {
    pub c: &'a TransformerConfig,
    pub layout: &'a Layout,
    pub g: AttentionGeom,
    pub e: EmbedGeom,
    pub bufs: (BufId, BufId, BufId),
    pub kept: &'a [Kept],
    pub xs: &'a [BufId],
    pub dx: BufId,
    pub scratch: (Option<BufId>, Option<BufId>, Option<BufId>),
}

/// Pushes the blocks' backward and the embeddings' onto `ops`; `dx` holds the last block's
/// output's gradient when it starts.
pub(super) fn blocks(cx: &Backward, tb: &mut BufferTable, ops: &mut Vec<Box<dyn Kernel>>) {
    let Backward {
        c,
        layout,
        g,
        e,
        kept,
        xs,
        dx,
        ..
    } = *cx;
    let (params, grads, ids) = cx.bufs;
    let (d_norm, d_ln, dh) = cx.scratch;
    let (d, f) = (c.width, c.hidden);
    let rows = c.batch * c.seq;
    let act = |tb: &mut BufferTable, name: String, width: usize| tb.add(&name, Elem::F32, rows * width);
    let d_gelu = act(tb, "d_gelu".into(), f);
    let d_u = act(tb, "d_u".into(), f);
    let d_out = act(tb, "d_attention".into(), d);
    let d_scores = tb.add("d_scores", Elem::F32, g.scores_len());
    let d_qkv = act(tb, "d_qkv".into(), 3 * d);
    for (l, o) in layout.blocks.iter().enumerate().rev() {
        let Kept {
            qkv,
            probs,
            out,
            h,
            u,
            gelu,
            attn_in,
            mlp_in,
            norm1,
            norm2,
        } = kept[l];
        // The MLP: dx is dm here.
        ops.push(Box::new(BiasGrad {
            dz: dx,
            grads,
            bias_off: o.b2,
            rows,
            cols: d,
        }));
        ops.push(product(
            (dx, 0, 1, d),
            (gelu, 0, f, 1),
            (grads, o.w2, false),
            (d, f, rows),
        ));
        ops.push(product(
            (dx, 0, d, 1),
            (params, o.w2, f, 1),
            (d_gelu, 0, false),
            (rows, f, d),
        ));
        ops.push(Box::new(ActBackward {
            kind: Activation::Gelu,
            z: u,
            dh: d_gelu,
            dz: d_u,
            n: rows * f,
        }));
        ops.push(Box::new(BiasGrad {
            dz: d_u,
            grads,
            bias_off: o.b1,
            rows,
            cols: f,
        }));
        ops.push(product(
            (d_u, 0, 1, f),
            (mlp_in, 0, d, 1),
            (grads, o.w1, false),
            (f, d, rows),
        ));
        // dh = dx + (du W_1, through LN2 if any): in place without a norm, dx is dh from here.
        let dh = match (o.ln2, norm2, d_norm, d_ln, dh) {
            (Some(gamma), Some((_, stats)), Some(d_norm), Some(d_ln), Some(dh)) => {
                ops.push(product(
                    (d_u, 0, f, 1),
                    (params, o.w1, d, 1),
                    (d_norm, 0, false),
                    (rows, d, f),
                ));
                ops.extend(norm_backward(
                    norm_geom(rows, d, gamma),
                    (params, grads),
                    (h, stats, d_norm, d_ln),
                ));
                ops.push(add(dx, d_ln, dh, rows * d));
                dh
            }
            _ => {
                ops.push(product(
                    (d_u, 0, f, 1),
                    (params, o.w1, d, 1),
                    (dx, 0, true),
                    (rows, d, f),
                ));
                dx
            }
        };
        // Attention: da = dh.
        ops.push(product(
            (dh, 0, 1, d),
            (out, 0, d, 1),
            (grads, o.out, false),
            (d, d, rows),
        ));
        ops.push(product(
            (dh, 0, d, 1),
            (params, o.out, d, 1),
            (d_out, 0, false),
            (rows, d, d),
        ));
        ops.extend(AttentionBackward::pair(g, (qkv, probs, d_out), (d_scores, d_qkv)));
        ops.push(product(
            (d_qkv, 0, 1, 3 * d),
            (attn_in, 0, d, 1),
            (grads, o.qkv, false),
            (3 * d, d, rows),
        ));
        // dx = dh + (dqkv W_qkv, through LN1 if any): the block's input's gradient.
        match (o.ln1, norm1, d_norm, d_ln) {
            (Some(gamma), Some((_, stats)), Some(d_norm), Some(d_ln)) => {
                ops.push(product(
                    (d_qkv, 0, 3 * d, 1),
                    (params, o.qkv, d, 1),
                    (d_norm, 0, false),
                    (rows, d, 3 * d),
                ));
                ops.extend(norm_backward(
                    norm_geom(rows, d, gamma),
                    (params, grads),
                    (xs[l], stats, d_norm, d_ln),
                ));
                ops.push(add(dh, d_ln, dx, rows * d));
            }
            _ => ops.push(product(
                (d_qkv, 0, 3 * d, 1),
                (params, o.qkv, d, 1),
                (dx, 0, true),
                (rows, d, 3 * d),
            )),
        }
    }
    // The embeddings: the table adds to the head's part.
    ops.push(Box::new(EmbedTableGrad {
        g: e,
        ids,
        d_x: dx,
        d_table: grads,
        accumulate: true,
    }));
    ops.push(Box::new(EmbedPositionsGrad {
        g: e,
        d_x: dx,
        d_positions: grads,
    }));
}
