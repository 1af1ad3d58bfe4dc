//! Structured pruning (docs/theory.md §10.5): whole units removed — a dense layer's hidden
//! neurons or a conv layer's filters (channel pruning) — with their incoming weights, their bias,
//! and the next weighted layer's weights that read them, so what remains is a smaller dense
//! network that dense kernels run at its smaller size. Units are ranked by the L2 norm of their
//! incoming weights (a magnitude criterion; Li et al. 2017 rank filters by the L1 norm), and every
//! pruned layer keeps the same share of its units.
//!
//! A weighted layer is read as W [units, channels, inner]: a dense layer's row per neuron, a conv
//! layer's filter per unit; `channels` are the units of the weighted layer before (the input's
//! channels, or inputs, for the first), and `inner` what each channel contributes: a conv's k × k
//! window, or the positions of a channel a dense layer reads after a flatten (1 after a dense
//! layer). Between two weighted layers only channel-wise layers may stand (activations, pooling,
//! flatten, dropout); a network with normalization or residual blocks is not pruned so.

use engine::model::{Compiled, Layer};
use engine::train::{ModelConfig, TrainConfig};

use super::masks::{self, Scope};

/// Why a network is not pruned so, as a message.
pub const STRUCTURED_NETWORKS: &str = "structured pruning removes an MLP's neurons or a CNN's filters: \
     dense and conv layers with activations, pooling, flatten or dropout between them";

/// A weighted layer's place in the flat parameters, read as W [units, channels, inner] and b.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Weighted {
    w_off: usize,
    b_off: usize,
    units: usize,
    channels: usize,
    inner: usize,
}

fn weighted_layers(compiled: &Compiled) -> Option<Vec<Weighted>> {
    let mut out: Vec<Weighted> = Vec::new();
    for l in &compiled.layers {
        let units = match l.layer {
            Layer::Dense { units } => units,
            Layer::Conv2d { filters, .. } => filters,
            Layer::Activation { .. } | Layer::Pool { .. } | Layer::Flatten | Layer::Dropout { .. } => {
                continue
            }
            _ => return None,
        };
        let channels = match (out.last(), &l.layer) {
            (Some(prev), _) => prev.units,
            (None, Layer::Conv2d { .. }) => l.in_shape[0],
            (None, _) => l.in_len(),
        };
        if units == 0 || channels == 0 || l.w_len % (units * channels) != 0 {
            return None;
        }
        out.push(Weighted {
            w_off: l.w_off,
            b_off: l.b_off,
            units,
            channels,
            inner: l.w_len / (units * channels),
        });
    }
    (out.len() >= 2).then_some(out)
}

/// Each weighted layer's units with the input's channels first: an MLP's widths ([784, 100, 10]),
/// a CNN's channels ([1, 8, 16, 10] for the benchmark's W2). None for a network this module does
/// not prune.
pub fn widths_of(compiled: &Compiled) -> Option<Vec<usize>> {
    let layers = weighted_layers(compiled)?;
    Some(
        std::iter::once(layers[0].channels)
            .chain(layers.iter().map(|l| l.units))
            .collect(),
    )
}

/// Weights (biases aside) of `compiled`'s network with these widths (`widths_of`'s form).
fn weights_with(layers: &[Weighted], widths: &[usize]) -> usize {
    (layers.iter().enumerate())
        .map(|(k, l)| widths[k] * widths[k + 1] * l.inner)
        .sum()
}

/// Weights (biases aside) of an MLP with these layer widths, input and output included.
pub fn weights_of(widths: &[usize]) -> usize {
    widths.windows(2).map(|w| w[0] * w[1]).sum()
}

/// The share of `compiled`'s weights a network with `widths` prunes.
pub fn sparsity_of(compiled: &Compiled, widths: &[usize]) -> Option<f64> {
    let layers = weighted_layers(compiled)?;
    let full = widths_of(compiled)?;
    Some(1.0 - weights_with(&layers, widths) as f64 / weights_with(&layers, &full) as f64)
}

/// The widths that keep the same share q of every pruned layer's units (all but the output
/// layer; at least one each), the largest q whose network has at most `(1 − sparsity)` of the
/// weights; None for a network this module does not prune.
pub fn kept_widths(compiled: &Compiled, sparsity: f64) -> Option<Vec<usize>> {
    let layers = weighted_layers(compiled)?;
    let widths = widths_of(compiled)?;
    let budget = (1.0 - sparsity.clamp(0.0, 1.0)) * weights_with(&layers, &widths) as f64;
    let last = widths.len() - 1;
    let at = |q: f64| -> Vec<usize> {
        let mut w = widths.clone();
        for k in 1..last {
            w[k] = ((widths[k] as f64 * q).round() as usize).clamp(1, widths[k]);
        }
        w
    };
    // The share, to a thousandth: the largest whose weights fit the budget.
    let q = (0..=1000)
        .rev()
        .map(|k| k as f64 / 1000.0)
        .find(|q| weights_with(&layers, &at(*q)) as f64 <= budget)
        .unwrap_or(0.0);
    Some(at(q))
}

