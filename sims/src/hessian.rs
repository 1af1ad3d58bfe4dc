//! The sharpest direction of a minimum: the top eigenvalue of the loss's Hessian (docs/theory.md
//! §4.5), by power iteration on Hessian-vector products. A product H·v is the central difference
//! of two gradients, (∇L(w + εv) − ∇L(w − εv)) / 2ε, so it needs nothing but the backward pass the
//! trainer already has; it is exact for a quadratic loss, up to rounding.

use std::rc::Rc;

use engine::data::Dataset;
use engine::error::Error;
use engine::gpu::GpuContext;
use engine::rng::Rng;
use engine::train::{TrainConfig, Trainer};

/// Power iteration driven from outside: read [`PowerIteration::vector`], compute H·v for it, and
/// [`PowerIteration::feed`] the product back, until `feed` answers true. The estimate is the
/// Rayleigh quotient vᵀHv of the current unit vector, which converges to the eigenvalue of largest
/// magnitude (at a minimum, where H is close to positive semi-definite, the largest one).
pub struct PowerIteration {
    v: Vec<f32>,
    /// The latest Rayleigh quotient (NaN before the first product).
    pub estimate: f32,
    pub iterations: usize,
    max_iterations: usize,
    tolerance: f32,
}

impl PowerIteration {
    /// Starts from a seeded random unit vector of `n` values; stops after `max_iterations`
    /// products, or once two estimates differ by at most `tolerance` of their size.
    pub fn new(n: usize, seed: u64, max_iterations: usize, tolerance: f32) -> Self {
        let mut rng = Rng::new(seed);
        let mut v: Vec<f32> = (0..n).map(|_| rng.normal()).collect();
        normalize(&mut v);
        Self {
            v,
            estimate: f32::NAN,
            iterations: 0,
            max_iterations: max_iterations.max(1),
            tolerance,
        }
    }

    /// The unit vector whose product with H is wanted next.
    pub fn vector(&self) -> &[f32] {
        &self.v
    }

    /// Takes H·v for the current vector; true when done.
    pub fn feed(&mut self, hv: &[f32]) -> bool {
        let rayleigh = dot(&self.v, hv) as f32;
        let previous = self.estimate;
        self.estimate = rayleigh;
        self.iterations += 1;
        self.v.copy_from_slice(hv);
        if normalize(&mut self.v) == 0.0 {
            // H·v = 0: v lies in the null space, and the estimate 0 is exact for it.
            return true;
        }
        let settled = (rayleigh - previous).abs() <= self.tolerance * rayleigh.abs();
        settled || self.iterations >= self.max_iterations
    }
}

fn dot(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum()
}

/// Scales `v` to unit length; its former length.
fn normalize(v: &mut [f32]) -> f64 {
    let n = dot(v, v).sqrt();
    if n > 0.0 {
        for x in v.iter_mut() {
            *x = (*x as f64 / n) as f32;
        }
    }
    n
}

/// What [`top_eigenvalue`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct HessianTop {
    /// λ_max, in loss units per squared weight unit.
    pub eigenvalue: f32,
    /// The products computed (each two gradients over the samples).
    pub iterations: usize,
    /// Training samples the loss was averaged over.
    pub samples: usize,
}

/// Power-iteration limits the labs use: enough for the estimate to settle to 0.1 % on the
/// networks they train.
pub const HESSIAN_ITERATIONS: usize = 30;
pub const HESSIAN_TOLERANCE: f32 = 1e-3;

/// The top eigenvalue of the Hessian of the mean training loss over the trainer's first training
/// samples — `rows` of them rounded down to whole batches (at least one batch, taken cyclically
/// from a smaller set) — at its current weights, which are left as they were. Regularization is
/// not part of the loss here, as in the landscape's slices. `between` is awaited after each
/// product (a page paints there).
pub async fn top_eigenvalue<F: std::future::Future<Output = ()>>(
    trainer: &mut Trainer,
    rows: usize,
    seed: u64,
    (max_iterations, tolerance): (usize, f32),
    mut between: impl FnMut() -> F,
) -> Result<HessianTop, Error> {
    let w = trainer.params().await?;
    let batch = trainer.config.batch.max(1);
    let n = trainer.data.len().max(1);
    let samples = (rows.min(n) / batch).max(1) * batch;
    let order: Vec<u32> = (0..samples).map(|i| (i % n) as u32).collect();
    // The step in ε is relative to the weights, large enough to stand above f32 rounding in the
    // gradients' difference and small enough for the curvature to be local.
    let eps = 1e-3 * (dot(&w, &w).sqrt() as f32).max(1.0);
    let mut power = PowerIteration::new(w.len(), seed, max_iterations, tolerance);
    let result = async {
        loop {
            let v = power.vector().to_vec();
            let plus = mean_gradient(trainer, &shifted(&w, &v, eps), &order, batch).await?;
            let minus = mean_gradient(trainer, &shifted(&w, &v, -eps), &order, batch).await?;
            let hv: Vec<f32> = plus
                .iter()
                .zip(&minus)
                .map(|(p, m)| ((*p as f64 - *m as f64) / (2.0 * eps as f64)) as f32)
                .collect();
            if power.feed(&hv) {
                return Ok::<_, Error>(());
            }
            between().await;
        }
    }
    .await;
    trainer.set_params(&w)?;
    result?;
    Ok(HessianTop {
        eigenvalue: power.estimate,
        iterations: power.iterations,
        samples,
    })
}

/// [`top_eigenvalue`] over every sample of `data` at `weights`, by a trainer of its own whose
/// batch is the whole of `data`: every sample counts once whatever batch the run trained with (so
/// runs with different batches are measured on the same loss), and each gradient is one pass.
pub async fn top_eigenvalue_over<F: std::future::Future<Output = ()>>(
    config: &TrainConfig,
    data: &Dataset,
    weights: &[f32],
    gpu: Option<Rc<GpuContext>>,
    seed: u64,
    between: impl FnMut() -> F,
) -> Result<HessianTop, Error> {
    let config = TrainConfig {
        batch: data.len(),
        ..config.clone()
    };
    let mut trainer = Trainer::with_data(config, data.clone(), gpu, 1).await?;
    trainer.set_params(weights)?;
    top_eigenvalue(
        &mut trainer,
        data.len(),
        seed,
        (HESSIAN_ITERATIONS, HESSIAN_TOLERANCE),
        between,
    )
    .await
}

fn shifted(w: &[f32], v: &[f32], eps: f32) -> Vec<f32> {
    w.iter().zip(v).map(|(a, b)| a + eps * b).collect()
}

/// The gradient of the mean loss over `order`'s samples (whole batches) at `weights`.
async fn mean_gradient(
    trainer: &mut Trainer,
    weights: &[f32],
    order: &[u32],
    batch: usize,
) -> Result<Vec<f32>, Error> {
    trainer.set_params(weights)?;
    let mut sum = vec![0.0f64; weights.len()];
    let mut g = Vec::new();
    for rows in order.chunks(batch) {
        trainer.loss_and_gradient_into(rows, &mut g).await?;
        for (s, x) in sum.iter_mut().zip(&g) {
            *s += *x as f64;
        }
    }
    let batches = (order.len() / batch).max(1) as f64;
    Ok(sum.into_iter().map(|s| (s / batches) as f32).collect())
}
