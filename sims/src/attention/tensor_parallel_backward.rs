//! The backward of the transformer's step with its heads split over t devices (Megatron-LM's,
//! docs/theory.md §12.6), and training with it: each device runs the backward of its own heads
//! and hidden units and writes only its shard's gradient — no weight gradient is exchanged —
//! while two allreduces a block sum the devices' partial gradients of the block's inputs (the
//! attention's and the MLP's). The replicated tensors' gradients (embeddings, head, norms, the
//! MLP's output bias) are the same on every device. Adam then updates each shard where it lies:
//! the same update as the unsplit step's, so a split run's weights are the unsplit run's (tested
//! against the engine's own step).

use super::shard_products::{add_into, Shard, Sharded};
use super::tensor_parallel::{embed_geom, forward, norm_geom, Normed, Split};
use engine::ops::activation::{act_backward_cpu, Activation};
use engine::ops::adam::adam_cpu;
use engine::ops::attention::{attention_backward_key_cpu, attention_backward_query_cpu};
use engine::ops::embedding::{embed_positions_grad_cpu, embed_table_grad_cpu};
use engine::ops::norm::{norm_backward_input_cpu, norm_backward_params_cpu};
use engine::transformer::{Layout, TransformerConfig};

/// dx through a layer norm (γ at `gamma`) for `dy`, its dγ and dβ written into `grads`; `dy`
/// itself without one.
fn through_norm(
    norm: Option<(usize, &Normed)>,
    (x, params, rows, d): (&[f32], &[f32], usize, usize),
    dy: Vec<f32>,
    grads: &mut [f32],
) -> Vec<f32> {
    let Some((gamma, (_, stats))) = norm else {
        return dy;
    };
    let g = norm_geom(rows, d, gamma);
    let mut dx = vec![0.0; dy.len()];
    norm_backward_input_cpu(&g, x, params, stats, &dy, &mut dx);
    norm_backward_params_cpu(&g, x, stats, &dy, grads);
    dx
}

