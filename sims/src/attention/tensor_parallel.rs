//! The transformer's step with its heads split over t tensor-parallel devices, as Megatron-LM
//! splits it (Shoeybi et al. 2019; docs/theory.md §12.6): device k holds the Q, K and V rows of
//! W_qkv for its a/t heads and the matching columns of W_out, and a t-th of the MLP's hidden
//! units (rows of W₁ and b₁, columns of W₂); each computes its heads' attention and its units
//! alone. Forward, two allreduces a block (after the attention's projection, after the MLP) sum
//! the devices' partial outputs; backward, two more sum their partial gradients of the block's
//! inputs (`backward`). Layer norms, the embeddings and the head are replicated. Built on the
//! engine's CPU twins, so the loss and gradient it reaches can be held to the engine's own.

use super::shard_products::{add_into, Shard, Sharded};
use engine::ops::activation::Activation;
use engine::ops::attention::{attention_forward_cpu, AttentionGeom};
use engine::ops::embedding::{embed_cpu, EmbedGeom};
use engine::ops::norm::{norm_forward_cpu, NormGeom, NormKind};
use engine::transformer::{Layout, TransformerConfig};

/// One device's activations of a block, kept for its backward.
pub(super) struct DeviceKept {
    /// Its heads' Q | K | V side by side, a row each.
    pub qkv: Vec<f32>,
    /// Its heads' attention output (W_out's input columns it holds).
    pub out: Vec<f32>,
    pub probs: Vec<f32>,
    /// Its hidden units before and after GELU.
    pub u: Vec<f32>,
    pub act: Vec<f32>,
}

/// A layer norm's output and its per-row (mean, variance).
pub(super) type Normed = (Vec<f32>, Vec<f32>);

pub(super) struct BlockKept {
    pub x: Vec<f32>,
    pub ln1: Option<Normed>,
    pub devices: Vec<DeviceKept>,
    pub h: Vec<f32>,
    pub ln2: Option<Normed>,
}

/// What the split forward pass computed: the mean loss, the softmax at each sequence's last
/// position, and what the backward reads.
pub(super) struct Forward {
    pub loss: f32,
    pub probs: Vec<f32>,
    pub blocks: Vec<BlockKept>,
    /// The last block's output and (with layer norm) the final norm of it.
    pub x: Vec<f32>,
    pub ln_f: Option<Normed>,
}

/// The split's sizes: rows, width, hidden, heads and width and hidden units a device.
pub(super) struct Split {
    pub rows: usize,
    pub dk: usize,
    pub fk: usize,
    pub geom: AttentionGeom,
}

impl Split {
    pub fn new(c: &TransformerConfig, devices: usize) -> Self {
        Split {
            rows: c.batch * c.seq,
            dk: c.width / devices,
            fk: c.hidden / devices,
            geom: AttentionGeom {
                batch: c.batch,
                seq: c.seq,
                heads: c.heads / devices,
                head_dim: c.head_dim(),
                causal: true,
            },
        }
    }

    /// Device k's rows of W_qkv for part p (0 Q, 1 K, 2 V).
    pub fn qkv<'a>(&self, c: &TransformerConfig, w: &'a [f32], p: usize, k: usize) -> Sharded<'a> {
        let first = p * c.width + k * self.dk;
        Sharded {
            w,
            outs: 3 * c.width,
            ins: c.width,
            shard: Shard::Rows {
                first,
                count: self.dk,
            },
        }
    }

    /// Device k's columns of W_out.
    pub fn out<'a>(&self, c: &TransformerConfig, w: &'a [f32], k: usize) -> Sharded<'a> {
        let shard = Shard::Cols {
            first: k * self.dk,
            count: self.dk,
        };
        Sharded {
            w,
            outs: c.width,
            ins: c.width,
            shard,
        }
    }

    /// Device k's rows of W₁ (`second`: its columns of W₂).
    pub fn mlp<'a>(&self, c: &TransformerConfig, w: &'a [f32], k: usize, second: bool) -> Sharded<'a> {
        let (first, count) = (k * self.fk, self.fk);
        match second {
            false => Sharded {
                w,
                outs: c.hidden,
                ins: c.width,
                shard: Shard::Rows { first, count },
            },
            true => Sharded {
                w,
                outs: c.width,
                ins: c.hidden,
                shard: Shard::Cols { first, count },
            },
        }
    }
}

pub(super) fn norm_geom(rows: usize, d: usize, gamma: usize) -> NormGeom {
    NormGeom {
        kind: NormKind::Layer,
        rows,
        channels: d,
        spatial: 1,
        w_off: gamma,
        b_off: gamma + d,
        run_off: 0,
    }
}

fn layer_norm(x: &[f32], params: &[f32], (rows, d, gamma): (usize, usize, usize)) -> Normed {
    let (mut y, mut stats) = (vec![0.0; rows * d], vec![0.0; 2 * rows]);
    norm_forward_cpu(&norm_geom(rows, d, gamma), x, params, &mut y, &mut stats);
    (y, stats)
}

pub(super) fn embed_geom(c: &TransformerConfig) -> EmbedGeom {
    EmbedGeom {
        tokens: c.batch * c.seq,
        seq: c.seq,
        width: c.width,
        vocab: c.vocab,
        table_off: 0,
        pos_off: 0,
    }
}

