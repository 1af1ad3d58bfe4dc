//! The gradient noise scale B_simple (McCandlish et al. 2018; docs/theory.md §5.3): estimates of
//! |G|² and tr Σ from gradients at two batch sizes, averaged over a window, then divided.

use engine::error::Error;
use serde::{Deserialize, Serialize};

use engine::train::Trainer;

/// The gradient noise scale from pairs of squared gradient norms at a small and a big batch
/// (McCandlish et al. 2018, appendix A; docs/theory.md §5.3): each measurement gives unbiased
/// estimates |G|² ≈ (B_big|G_big|² − B_small|G_small|²)/(B_big − B_small) and
/// tr Σ ≈ (|G_small|² − |G_big|²)/(1/B_small − 1/B_big). Each is noisy (|G|² can even come out
/// negative), so both are averaged over the last `window` measurements *before* the ratio
/// B_simple = tr Σ / |G|², as McCandlish et al. do; the raw per-measurement ratios are kept too.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NoiseScale {
    pub window: usize,
    /// Every measurement: (step, |G|² estimate, tr Σ estimate).
    pub raw: Vec<(usize, f64, f64)>,
}

impl NoiseScale {
    pub fn new(window: usize) -> Self {
        Self {
            window: window.max(1),
            raw: Vec::new(),
        }
    }

    /// Adds the measurement taken at `step`: squared norms of the mean gradient over `b_small`
    /// and over `b_big` samples.
    pub fn add(&mut self, step: usize, b_small: usize, g2_small: f64, b_big: usize, g2_big: f64) {
        let (bs, bb) = (b_small as f64, b_big as f64);
        let g2 = (bb * g2_big - bs * g2_small) / (bb - bs);
        let trace = (g2_small - g2_big) / (1.0 / bs - 1.0 / bb);
        self.raw.push((step, g2, trace));
    }

    /// B_simple from the window's mean tr Σ over its mean |G|², once that mean is positive.
    pub fn b_simple(&self) -> Option<f64> {
        let last = &self.raw[self.raw.len().saturating_sub(self.window)..];
        let (g2, trace) = last
            .iter()
            .fold((0.0, 0.0), |(g, t), (_, g2, tr)| (g + g2, t + tr));
        (g2 > 0.0).then(|| trace / g2)
    }
}

/// The ratio of one measurement alone (None where its |G|² estimate is not positive).
pub fn raw_b_simple((_, g2, trace): (usize, f64, f64)) -> Option<f64> {
    (g2 > 0.0).then(|| trace / g2)
}

/// Measurements B_simple is averaged over in a sweep's runs.
pub const NOISE_WINDOW: usize = 8;

fn norm2(v: &[f32]) -> f64 {
    v.iter().map(|x| (*x as f64) * (*x as f64)).sum()
}

/// One measurement for [`NoiseScale::add`] at the trainer's current weights: `k` gradients over
/// the next `k` batches (B_small = the batch size) and their mean, which is the gradient over all
/// k·B samples (B_big). Returns (B_small, mean |G_small|² over the k batches, B_big, |G_big|²).
/// The weights do not move; the batch sampler advances.
pub async fn measure_noise(trainer: &mut Trainer, k: usize) -> Result<(usize, f64, usize, f64), Error> {
    let k = k.max(2);
    let b = trainer.config.batch;
    let mut sum: Vec<f32> = Vec::new();
    let mut small = 0.0;
    for _ in 0..k {
        let rows = trainer.next_batch_rows();
        let (_, g) = trainer.loss_and_gradient(&rows).await?;
        small += norm2(&g);
        if sum.is_empty() {
            sum = g;
        } else {
            sum.iter_mut().zip(&g).for_each(|(s, x)| *s += x);
        }
    }
    let mean: Vec<f32> = sum.iter().map(|s| s / k as f32).collect();
    Ok((b, small / k as f64, k * b, norm2(&mean)))
}
