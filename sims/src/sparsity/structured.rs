//! Structured pruning of an MLP (docs/theory.md §10.5): whole hidden neurons removed — a row of
//! the layer's weights, its bias, and the column of the next layer's weights that reads it — so
//! what remains is a smaller dense network, which dense kernels run at its smaller size. Neurons
//! are ranked by the L2 norm of their incoming weights (Li et al. 2017 rank filters so), and every
//! hidden layer keeps the same share of its neurons.

use engine::model::{Compiled, Layer};

/// A dense layer's place in the flat parameters: W (out × in, row-major) and b.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Dense {
    w_off: usize,
    b_off: usize,
    inputs: usize,
    outputs: usize,
}

fn dense_layers(compiled: &Compiled) -> Option<Vec<Dense>> {
    let layers: Vec<Dense> = (compiled.layers.iter())
        .filter(|l| l.w_len > 0)
        .map(|l| match l.layer {
            Layer::Dense { .. } => Some(Dense {
                w_off: l.w_off,
                b_off: l.b_off,
                inputs: l.in_len(),
                outputs: l.out_len(),
            }),
            _ => None,
        })
        .collect::<Option<_>>()?;
    (layers.len() >= 2).then_some(layers)
}

/// Weights (biases aside) of an MLP with these layer widths, input and output included.
pub fn weights_of(widths: &[usize]) -> usize {
    widths.windows(2).map(|w| w[0] * w[1]).sum()
}

/// The hidden widths that keep the same share q of every hidden layer's neurons (at least one
/// each), the largest q whose network has at most `(1 − sparsity)` of the weights; None for a
/// network that is not an MLP with hidden layers.
pub fn kept_widths(compiled: &Compiled, sparsity: f64) -> Option<Vec<usize>> {
    let layers = dense_layers(compiled)?;
    let mut widths: Vec<usize> = layers.iter().map(|l| l.inputs).collect();
    widths.push(layers.last()?.outputs);
    let budget = (1.0 - sparsity.clamp(0.0, 1.0)) * weights_of(&widths) as f64;
    let hidden = &widths[1..widths.len() - 1];
    let at = |q: f64| -> Vec<usize> {
        let mut w = widths.clone();
        for (k, h) in hidden.iter().enumerate() {
            w[k + 1] = ((*h as f64 * q).round() as usize).clamp(1, *h);
        }
        w
    };
    // The share, to a thousandth: the largest whose weights fit the budget.
    let q = (0..=1000)
        .rev()
        .map(|k| k as f64 / 1000.0)
        .find(|q| weights_of(&at(*q)) as f64 <= budget)
        .unwrap_or(0.0);
    Some(at(q))
}

/// The mask that removes every hidden neuron but each layer's `widths` strongest (by the L2 norm
/// of its incoming weights), with its bias and the next layer's weights that read it; and, for
/// each hidden layer, the neurons kept (in order). None for a network that is not an MLP.
pub fn neuron_mask(
    params: &[f32],
    compiled: &Compiled,
    widths: &[usize],
) -> Option<(Vec<f32>, Vec<Vec<usize>>)> {
    let layers = dense_layers(compiled)?;
    let mut mask = vec![1.0f32; params.len()];
    let mut kept_all = Vec::new();
    for (k, pair) in layers.windows(2).enumerate() {
        let (this, next) = (pair[0], pair[1]);
        let norm = |o: usize| {
            let row = &params[this.w_off + o * this.inputs..this.w_off + (o + 1) * this.inputs];
            row.iter().map(|w| w * w).sum::<f32>()
        };
        let mut order: Vec<usize> = (0..this.outputs).collect();
        order.sort_by(|&a, &b| norm(b).total_cmp(&norm(a)).then(a.cmp(&b)));
        let mut kept: Vec<usize> = order[..widths.get(k + 1).copied()?.min(this.outputs)].to_vec();
        kept.sort_unstable();
        for o in (0..this.outputs).filter(|o| kept.binary_search(o).is_err()) {
            mask[this.w_off + o * this.inputs..this.w_off + (o + 1) * this.inputs].fill(0.0);
            mask[this.b_off + o] = 0.0;
            for r in 0..next.outputs {
                mask[next.w_off + r * next.inputs + o] = 0.0;
            }
        }
        kept_all.push(kept);
    }
    Some((mask, kept_all))
}

/// The smaller network's flat parameters (same layout, smaller widths): the kept neurons' rows,
/// biases and the next layers' columns that read them, in order.
pub fn compact(params: &[f32], compiled: &Compiled, kept: &[Vec<usize>]) -> Option<Vec<f32>> {
    let layers = dense_layers(compiled)?;
    let mut out = Vec::new();
    for (k, l) in layers.iter().enumerate() {
        let rows: Vec<usize> = kept.get(k).cloned().unwrap_or_else(|| (0..l.outputs).collect());
        let cols: Vec<usize> = if k == 0 {
            (0..l.inputs).collect()
        } else {
            kept.get(k - 1)?.clone()
        };
        for &o in &rows {
            out.extend(cols.iter().map(|&j| params[l.w_off + o * l.inputs + j]));
        }
        out.extend(rows.iter().map(|&o| params[l.b_off + o]));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::model::ModelSpec;
    use engine::ops::activation::Activation;

    fn mlp(hidden: &[usize]) -> Compiled {
        ModelSpec::mlp(4, hidden, 2, Activation::Relu).compile().unwrap()
    }

    #[test]
    fn widths_keep_the_share_of_weights_asked() {
        // 4-10-2: 40 + 20 = 60 weights. Half: 30 = 6·h → h = 5.
        assert_eq!(kept_widths(&mlp(&[10]), 0.5), Some(vec![4, 5, 2]));
        // 87.5 %: 7.5 weights → h = 1 (6 weights).
        assert_eq!(kept_widths(&mlp(&[10]), 0.875), Some(vec![4, 1, 2]));
        assert_eq!(weights_of(&[784, 100, 10]), 79_400);
    }

    #[test]
    fn the_mask_removes_whole_neurons_and_the_compact_network_holds_the_rest() {
        let c = mlp(&[3]);
        // Layer 1: W 3×4 at 0, b at 12; layer 2: W 2×3 at 15, b at 21.
        let mut p: Vec<f32> = (0..c.n_params).map(|i| i as f32 / 10.0).collect();
        // Neuron 1 of 3 the weakest: its incoming row zero.
        p[4..8].fill(0.0);
        let (mask, kept) = neuron_mask(&p, &c, &[4, 2, 2]).unwrap();
        assert_eq!(kept, vec![vec![0, 2]]);
        let pruned: Vec<usize> = (0..c.n_params).filter(|i| mask[*i] == 0.0).collect();
        // Row 1 (4..8), its bias (13), and column 1 of the next layer (16, 19).
        assert_eq!(pruned, vec![4, 5, 6, 7, 13, 16, 19]);
        let small = compact(&p, &c, &kept).unwrap();
        assert_eq!(small.len(), mlp(&[2]).n_params);
        // Rows 0 and 2, biases 0 and 2, then the output's columns 0 and 2 and its biases.
        assert_eq!(small[..4], p[0..4]);
        assert_eq!(small[4..8], p[8..12]);
        assert_eq!(small[8..10], [p[12], p[14]]);
        assert_eq!(small[10..14], [p[15], p[17], p[18], p[20]]);
        assert_eq!(small[14..], p[21..23]);
    }
}
