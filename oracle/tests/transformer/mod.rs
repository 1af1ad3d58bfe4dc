//! The transformer's gradient (`engine::transformer`) against burn's autodiff through burn's
//! own tensor ops: the embeddings as one-hot products, causal multi-head attention (QKᵀ/√d, the
//! future masked, softmax, ·V), GELU in its tanh form, the residuals, layer norms, the tied head
//! at the last position and the mean cross-entropy — the loss and every parameter's gradient of
//! one batch, with and without layer norm, on the CPU path and on lavapipe.

use burn::tensor::activation::{log_softmax, softmax};
use burn::tensor::{Device, Tensor, TensorData};
use engine::ops::norm::NORM_EPS;
use engine::optim::Optimizer;
use engine::transformer::{Layout, TinyTransformer, TransformerConfig};

type Leaf = (usize, Tensor<1>);

/// burn's loss and gradient for `ids` (B × T tokens) and `labels` at `params`.
fn burn_gradient(
    c: &TransformerConfig,
    layout: &Layout,
    params: &[f32],
    ids: &[usize],
    labels: &[usize],
) -> (f32, Vec<f32>) {
    let device = Device::flex().autodiff();
    let (b, t, d, f, v, heads) = (c.batch, c.seq, c.width, c.hidden, c.vocab, c.heads);
    let (rows, hd) = (b * t, c.head_dim());
    let leaves: std::cell::RefCell<Vec<Leaf>> = Default::default();
    let leaf = |off: usize, len: usize| {
        let x = Tensor::<1>::from_data(TensorData::new(params[off..off + len].to_vec(), [len]), &device)
            .require_grad();
        leaves.borrow_mut().push((off, x.clone()));
        x
    };
    let constant =
        |values: Vec<f32>, shape: [usize; 2]| Tensor::<2>::from_data(TensorData::new(values, shape), &device);
    // Each row's token and position as one-hot rows, so the lookups are products.
    let mut token = vec![0.0; rows * v];
    let mut position = vec![0.0; rows * t];
    for (r, id) in ids.iter().enumerate() {
        token[r * v + id] = 1.0;
        position[r * t + r % t] = 1.0;
    }
    let table: Tensor<2> = leaf(layout.table, v * d).reshape([v, d]);
    let pos: Tensor<2> = leaf(layout.pos, t * d).reshape([t, d]);
    let mut x = constant(token, [rows, v]).matmul(table.clone()) + constant(position, [rows, t]).matmul(pos);
    // The causal mask: a large negative score where a key comes after its query.
    let mut mask = vec![0.0; t * t];
    for q in 0..t {
        for k in q + 1..t {
            mask[q * t + k] = -1e9;
        }
    }
    let mask = Tensor::<2>::from_data(TensorData::new(mask, [t, t]), &device).reshape([1, 1, t, t]);
    let norm = |x: Tensor<2>, gamma: usize| {
        let (g, be) = (leaf(gamma, d), leaf(gamma + d, d));
        let centred = x.clone() - x.mean_dim(1);
        let var = (centred.clone() * centred.clone()).mean_dim(1);
        centred / (var + NORM_EPS).sqrt() * g.reshape([1, d]) + be.reshape([1, d])
    };
    for o in &layout.blocks {
        let attn_in = o.ln1.map_or(x.clone(), |g| norm(x.clone(), g));
        let w_qkv: Tensor<2> = leaf(o.qkv, 3 * d * d).reshape([3 * d, d]);
        let qkv = attn_in.matmul(w_qkv.transpose());
        let split = |part: usize| -> Tensor<4> {
            qkv.clone()
                .slice([0..rows, part * d..(part + 1) * d])
                .reshape([b, t, heads, hd])
                .swap_dims(1, 2)
        };
        let (q, k, vv) = (split(0), split(1), split(2));
        let scores = q.matmul(k.swap_dims(2, 3)) / (hd as f32).sqrt() + mask.clone();
        let o_heads = softmax(scores, 3).matmul(vv).swap_dims(1, 2).reshape([rows, d]);
        let w_out: Tensor<2> = leaf(o.out, d * d).reshape([d, d]);
        let h = x + o_heads.matmul(w_out.transpose());
        let mlp_in = o.ln2.map_or(h.clone(), |g| norm(h.clone(), g));
        let w1: Tensor<2> = leaf(o.w1, f * d).reshape([f, d]);
        let b1 = leaf(o.b1, f).reshape([1, f]);
        let u = mlp_in.matmul(w1.transpose()) + b1;
        // GELU, tanh form: ½u(1 + tanh(√(2/π)(u + 0.044715u³))).
        let inner =
            (u.clone() + u.clone() * u.clone() * u.clone() * 0.044715) * (2.0 / std::f32::consts::PI).sqrt();
        let gelu = u * (inner.tanh() + 1.0) * 0.5;
        let w2: Tensor<2> = leaf(o.w2, d * f).reshape([d, f]);
        let b2 = leaf(o.b2, d).reshape([1, d]);
        x = h + gelu.matmul(w2.transpose()) + b2;
    }
    if let Some(g) = layout.ln_f {
        x = norm(x, g);
    }
    let last: Tensor<2> = x.reshape([b, t, d]).slice([0..b, t - 1..t, 0..d]).reshape([b, d]);
    let logits = last.matmul(table.transpose());
    let mut onehot = vec![0.0; b * v];
    for (r, y) in labels.iter().enumerate() {
        onehot[r * v + y] = 1.0;
    }
    let loss = (log_softmax(logits, 1) * constant(onehot, [b, v])).sum().neg() / b as f32;
    let value = loss.clone().into_data().try_to_vec::<f32>().unwrap()[0];
    let grads = loss.backward();
    // One leaf a tensor: the table's gradient sums its two uses, the embedding and the head.
    let mut g = vec![0.0f32; params.len()];
    for (off, leaf) in leaves.borrow().iter() {
        let values = leaf
            .grad(&grads)
            .expect("a gradient")
            .into_data()
            .try_to_vec::<f32>()
            .unwrap();
        g[*off..*off + values.len()].copy_from_slice(&values);
    }
    (value, g)
}