/// The mean loss of `ids` (batch × seq tokens) against `labels` and the whole gradient, every
/// block's heads and hidden units split over `devices` (which divides both).
pub fn split_gradient(
    c: &TransformerConfig,
    layout: &Layout,
    params: &[f32],
    (ids, labels): (&[u32], &[u32]),
    devices: usize,
) -> (f32, Vec<f32>) {
    let f = forward(c, layout, params, (ids, labels), devices);
    let s = Split::new(c, devices);
    let (t, d, v, rows) = (c.seq, c.width, c.vocab, s.rows);
    let b = labels.len() as f32;
    let mut grads = vec![0.0; layout.n];
    // The tied head at each last position: d logits = (softmax − one-hot) / batch.
    let head = Sharded {
        w: &params[layout.table..],
        outs: v,
        ins: d,
        shard: Shard::Rows { first: 0, count: v },
    };
    let head_in = f.ln_f.as_ref().map_or(&f.x, |n| &n.0);
    let mut d_head_in = vec![0.0; rows * d];
    for (n, y) in labels.iter().enumerate() {
        let mut dl: Vec<f32> = f.probs[n * v..(n + 1) * v].iter().map(|p| p / b).collect();
        dl[*y as usize] -= 1.0 / b;
        let row = (n * t + t - 1) * d;
        let dx = head.backward(&head_in[row..row + d], &dl, &mut grads[layout.table..]);
        d_head_in[row..row + d].copy_from_slice(&dx);
    }
    let ln_f = layout.ln_f.zip(f.ln_f.as_ref());
    let mut g = through_norm(ln_f, (&f.x, params, rows, d), d_head_in, &mut grads);
    for (o, kept) in layout.blocks.iter().zip(&f.blocks).rev() {
        // The block's output x + a + MLP(·) + b₂.
        for (i, gi) in g.iter().enumerate() {
            grads[o.b2 + i % d] += gi;
        }
        let mlp_in = kept.ln2.as_ref().map_or(&kept.h, |n| &n.0);
        // The backward's first allreduce: every device's part of the MLP input's gradient.
        let mut d_mlp_in = vec![0.0; rows * d];
        for (k, dev) in kept.devices.iter().enumerate() {
            let d_act = s
                .mlp(c, &params[o.w2..], k, true)
                .backward(&dev.act, &g, &mut grads[o.w2..]);
            let mut d_u = vec![0.0; d_act.len()];
            act_backward_cpu(Activation::Gelu, &dev.u, &d_act, &mut d_u);
            for (i, du) in d_u.iter().enumerate() {
                grads[o.b1 + k * s.fk + i % s.fk] += du;
            }
            add_into(
                &mut d_mlp_in,
                &s.mlp(c, &params[o.w1..], k, false)
                    .backward(mlp_in, &d_u, &mut grads[o.w1..]),
            );
        }
        let ln2 = o.ln2.zip(kept.ln2.as_ref());
        let mut dh = g;
        add_into(
            &mut dh,
            &through_norm(ln2, (&kept.h, params, rows, d), d_mlp_in, &mut grads),
        );
        let attn_in = kept.ln1.as_ref().map_or(&kept.x, |n| &n.0);
        // The second: every device's part of the attention input's gradient.
        let mut d_attn_in = vec![0.0; rows * d];
        for (k, dev) in kept.devices.iter().enumerate() {
            let d_out = s
                .out(c, &params[o.out..], k)
                .backward(&dev.out, &dh, &mut grads[o.out..]);
            let (mut d_scores, mut d_qkv) = (vec![0.0; s.geom.scores_len()], vec![0.0; rows * 3 * s.dk]);
            attention_backward_query_cpu(&s.geom, (&dev.qkv, &dev.probs, &d_out), &mut d_scores, &mut d_qkv);
            attention_backward_key_cpu(&s.geom, (&dev.qkv, &dev.probs, &d_out, &d_scores), &mut d_qkv);
            for p in 0..3 {
                let part: Vec<f32> = (d_qkv.chunks(3 * s.dk))
                    .flat_map(|row| row[p * s.dk..(p + 1) * s.dk].to_vec())
                    .collect();
                let dx = s
                    .qkv(c, &params[o.qkv..], p, k)
                    .backward(attn_in, &part, &mut grads[o.qkv..]);
                add_into(&mut d_attn_in, &dx);
            }
        }
        let ln1 = o.ln1.zip(kept.ln1.as_ref());
        add_into(
            &mut dh,
            &through_norm(ln1, (&kept.x, params, rows, d), d_attn_in, &mut grads),
        );
        g = dh;
    }
    let e = embed_geom(c);
    embed_table_grad_cpu(
        &e,
        (ids, &g),
        true,
        &mut grads[layout.table..layout.table + v * d],
    );
    embed_positions_grad_cpu(&e, &g, &mut grads[layout.pos..layout.pos + t * d]);
    (f.loss, grads)
}

/// Adam's state over the flat parameters, updated with gradients from [`split_gradient`].
pub struct SplitTraining {
    pub params: Vec<f32>,
    m: Vec<f32>,
    v: Vec<f32>,
    step: u32,
}

impl SplitTraining {
    pub fn new(params: Vec<f32>) -> Self {
        let n = params.len();
        SplitTraining {
            params,
            m: vec![0.0; n],
            v: vec![0.0; n],
            step: 0,
        }
    }

    /// One step on a batch with the heads split over `devices`: its loss. Adam (learning
    /// rate, β₁, β₂, ε; no weight decay) updates every shard where it lies.
    pub fn step(
        &mut self,
        (c, layout): (&TransformerConfig, &Layout),
        batch: (&[u32], &[u32]),
        devices: usize,
        (lr, beta1, beta2, eps): (f32, f32, f32, f32),
    ) -> f32 {
        let (loss, grads) = split_gradient(c, layout, &self.params, batch, devices);
        self.step += 1;
        let (m, v) = (&mut self.m, &mut self.v);
        adam_cpu(
            &grads,
            &mut self.params,
            m,
            v,
            lr,
            beta1,
            beta2,
            eps,
            0.0,
            self.step,
        );
        loss
    }
}
