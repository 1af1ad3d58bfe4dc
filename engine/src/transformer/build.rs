//! The transformer's step as kernels: forward, the loss at the last position, backward, update.
//! One gradient buffer `dx` flows down through the blocks: each residual's two paths add into it
//! in place (a product that accumulates), once the path's other readers are done with it.

use super::TransformerConfig;
use crate::kernel::{BufId, BufferTable, Elem, Kernel, Points};
use crate::ops::activation::{ActBackward, ActForward, Activation};
use crate::ops::add::Add;
use crate::ops::attention::{AttentionBackward, AttentionForward, AttentionGeom};
use crate::ops::batch_mean::BatchMean;
use crate::ops::bias::{AddBias, BiasGrad};
use crate::ops::decay::DecaySlice;
use crate::ops::embedding::{Embed, EmbedGeom, EmbedPositionsGrad, EmbedTableGrad};
use crate::ops::matmul::{Matmul, MatmulDims};
use crate::ops::softmax_xent::SoftmaxXent;
use crate::optim::{self, Optimizer, OptimizerBuffers};
use crate::plan::{Plan, LOG_CAPACITY};

/// Where a block's tensors start in the flat parameters: W_qkv [3·width, width], W_out [width,
/// width], W_1 [hidden, width], b_1, W_2 [width, hidden], b_2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockOffsets {
    pub qkv: usize,
    pub out: usize,
    pub w1: usize,
    pub b1: usize,
    pub w2: usize,
    pub b2: usize,
}

/// The flat parameters: the token table [vocab, width] (also the output head), the positions
/// [seq, width], then each block's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub table: usize,
    pub pos: usize,
    pub blocks: Vec<BlockOffsets>,
    pub n: usize,
}

impl Layout {
    pub fn new(c: &TransformerConfig) -> Self {
        let (d, f) = (c.width, c.hidden);
        let mut at = c.vocab * d + c.seq * d;
        let blocks = (0..c.blocks)
            .map(|_| {
                let b = BlockOffsets {
                    qkv: at,
                    out: at + 3 * d * d,
                    w1: at + 4 * d * d,
                    b1: at + 4 * d * d + f * d,
                    w2: at + 4 * d * d + f * d + f,
                    b2: at + 4 * d * d + 2 * f * d + f,
                };
                at = b.b2 + d;
                b
            })
            .collect();
        Layout {
            table: 0,
            pos: c.vocab * d,
            blocks,
            n: at,
        }
    }
}

/// The parameters AdamW's weight decay shrinks, as (offset, length): the token table and the
/// positions, then each block's W_qkv, W_out and W_1 (contiguous) and its W_2 — every tensor
/// but the biases.
pub fn decayed_slices(layout: &Layout) -> Vec<(usize, usize)> {
    let first = layout.blocks.first().map_or(layout.n, |b| b.qkv);
    let mut out = vec![(layout.table, first - layout.table)];
    for b in &layout.blocks {
        out.push((b.qkv, b.b1 - b.qkv));
        out.push((b.w2, b.b2 - b.w2));
    }
    out
}

/// The buffers the host writes or reads.
#[derive(Clone, Debug)]
pub struct TransformerBuffers {
    pub params: BufId,
    pub grads: BufId,
    pub bounds: BufId,
    pub ids: BufId,
    pub labels: BufId,
    pub loss: BufId,
    pub correct: BufId,
    pub log_loss: BufId,
    /// Each block's attention probabilities, [batch, heads, seq, seq].
    pub probs: Vec<BufId>,
    /// The forward kernels are the plan's first `forward_end`; the head and loss come next.
    pub forward_end: usize,
}

