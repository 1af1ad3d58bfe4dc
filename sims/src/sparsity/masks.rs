//! Pruning masks over a network's flat parameters (docs/theory.md §10.1): one value per
//! parameter, 1 kept and 0 pruned. Only the weights of layers with weights are pruned; biases
//! and normalization parameters are always kept (they are few, and the papers keep them too).

use std::ops::Range;

use engine::model::{Compiled, Layer};
use engine::rng::Rng;
use serde::{Deserialize, Serialize};

/// Whether one threshold ranks all layers' weights together or each layer keeps its own share.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Smallest magnitudes across the whole network (Han et al. 2015's global variant):
    /// layers with many small weights lose more.
    #[default]
    Global,
    /// The same share from every layer (Frankle & Carbin 2019's layer-wise pruning).
    PerLayer,
}

/// The weight spans (not biases) of every layer with weights, input layer first.
pub fn weight_spans(compiled: &Compiled) -> Vec<Range<usize>> {
    (compiled.layers.iter())
        .filter(|l| l.w_len > 0 && matches!(l.layer, Layer::Dense { .. } | Layer::Conv2d { .. }))
        .map(|l| l.w_off..l.w_off + l.w_len)
        .collect()
}

/// Every parameter kept.
pub fn dense(n: usize) -> Vec<f32> {
    vec![1.0; n]
}

/// The share of each span's weights pruned, and of all spans' together.
pub fn sparsity(mask: &[f32], spans: &[Range<usize>]) -> (Vec<f64>, f64) {
    let pruned = |r: &Range<usize>| mask[r.clone()].iter().filter(|m| **m == 0.0).count();
    let per: Vec<f64> = spans
        .iter()
        .map(|r| pruned(r) as f64 / r.len().max(1) as f64)
        .collect();
    let total: usize = spans.iter().map(|r| r.len()).sum();
    let all: usize = spans.iter().map(pruned).sum();
    (per, all as f64 / total.max(1) as f64)
}

/// Weights to keep out of `len` at `sparsity` (rounded to the nearest weight).
fn kept_of(len: usize, sparsity: f64) -> usize {
    len - ((len as f64 * sparsity.clamp(0.0, 1.0)).round() as usize).min(len)
}

/// Prunes by magnitude to `sparsity` of the weights (the share pruned, from 0 to 1): among the
/// weights `mask` keeps, the largest |w| survive; what `mask` pruned stays pruned (iterative
/// pruning never revives a weight). Ties break toward the lower index, so the count is exact.
pub fn magnitude(
    params: &[f32],
    mask: &[f32],
    spans: &[Range<usize>],
    sparsity: f64,
    scope: Scope,
) -> Vec<f32> {
    let mut out = mask.to_vec();
    let groups: Vec<Vec<Range<usize>>> = match scope {
        Scope::Global => vec![spans.to_vec()],
        Scope::PerLayer => spans.iter().map(|r| vec![r.clone()]).collect(),
    };
    for group in groups {
        let len: usize = group.iter().map(|r| r.len()).sum();
        let keep = kept_of(len, sparsity);
        let mut alive: Vec<usize> = group
            .iter()
            .flat_map(|r| r.clone())
            .filter(|&i| mask[i] != 0.0)
            .collect();
        alive.sort_by(|&a, &b| params[b].abs().total_cmp(&params[a].abs()).then(a.cmp(&b)));
        for &i in alive.iter().skip(keep) {
            out[i] = 0.0;
        }
    }
    out
}

/// A mask with as many weights kept in each span as `like` keeps there, at random places.
pub fn random_like(like: &[f32], spans: &[Range<usize>], seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    let mut out = like.to_vec();
    for r in spans {
        let keep = like[r.clone()].iter().filter(|m| **m != 0.0).count();
        let mut idx: Vec<usize> = r.clone().collect();
        rng.shuffle(&mut idx);
        for (k, &i) in idx.iter().enumerate() {
            out[i] = if k < keep { 1.0 } else { 0.0 };
        }
    }
    out
}

/// `params` with the pruned ones zeroed.
pub fn apply(params: &[f32], mask: &[f32]) -> Vec<f32> {
    params.iter().zip(mask).map(|(w, m)| w * m).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magnitude_keeps_the_largest_and_counts_exactly() {
        // Two "layers": [0..4) and [4..10).
        let spans = vec![0..4, 4..10];
        let w = [0.1, -5.0, 0.3, 2.0, 0.01, 0.02, -0.03, 4.0, 0.05, -0.06];
        let m = magnitude(&w, &dense(10), &spans, 0.5, Scope::Global);
        // Hand count: 5 of 10 kept, the 5 largest |w|: 5.0, 4.0, 2.0, 0.3, 0.1.
        assert_eq!(m, [1., 1., 1., 1., 0., 0., 0., 1., 0., 0.]);
        let m = magnitude(&w, &dense(10), &spans, 0.5, Scope::PerLayer);
        // 2 of 4: 5.0, 2.0; 3 of 6: 4.0, 0.06, 0.05.
        assert_eq!(m, [0., 1., 0., 1., 0., 0., 0., 1., 1., 1.]);
        let (per, all) = sparsity(&m, &spans);
        assert_eq!((per, all), (vec![0.5, 0.5], 0.5));
    }

    #[test]
    fn iterative_pruning_never_revives_a_weight() {
        let spans = std::slice::from_ref(&(0..6));
        let first = magnitude(&[3., 2., 1., 0., 0., 0.], &dense(6), spans, 0.5, Scope::Global);
        // The weights moved: 5 and 6 are now large, but were pruned.
        let second = magnitude(&[3., 2., 1., 9., 9., 9.], &first, spans, 2.0 / 3.0, Scope::Global);
        assert_eq!(second, [1., 1., 0., 0., 0., 0.]);
    }

    #[test]
    fn a_random_mask_keeps_each_layers_count() {
        let spans = vec![0..100, 100..130];
        let w: Vec<f32> = (0..130).map(|i| (i as f32).sin()).collect();
        let m = magnitude(&w, &dense(130), &spans, 0.8, Scope::Global);
        let r = random_like(&m, &spans, 7);
        for s in &spans {
            let count = |m: &[f32]| m[s.clone()].iter().filter(|v| **v != 0.0).count();
            assert_eq!(count(&m), count(&r));
        }
        assert_ne!(m, r);
    }
}