#[test]
fn a_transformers_gradient_matches_burn() {
    for layer_norm in [false, true] {
        let c = TransformerConfig {
            vocab: 7,
            seq: 4,
            width: 8,
            heads: 2,
            hidden: 16,
            blocks: 2,
            batch: 3,
            layer_norm,
        };
        let mut r = engine::rng::Rng::new(5);
        let ids: Vec<usize> = (0..c.batch * c.seq).map(|_| r.below(c.vocab)).collect();
        let labels: Vec<usize> = (0..c.batch).map(|_| r.below(c.vocab)).collect();
        let set = engine::data::Dataset {
            x: ids.iter().map(|t| *t as f32).collect(),
            y: labels.iter().map(|y| *y as u32).collect(),
            dim: c.seq,
            classes: c.vocab,
            targets: Vec::new(),
        };
        for gpu in [false, true] {
            let ctx = gpu
                .then(|| std::rc::Rc::new(pollster::block_on(engine::gpu::GpuContext::new()).expect("GPU")));
            let mut t = pollster::block_on(TinyTransformer::new(c, Optimizer::adam(), 7, ctx)).unwrap();
            let params = pollster::block_on(t.params()).unwrap();
            let (loss, grads) = pollster::block_on(t.loss_and_gradient(&set, &[0, 1, 2])).unwrap();
            let (b_loss, b_grads) = burn_gradient(&c, &t.layout, &params, &ids, &labels);
            let what = format!("transformer (layer norm {layer_norm}, GPU {gpu})");
            assert!(
                (loss - b_loss).abs() <= 1e-4 * b_loss.abs(),
                "{what} loss: engine {loss} vs burn {b_loss}"
            );
            super::compare(&format!("{what} gradient"), &grads, &b_grads, &[]);
            eprintln!(
                "{what}: loss {loss} (burn {b_loss}); {} gradients agree",
                params.len()
            );
        }
    }
}
