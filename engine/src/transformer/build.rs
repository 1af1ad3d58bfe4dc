//! The transformer's step as kernels: forward, the loss at the last position and its gradient,
//! then the blocks' backward (`backward`) and the update.

use super::backward::Backward;
use super::kernels::{add, norm_backward, norm_forward, norm_geom, product, rows_product, Kept};
use super::layout::{decayed_slices, Layout};
use super::TransformerConfig;
use crate::kernel::{BufId, BufferTable, Elem, Kernel, Points};
use crate::ops::activation::{ActForward, Activation};
use crate::ops::add::Add;
use crate::ops::attention::{AttentionForward, AttentionGeom};
use crate::ops::batch_mean::BatchMean;
use crate::ops::bias::AddBias;
use crate::ops::decay::DecaySlice;
use crate::ops::embedding::{Embed, EmbedGeom};
use crate::ops::softmax_xent::SoftmaxXent;
use crate::optim::{self, Optimizer, OptimizerBuffers};
use crate::plan::{Plan, LOG_CAPACITY};

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
    // What each block keeps for its backward.
    let mut kept: Vec<Kept> = Vec::new();
    // A layer norm's output and statistics (rows × 2: mean and variance).
    let norm =
        |tb: &mut BufferTable, ops: &mut Vec<Box<dyn Kernel>>, name: String, x: BufId, gamma: usize| {
            let n = tb.add(&name, Elem::F32, rows * d);
            let stats = tb.add(&format!("{name}.stats"), Elem::F32, rows * 2);
            ops.push(norm_forward(norm_geom(rows, d, gamma), params, (x, n, stats)));
            (n, stats)
        };
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
        // With layer norm the attention reads n1 = LN1(x), the MLP n2 = LN2(h).
        let norm1 = o
            .ln1
            .map(|gamma| norm(&mut tb, &mut ops, format!("block{l}.n1"), x, gamma));
        let attn_in = norm1.map_or(x, |n| n.0);
        // qkv = x W_qkvᵀ; attention; a = o W_outᵀ; h = x + a.
        ops.push(product(
            (attn_in, 0, d, 1),
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
        let norm2 = o
            .ln2
            .map(|gamma| norm(&mut tb, &mut ops, format!("block{l}.n2"), h, gamma));
        let mlp_in = norm2.map_or(h, |n| n.0);
        // u = h W_1ᵀ + b_1; GELU; m = gelu W_2ᵀ + b_2; x' = h + m.
        ops.push(product(
            (mlp_in, 0, d, 1),
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
        kept.push(Kept {
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
        });
    }
    // The head at each sequence's last position: logits = x_last tableᵀ (after the final norm).
    let last = *xs.last().expect("the embedding");
    let norm_f = layout
        .ln_f
        .map(|gamma| norm(&mut tb, &mut ops, "xf".into(), last, gamma));
    let forward_end = ops.len();
    let head_in = norm_f.map_or(last, |n| n.0);
    let logits = tb.add("logits", Elem::F32, b * v);
    let loss = tb.add("batch.loss", Elem::F32, b);
    let correct = tb.add("batch.correct", Elem::F32, b);
    let d_logits = tb.add("batch.d_logits", Elem::F32, b * v);
    let log_loss = tb.add("log.loss", Elem::F32, LOG_CAPACITY);
    let log_accuracy = tb.add("log.accuracy", Elem::F32, LOG_CAPACITY);
    ops.push(rows_product(
        (head_in, (t - 1) * d, t * d),
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
        (head_in, (t - 1) * d, t * d, 1),
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
    // With layer norm the residual's gradient is summed out of place: dh = dx + LN2's backward,
    // then dx = dh + LN1's, through two scratch buffers.
    let scratch = |tb: &mut BufferTable, name: &str| layout.ln_f.map(|_| tb.add(name, Elem::F32, rows * d));
    let (d_norm, d_ln, dh) = (
        scratch(&mut tb, "d_norm"),
        scratch(&mut tb, "d_ln"),
        scratch(&mut tb, "dh"),
    );
    let d_head = dh.unwrap_or(dx);
    ops.push(add(d_last, zero, d_head, rows * d));
    if let (Some(gamma), Some((_, stats))) = (layout.ln_f, norm_f) {
        ops.extend(norm_backward(
            norm_geom(rows, d, gamma),
            (params, grads),
            (last, stats, d_head, dx),
        ));
    }
    super::backward::blocks(
        &Backward {
            c,
            layout: &layout,
            g,
            e,
            bufs: (params, grads, ids),
            kept: &kept,
            xs: &xs,
            dx,
            scratch: (d_norm, d_ln, dh),
        },
        &mut tb,
        &mut ops,
    );
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
    let probs = kept.iter().map(|k| k.probs).collect();
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
