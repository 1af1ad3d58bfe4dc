//! Dynamic sparse training (docs/theory.md §10.4): a sparse network trained from the start at a
//! fixed budget of weights, its mask changed as it trains. Every so often each layer drops the
//! share of its active weights with the smallest |w| and grows as many new ones among those that
//! were inactive: at random in SET (Mocanu et al. 2018), where the loss's gradient is largest in
//! RigL (Evci et al. 2020). A grown weight starts at zero (RigL's choice; here SET's too, so the
//! two differ only in where they grow).

use std::ops::Range;

use engine::rng::Rng;
use serde::{Deserialize, Serialize};

/// Where new weights grow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grow {
    /// Uniformly at random among the inactive weights (SET).
    Random,
    /// The inactive weights of largest |gradient| (RigL).
    Gradient,
}

/// When the mask changes in a run of `steps`: every tenth of the run (`.0` steps), until three
/// quarters through (`.1`), the shape of RigL's schedule (Evci et al. 2020 update every 100 steps
/// of runs tens of thousands long; the lab's runs are hundreds).
pub fn schedule(steps: u64) -> (u64, u64) {
    ((steps / 10).max(1), steps * 3 / 4)
}

/// The share of active weights an update at `step` drops: RigL's cosine decay from `start` to 0
/// at `end` (no updates from `end` on).
pub fn drop_fraction(start: f64, step: u64, end: u64) -> f64 {
    if step >= end || end == 0 {
        return 0.0;
    }
    start * 0.5 * (1.0 + (std::f64::consts::PI * step as f64 / end as f64).cos())
}

/// One mask update: in every span, the `fraction` of its active weights of smallest |w| dropped,
/// and as many grown among the weights inactive before the update (`grads`: by largest |g|;
/// None: at random from `rng`). Every span keeps its count of active weights.
pub fn update(
    params: &[f32],
    grads: Option<&[f32]>,
    mask: &[f32],
    spans: &[Range<usize>],
    fraction: f64,
    rng: &mut Rng,
) -> Vec<f32> {
    let mut out = mask.to_vec();
    for r in spans {
        let mut active: Vec<usize> = r.clone().filter(|&i| mask[i] != 0.0).collect();
        let mut inactive: Vec<usize> = r.clone().filter(|&i| mask[i] == 0.0).collect();
        let k = ((active.len() as f64 * fraction.clamp(0.0, 1.0)).round() as usize).min(inactive.len());
        if k == 0 {
            continue;
        }
        active.sort_by(|&a, &b| params[a].abs().total_cmp(&params[b].abs()).then(a.cmp(&b)));
        for &i in &active[..k] {
            out[i] = 0.0;
        }
        match grads {
            Some(g) => inactive.sort_by(|&a, &b| g[b].abs().total_cmp(&g[a].abs()).then(a.cmp(&b))),
            None => rng.shuffle(&mut inactive),
        }
        for &i in &inactive[..k] {
            out[i] = 1.0;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_update_drops_the_smallest_and_grows_where_the_gradient_is_largest() {
        // One layer of 8: active 0..4, inactive 4..8.
        let mask = [1., 1., 1., 1., 0., 0., 0., 0.];
        let w = [0.5, -0.1, 2.0, 0.05, 0., 0., 0., 0.];
        let g = [9., 9., 9., 9., 0.1, -3.0, 0.2, 2.0];
        let m = update(
            &w,
            Some(&g),
            &mask,
            std::slice::from_ref(&(0..8)),
            0.5,
            &mut Rng::new(1),
        );
        // By hand: drop the two smallest |w| (3: 0.05, 1: 0.1); grow the two largest |g| among
        // 4..8 (5: 3.0, 7: 2.0).
        assert_eq!(m, [1., 0., 1., 0., 0., 1., 0., 1.]);
        let set = update(
            &w,
            None,
            &mask,
            std::slice::from_ref(&(0..8)),
            0.5,
            &mut Rng::new(1),
        );
        assert_eq!(set.iter().filter(|v| **v != 0.0).count(), 4, "the budget is kept");
        assert_eq!((set[1], set[3]), (0.0, 0.0), "SET drops by magnitude too");
        assert_eq!(&set[..4], &[1., 0., 1., 0.]);
    }

    #[test]
    fn the_drop_fraction_decays_to_zero_by_the_end() {
        assert_eq!(drop_fraction(0.3, 0, 100), 0.3);
        assert!((drop_fraction(0.3, 50, 100) - 0.15).abs() < 1e-12);
        assert_eq!(drop_fraction(0.3, 100, 100), 0.0);
    }
}