/// The split forward pass over `ids` (batch × seq tokens) against `labels`.
pub(super) fn forward(
    c: &TransformerConfig,
    layout: &Layout,
    params: &[f32],
    (ids, labels): (&[u32], &[u32]),
    devices: usize,
) -> Forward {
    let (t, d, v) = (c.seq, c.width, c.vocab);
    let s = Split::new(c, devices);
    let mut x = vec![0.0; s.rows * d];
    embed_cpu(
        &embed_geom(c),
        ids,
        &params[layout.table..],
        &params[layout.pos..],
        &mut x,
    );
    let mut blocks = Vec::new();
    for o in &layout.blocks {
        let ln1 = o.ln1.map(|gamma| layer_norm(&x, params, (s.rows, d, gamma)));
        let attn_in = ln1.as_ref().map_or(&x, |n| &n.0);
        let mut kept = Vec::with_capacity(devices);
        // The first allreduce sums every device's share of the projected attention.
        let mut a = vec![0.0; s.rows * d];
        for k in 0..devices {
            let parts: Vec<Vec<f32>> = (0..3)
                .map(|p| s.qkv(c, &params[o.qkv..], p, k).forward(attn_in))
                .collect();
            let qkv: Vec<f32> = (0..s.rows)
                .flat_map(|r| {
                    parts
                        .iter()
                        .flat_map(move |part| part[r * s.dk..(r + 1) * s.dk].to_vec())
                })
                .collect();
            let (mut out, mut probs) = (vec![0.0; s.rows * s.dk], vec![0.0; s.geom.scores_len()]);
            attention_forward_cpu(&s.geom, &qkv, &mut out, &mut probs);
            add_into(&mut a, &s.out(c, &params[o.out..], k).forward(&out));
            kept.push(DeviceKept {
                qkv,
                out,
                probs,
                u: Vec::new(),
                act: Vec::new(),
            });
        }
        let h: Vec<f32> = x.iter().zip(&a).map(|(x, a)| x + a).collect();
        let ln2 = o.ln2.map(|gamma| layer_norm(&h, params, (s.rows, d, gamma)));
        let mlp_in = ln2.as_ref().map_or(&h, |n| &n.0);
        // The second allreduce sums every device's share of the MLP's output.
        let mut m = vec![0.0; s.rows * d];
        for (k, device) in kept.iter_mut().enumerate() {
            let mut u = s.mlp(c, &params[o.w1..], k, false).forward(mlp_in);
            for (i, z) in u.iter_mut().enumerate() {
                *z += params[o.b1 + k * s.fk + i % s.fk];
            }
            let act: Vec<f32> = u.iter().map(|z| Activation::Gelu.apply(*z)).collect();
            add_into(&mut m, &s.mlp(c, &params[o.w2..], k, true).forward(&act));
            (device.u, device.act) = (u, act);
        }
        let next = (0..s.rows * d)
            .map(|i| h[i] + m[i] + params[o.b2 + i % d])
            .collect();
        blocks.push(BlockKept {
            x: std::mem::replace(&mut x, next),
            ln1,
            devices: kept,
            h,
            ln2,
        });
    }
    let ln_f = layout
        .ln_f
        .map(|gamma| layer_norm(&x, params, (s.rows, d, gamma)));
    let head_in = ln_f.as_ref().map_or(&x, |n| &n.0);
    let head = Sharded {
        w: &params[layout.table..],
        outs: v,
        ins: d,
        shard: Shard::Rows { first: 0, count: v },
    };
    let mut loss = 0.0f64;
    let mut probs = Vec::with_capacity(labels.len() * v);
    for (n, y) in labels.iter().enumerate() {
        let logits = head.forward(&head_in[(n * t + t - 1) * d..(n * t + t) * d]);
        let top = logits.iter().cloned().fold(f32::MIN, f32::max);
        let sum: f64 = logits.iter().map(|l| f64::from(l - top).exp()).sum();
        loss += sum.ln() - f64::from(logits[*y as usize] - top);
        probs.extend(logits.iter().map(|l| (f64::from(l - top).exp() / sum) as f32));
    }
    Forward {
        loss: (loss / labels.len() as f64) as f32,
        probs,
        blocks,
        x,
        ln_f,
    }
}

/// The mean cross-entropy at the last position of `ids` (batch × seq tokens) against `labels`,
/// with every block's heads and hidden units split over `devices` (which divides both).
pub fn split_loss(
    c: &TransformerConfig,
    layout: &Layout,
    params: &[f32],
    batch: (&[u32], &[u32]),
    devices: usize,
) -> f32 {
    forward(c, layout, params, batch, devices).loss
}

/// What one device sends a block's forward pass over `devices` in a ring: two allreduces of the
/// block's output (s·b·d floats), each 2(t − 1)/t of it, 4 bytes a value. The backward sends as
/// much again (two allreduces of the gradients of the block's inputs).
pub fn sent_per_block(c: &TransformerConfig, devices: usize) -> f64 {
    let t = devices.max(1) as f64;
    2.0 * 2.0 * (t - 1.0) / t * (c.seq * c.batch * c.width) as f64 * 4.0
}