/// The mask that removes every unit but each pruned layer's `widths` strongest (by the L2 norm of
/// its incoming weights), with its bias and the next layer's weights that read it; and, for each
/// pruned layer, the units kept (in order). None for a network this module does not prune.
pub fn unit_mask(
    params: &[f32],
    compiled: &Compiled,
    widths: &[usize],
) -> Option<(Vec<f32>, Vec<Vec<usize>>)> {
    let layers = weighted_layers(compiled)?;
    let mut mask = vec![1.0f32; params.len()];
    let mut kept_all = Vec::new();
    for (k, pair) in layers.windows(2).enumerate() {
        let (this, next) = (pair[0], pair[1]);
        let row = this.channels * this.inner;
        let norm = |u: usize| {
            let w = &params[this.w_off + u * row..this.w_off + (u + 1) * row];
            w.iter().map(|w| w * w).sum::<f32>()
        };
        let mut order: Vec<usize> = (0..this.units).collect();
        order.sort_by(|&a, &b| norm(b).total_cmp(&norm(a)).then(a.cmp(&b)));
        let mut kept: Vec<usize> = order[..widths.get(k + 1).copied()?.min(this.units)].to_vec();
        kept.sort_unstable();
        let next_row = next.channels * next.inner;
        for u in (0..this.units).filter(|u| kept.binary_search(u).is_err()) {
            mask[this.w_off + u * row..this.w_off + (u + 1) * row].fill(0.0);
            mask[this.b_off + u] = 0.0;
            for r in 0..next.units {
                let at = next.w_off + r * next_row + u * next.inner;
                mask[at..at + next.inner].fill(0.0);
            }
        }
        kept_all.push(kept);
    }
    Some((mask, kept_all))
}

/// The smaller network's flat parameters (same layout, smaller widths): the kept units' weights,
/// biases and the next layers' channels that read them, in order.
pub fn compact(params: &[f32], compiled: &Compiled, kept: &[Vec<usize>]) -> Option<Vec<f32>> {
    let layers = weighted_layers(compiled)?;
    let mut out = Vec::new();
    for (k, l) in layers.iter().enumerate() {
        let rows: Vec<usize> = kept.get(k).cloned().unwrap_or_else(|| (0..l.units).collect());
        let channels: Vec<usize> = if k == 0 {
            (0..l.channels).collect()
        } else {
            kept.get(k - 1)?.clone()
        };
        for &u in &rows {
            let row = l.w_off + u * l.channels * l.inner;
            for &c in &channels {
                out.extend_from_slice(params.get(row + c * l.inner..row + (c + 1) * l.inner)?);
            }
        }
        out.extend(rows.iter().map(|&u| params[l.b_off + u]));
    }
    Some(out)
}

/// The model with these widths (`widths_of`'s form): each pruned layer's units or filters set to
/// its width. None where the widths do not fit the model's weighted layers.
pub fn smaller_model(model: &ModelConfig, widths: &[usize]) -> Option<ModelConfig> {
    match model {
        ModelConfig::Mlp { hidden, activation } => {
            (widths.len() == hidden.len() + 2).then(|| ModelConfig::Mlp {
                hidden: widths[1..widths.len() - 1].to_vec(),
                activation: *activation,
            })
        }
        ModelConfig::Layers { layers } => {
            let mut k = 0;
            let mut out = layers.clone();
            for layer in out.iter_mut() {
                let units = match layer {
                    Layer::Dense { units } => units,
                    Layer::Conv2d { filters, .. } => filters,
                    _ => continue,
                };
                k += 1;
                *units = *widths.get(k)?;
            }
            (k + 1 == widths.len()).then_some(ModelConfig::Layers { layers: out })
        }
    }
}

/// The trained network pruned both ways at one sparsity: unstructured (its smallest weights,
/// one global threshold) and structured (whole units, as many as keep about as many weights).
pub struct PrunedBoth {
    pub unstructured: Vec<f32>,
    pub units: Vec<f32>,
    pub widths: Vec<usize>,
    /// Each pruned layer's units kept (`compact` takes them).
    pub kept: Vec<Vec<usize>>,
}

pub fn prune_both(trained: &[f32], compiled: &Compiled, sparsity: f64) -> Option<PrunedBoth> {
    let widths = kept_widths(compiled, sparsity)?;
    let (units, kept) = unit_mask(trained, compiled, &widths)?;
    let spans = masks::weight_spans(compiled);
    let dense = masks::dense(trained.len());
    let unstructured = masks::magnitude(trained, &dense, &spans, sparsity, Scope::Global);
    Some(PrunedBoth {
        unstructured,
        units,
        widths,
        kept,
    })
}

/// The config of the smaller network (unmasked) and its compiled layers.
pub fn smaller_config(
    config: &TrainConfig,
    compiled: &Compiled,
    widths: &[usize],
) -> Option<(TrainConfig, Compiled)> {
    let classes = compiled.layers.last()?.out_len();
    let config = TrainConfig {
        model: smaller_model(&config.model, widths)?,
        masked: false,
        ..config.clone()
    };
    let compiled = config.spec(classes).compile().ok()?;
    Some((config, compiled))
}

/// How a network with these widths reads in a table: an MLP's hidden widths ("50-25"), a CNN's
/// kept filters ("conv 4, conv 8"); `convs` is its number of conv layers.
pub fn describe(convs: usize, widths: &[usize]) -> String {
    let hidden = &widths[1..widths.len().saturating_sub(1)];
    if convs == 0 {
        return hidden.iter().map(|w| w.to_string()).collect::<Vec<_>>().join("-");
    }
    (hidden.iter().enumerate())
        .map(|(k, w)| {
            if k < convs {
                format!("conv {w}")
            } else {
                format!("dense {w}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
#[path = "structured_tests.rs"]
mod tests;
