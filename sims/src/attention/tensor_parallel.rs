//! The transformer's forward pass with its heads split over t tensor-parallel devices, as
//! Megatron-LM splits it (Shoeybi et al. 2019; docs/theory.md §12.6): device k holds the Q, K
//! and V rows of W_qkv for its a/t heads and the matching columns of W_out, and a t-th of the
//! MLP's hidden units (rows of W₁ and b₁, columns of W₂); each computes its heads' attention and
//! its units alone, and two allreduces a block (after the attention's projection, after the
//! MLP) sum the devices' partial outputs. Layer norms and the embeddings are replicated. Built
//! on the engine's CPU twins, so the loss it reaches can be held to the engine's own.

use engine::ops::activation::Activation;
use engine::ops::attention::{attention_forward_cpu, AttentionGeom};
use engine::ops::embedding::{embed_cpu, EmbedGeom};
use engine::ops::norm::{norm_forward_cpu, NormGeom, NormKind};
use engine::transformer::{Layout, TransformerConfig};

/// y[r, o] = Σᵢ x[r, i] · W[row_off + o, i] for `outs` rows of W (a [·, inputs] matrix).
fn rows_times(x: &[f32], w: &[f32], (row_off, outs, inputs): (usize, usize, usize)) -> Vec<f32> {
    let rows = x.len() / inputs;
    let mut y = vec![0.0; rows * outs];
    for r in 0..rows {
        for o in 0..outs {
            let wr = &w[(row_off + o) * inputs..(row_off + o + 1) * inputs];
            y[r * outs + o] = x[r * inputs..(r + 1) * inputs]
                .iter()
                .zip(wr)
                .map(|(a, b)| a * b)
                .sum();
        }
    }
    y
}

/// y[r, o] += Σᵢ x[r, i] · W[o, col_off + i]: a slice of W's columns (W is [outs, cols]).
fn add_cols_times(y: &mut [f32], x: &[f32], w: &[f32], (col_off, ins, cols): (usize, usize, usize)) {
    let outs = y.len() / (x.len() / ins);
    for r in 0..x.len() / ins {
        for o in 0..outs {
            let wr = &w[o * cols + col_off..o * cols + col_off + ins];
            y[r * outs + o] += x[r * ins..(r + 1) * ins]
                .iter()
                .zip(wr)
                .map(|(a, b)| a * b)
                .sum::<f32>();
        }
    }
}

fn layer_norm(x: &[f32], params: &[f32], (rows, d, gamma): (usize, usize, usize)) -> Vec<f32> {
    let g = NormGeom {
        kind: NormKind::Layer,
        rows,
        channels: d,
        spatial: 1,
        w_off: gamma,
        b_off: gamma + d,
        run_off: 0,
    };
    let (mut y, mut stats) = (vec![0.0; rows * d], vec![0.0; 2 * rows]);
    norm_forward_cpu(&g, x, params, &mut y, &mut stats);
    y
}

/// The mean cross-entropy at the last position of `ids` (batch × seq tokens) against `labels`,
/// with every block's heads and hidden units split over `devices` (which divides both).
pub fn split_loss(
    c: &TransformerConfig,
    layout: &Layout,
    params: &[f32],
    (ids, labels): (&[u32], &[u32]),
    devices: usize,
) -> f32 {
    let (b, t, d, f, v) = (c.batch, c.seq, c.width, c.hidden, c.vocab);
    let rows = b * t;
    let (heads, hd) = (c.heads / devices, c.head_dim());
    let (dk, fk) = (d / devices, f / devices);
    let e = EmbedGeom {
        tokens: rows,
        seq: t,
        width: d,
        vocab: v,
        table_off: 0,
        pos_off: 0,
    };
    let mut x = vec![0.0; rows * d];
    embed_cpu(&e, ids, &params[layout.table..], &params[layout.pos..], &mut x);
    let g = AttentionGeom {
        batch: b,
        seq: t,
        heads,
        head_dim: hd,
        causal: true,
    };
    for o in &layout.blocks {
        let attn_in = o
            .ln1
            .map_or(x.clone(), |gamma| layer_norm(&x, params, (rows, d, gamma)));
        let w_qkv = &params[o.qkv..o.qkv + 3 * d * d];
        // The first allreduce sums every device's share of the projected attention.
        let mut a = vec![0.0; rows * d];
        for k in 0..devices {
            // Device k's Q, K and V rows side by side: its heads alone, as the kernel reads them.
            let parts: Vec<Vec<f32>> = (0..3)
                .map(|p| rows_times(&attn_in, w_qkv, (p * d + k * dk, dk, d)))
                .collect();
            let qkv: Vec<f32> = (0..rows)
                .flat_map(|r| {
                    parts
                        .iter()
                        .flat_map(move |part| part[r * dk..(r + 1) * dk].to_vec())
                })
                .collect();
            let (mut out, mut probs) = (vec![0.0; rows * dk], vec![0.0; g.scores_len()]);
            attention_forward_cpu(&g, &qkv, &mut out, &mut probs);
            add_cols_times(&mut a, &out, &params[o.out..o.out + d * d], (k * dk, dk, d));
        }
        let h: Vec<f32> = x.iter().zip(&a).map(|(x, a)| x + a).collect();
        let mlp_in = o
            .ln2
            .map_or(h.clone(), |gamma| layer_norm(&h, params, (rows, d, gamma)));
        // The second allreduce sums every device's share of the MLP's output.
        let mut m = vec![0.0; rows * d];
        for k in 0..devices {
            let mut u = rows_times(&mlp_in, &params[o.w1..o.w1 + f * d], (k * fk, fk, d));
            for (i, z) in u.iter_mut().enumerate() {
                *z = Activation::Gelu.apply(*z + params[o.b1 + k * fk + i % fk]);
            }
            add_cols_times(&mut m, &u, &params[o.w2..o.w2 + d * f], (k * fk, fk, f));
        }
        x = (0..rows * d)
            .map(|i| h[i] + m[i] + params[o.b2 + i % d])
            .collect();
    }
    if let Some(gamma) = layout.ln_f {
        x = layer_norm(&x, params, (rows, d, gamma));
    }
    let table = &params[layout.table..layout.table + v * d];
    let mut loss = 0.0f64;
    for (s, y) in labels.iter().enumerate() {
        let last = &x[(s * t + t - 1) * d..(s * t + t) * d];
        let logits = rows_times(last, table, (0, v, d));
        let top = logits.iter().cloned().fold(f32::MIN, f32::max);
        let sum: f64 = logits.iter().map(|l| f64::from(l - top).exp()).sum();
        loss += sum.ln() - f64::from(logits[*y as usize] - top);
    }
    (loss / b as f64) as f32
}

/// What one device sends a block's forward pass over `devices` in a ring: two allreduces of the
/// block's output (s·b·d floats), each 2(t − 1)/t of it, 4 bytes a value.
pub fn sent_per_block(c: &TransformerConfig, devices: usize) -> f64 {
    let t = devices.max(1) as f64;
    2.0 * 2.0 * (t - 1.0) / t * (c.seq * c.batch * c.width) as f64 * 4.0
}