/// C = A · B with the strides given: (offset, row stride, column stride) of A and of B.
fn product(
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

/// The same product for each of `batch` samples, each its own 1 × k row of A and 1 × n row of C.
fn rows_product(
    (a, a_off, a_bs): (BufId, usize, usize),
    (b, b_off, b_rs, b_cs): (BufId, usize, usize, usize),
    (c, c_off, c_bs): (BufId, usize, usize),
    (batch, n, k): (usize, usize, usize),
) -> Box<dyn Kernel> {
    let dims = MatmulDims {
        m: 1,
        n,
        k,
        a_off,
        a_rs: k,
        a_cs: 1,
        b_off,
        b_rs,
        b_cs,
        c_off,
        batch,
        a_bs,
        b_bs: 0,
        c_bs,
        ..Default::default()
    };
    Box::new(Matmul::new(a, b, c, dims))
}

/// The step's buffers and kernels; the plan's optimizer starts after the backward pass.
pub fn plan(c: &TransformerConfig, optimizer: Optimizer) -> (Plan, Layout, TransformerBuffers) {
    let layout = Layout::new(c);
    let (b, t, d, f, v) = (c.batch, c.seq, c.width, c.hidden, c.vocab);
    let rows = b * t;
    let mut tb = BufferTable::default();
    let params = tb.add("params", Elem::F32, layout.n);
    let grads = tb.add("grads", Elem::F32, layout.n);
    let state_a = tb.add("optimizer.a", Elem::F32, layout.n);
    let state_b = tb.add("optimizer.b", Elem::F32, layout.n);
    let bounds = tb.add("optimizer.bounds", Elem::U32, 2);
    let norms = tb.add("optimizer.norms", Elem::F32, 2);
    let ids = tb.add("batch.ids", Elem::U32, rows);
    let labels = tb.add("batch.y", Elem::U32, b);
    let g = AttentionGeom {
        batch: b,
        seq: t,
        heads: c.heads,
        head_dim: c.head_dim(),
        causal: true,
    };
    let e = EmbedGeom {
        tokens: rows,
        seq: t,
        width: d,
        vocab: v,
        table_off: layout.table,
        pos_off: layout.pos,
    };
    let act = |tb: &mut BufferTable, name: String, width: usize| tb.add(&name, Elem::F32, rows * width);
    let mut ops: Vec<Box<dyn Kernel>> = Vec::new();
    // Forward.
    let x0 = act(&mut tb, "x0".into(), d);
    ops.push(Box::new(Embed {
        g: e,
        ids,
        table: params,
        positions: params,
        x: x0,
    }));
    let mut xs = vec![x0];
    // What each block keeps for its backward: qkv, probs, o, h, u (pre-GELU), gelu(u).
    let mut kept = Vec::new();
    for (l, o) in layout.blocks.iter().enumerate() {
        let x = xs[l];
        let qkv = act(&mut tb, format!("block{l}.qkv"), 3 * d);
        let probs = tb.add(&format!("block{l}.probs"), Elem::F32, g.scores_len());
        let out = act(&mut tb, format!("block{l}.attention"), d);
        let a = act(&mut tb, format!("block{l}.projected"), d);
        let h = act(&mut tb, format!("block{l}.h"), d);
        let u = act(&mut tb, format!("block{l}.u"), f);
        let gelu = act(&mut tb, format!("block{l}.gelu"), f);
        let m = act(&mut tb, format!("block{l}.mlp"), d);
        let next = act(&mut tb, format!("x{}", l + 1), d);
        // qkv = x W_qkvᵀ; attention; a = o W_outᵀ; h = x + a.
        ops.push(product(
            (x, 0, d, 1),
            (params, o.qkv, 1, d),
            (qkv, 0, false),
            (rows, 3 * d, d),
        ));
        ops.push(Box::new(AttentionForward { g, qkv, out, probs }));
        ops.push(product(
            (out, 0, d, 1),
            (params, o.out, 1, d),
            (a, 0, false),
            (rows, d, d),
        ));
        ops.push(Box::new(Add {
            a: x,
            b: a,
            y: h,
            per_copy: rows * d,
            points: Points::default(),
            b_shared: false,
        }));
        // u = h W_1ᵀ + b_1; GELU; m = gelu W_2ᵀ + b_2; x' = h + m.
        ops.push(product(
            (h, 0, d, 1),
            (params, o.w1, 1, d),
            (u, 0, false),
            (rows, f, d),
        ));
        ops.push(Box::new(AddBias {
            params,
            bias_off: o.b1,
            z: u,
            rows,
            cols: f,
            points: Points::default(),
        }));
        ops.push(Box::new(ActForward {
            kind: Activation::Gelu,
            z: u,
            h: gelu,
            n: rows * f,
        }));
        ops.push(product(
            (gelu, 0, f, 1),
            (params, o.w2, 1, f),
            (m, 0, false),
            (rows, d, f),
        ));
        ops.push(Box::new(AddBias {
            params,
            bias_off: o.b2,
            z: m,
            rows,
            cols: d,
            points: Points::default(),
        }));
        ops.push(Box::new(Add {
            a: h,
            b: m,
            y: next,
            per_copy: rows * d,
            points: Points::default(),
            b_shared: false,
        }));
        xs.push(next);
        kept.push((qkv, probs, out, h, u, gelu));
    }
    let forward_end = ops.len();
    // The head at each sequence's last position: logits = x_last tableᵀ.
    let last = *xs.last().expect("the embedding");
    let logits = tb.add("logits", Elem::F32, b * v);
    let loss = tb.add("batch.loss", Elem::F32, b);
    let correct = tb.add("batch.correct", Elem::F32, b);
    let d_logits = tb.add("batch.d_logits", Elem::F32, b * v);
    let log_loss = tb.add("log.loss", Elem::F32, LOG_CAPACITY);
    let log_accuracy = tb.add("log.accuracy", Elem::F32, LOG_CAPACITY);
    ops.push(rows_product(
        (last, (t - 1) * d, t * d),
        (params, layout.table, 1, d),
        (logits, 0, v),
        (b, v, d),
    ));
    ops.push(Box::new(SoftmaxXent {
        logits,
        labels,
        loss,
        correct,
        dlogits: d_logits,
        rows: b,
        classes: v,
    }));
    ops.push(Box::new(BatchMean {
        loss,
        correct,
        log_loss,
        log_accuracy,
        rows: b,
        batches: 1,
    }));
    // Backward: the head's part of the table's gradient, and the last positions' gradient (the
    // other positions' stay 0: only the last is scored).
    ops.push(product(
        (d_logits, 0, 1, v),
        (last, (t - 1) * d, t * d, 1),
        (grads, layout.table, false),
        (v, d, b),
    ));
    let d_last = act(&mut tb, "d_last".into(), d);
    let zero = act(&mut tb, "zero".into(), d);
    let dx = act(&mut tb, "dx".into(), d);
    ops.push(rows_product(
        (d_logits, 0, v),
        (params, layout.table, d, 1),
        (d_last, (t - 1) * d, t * d),
        (b, d, v),
    ));
    ops.push(Box::new(Add {
        a: d_last,
        b: zero,
        y: dx,
        per_copy: rows * d,
        points: Points::default(),
        b_shared: false,
    }));
    let d_gelu = act(&mut tb, "d_gelu".into(), f);
    let d_u = act(&mut tb, "d_u".into(), f);
    let d_out = act(&mut tb, "d_attention".into(), d);
    let d_scores = tb.add("d_scores", Elem::F32, g.scores_len());
    let d_qkv = act(&mut tb, "d_qkv".into(), 3 * d);
    for (l, o) in layout.blocks.iter().enumerate().rev() {
        let (qkv, probs, out, h, u, gelu) = kept[l];
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
            (h, 0, d, 1),
            (grads, o.w1, false),
            (f, d, rows),
        ));
        // dh = dx + du W_1: in place, dx is dh from here.
        ops.push(product(
            (d_u, 0, f, 1),
            (params, o.w1, d, 1),
            (dx, 0, true),
            (rows, d, f),
        ));
        // Attention: da = dh.
        ops.push(product(
            (dx, 0, 1, d),
            (out, 0, d, 1),
            (grads, o.out, false),
            (d, d, rows),
        ));
        ops.push(product(
            (dx, 0, d, 1),
            (params, o.out, d, 1),
            (d_out, 0, false),
            (rows, d, d),
        ));
        ops.extend(AttentionBackward::pair(g, (qkv, probs, d_out), (d_scores, d_qkv)));
        ops.push(product(
            (d_qkv, 0, 1, 3 * d),
            (xs[l], 0, d, 1),
            (grads, o.qkv, false),
            (3 * d, d, rows),
        ));
        // dx = dh + dqkv W_qkv: the block's input's gradient.
        ops.push(product(
            (d_qkv, 0, 3 * d, 1),
            (params, o.qkv, d, 1),
            (dx, 0, true),
            (rows, d, 3 * d),
        ));
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
    let optimizer_start = ops.len();
    // AdamW decays the embeddings and the weight matrices, not the biases (as GPT-2's training
    // does): the decay runs on those slices first, then Adam with no decay updates everything.
    let optimizer = match optimizer {
        Optimizer::AdamW {
            beta1,
            beta2,
            eps,
            weight_decay,
        } => {
            ops.extend(decayed_slices(&layout).into_iter().map(|(off, n)| {
                Box::new(DecaySlice {
                    weights: params,
                    off,
                    n,
                    decay: weight_decay,
                }) as Box<dyn Kernel>
            }));
            Optimizer::Adam { beta1, beta2, eps }
        }
        other => other,
    };
    ops.extend(optim::kernels(
        optimizer,
        OptimizerBuffers {
            grads,
            weights: params,
            state_a,
            state_b,
            bounds,
            norms,
            n: layout.n,
            segments: 1,
        },
    ));
    let mut plan = Plan::of_kernels(tb, ops);
    plan.optimizer_start = optimizer_start;
    let probs = kept.iter().map(|k| k.1).collect();
    let bufs = TransformerBuffers {
        params,
        grads,
        bounds,
        ids,
        labels,
        loss,
        correct,
        log_loss,
        probs,
        forward_end,
    };
    (plan, layout, bufs)
}
