//! The loss landscape of a trained network (docs/theory.md §4): 1-D interpolation between two weight
//! vectors (Goodfellow et al. 2015), 2-D slices along filter-normalized random directions (Li et
//! al. 2018), the PCA plane of a training trajectory, and a sharpness number. Losses are evaluated
//! on the device by the trainer's evaluation plan (`Trainer::plane_losses`): the weights of each
//! point computed there from a plane, the training forward pass, a row of points per readback.

use engine::data::Dataset;
use engine::error::Error;
use engine::model::{Compiled, Layer};
use engine::plan::LOG_CAPACITY;
use engine::rng::Rng;
use engine::train::Trainer;

/// A random Gaussian direction in weight space, filter-normalized: each filter of `d` (a dense
/// layer's row — one output neuron's weights — or a conv filter) is rescaled to the norm of the
/// same filter of `weights`; biases are zero in `d`.
pub fn filter_normalized_direction(model: &Compiled, weights: &[f32], seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    let mut d = vec![0.0f32; model.n_params];
    for l in model.layers.iter().filter(|l| l.has_params()) {
        // Every filter of a dense, conv or projection layer; normalization layers' γ and β stay
        // out of the directions, as Li et al. leave batch norm's parameters out.
        let filters = match l.layer {
            Layer::Dense { units } => units,
            Layer::Conv2d { filters, .. } => filters,
            Layer::SkipAdd { .. } => l.out_shape[0],
            _ => continue,
        };
        let per = (l.b_off - l.w_off) / filters;
        for f in 0..filters {
            let r = l.w_off + f * per..l.w_off + (f + 1) * per;
            for v in &mut d[r.clone()] {
                *v = rng.normal();
            }
            let wn = norm(&weights[r.clone()]);
            let dn = norm(&d[r.clone()]).max(1e-12);
            for v in &mut d[r] {
                *v *= wn / dn;
            }
        }
    }
    d
}

fn norm(v: &[f32]) -> f32 {
    v.iter().map(|x| (*x as f64) * (*x as f64)).sum::<f64>().sqrt() as f32
}

fn dot(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum()
}

/// base + α·d1 + β·d2.
pub fn offset(base: &[f32], d1: &[f32], alpha: f32, d2: &[f32], beta: f32) -> Vec<f32> {
    let mut out = vec![0.0; base.len()];
    engine::ops::weight_offset::weight_offset_cpu(base, d1, d2, alpha, beta, &mut out);
    out
}

/// The loss on `data` at `weights`, evaluated on the device (see [`Trainer::plane_losses`]; the
/// trainer's own weights are untouched).
pub async fn loss_at(trainer: &mut Trainer, weights: &[f32], data: &Dataset) -> Result<f32, Error> {
    trainer.set_eval_data(data)?;
    let zero = vec![0.0; weights.len()];
    Ok(trainer.plane_losses(weights, &zero, &zero, &[[0.0, 0.0]]).await?[0].0)
}

/// Losses along w(θ) = (1 − θ) w0 + θ w1 for each θ, on each data set given: the plane through
/// w1 along w0 − w1, at α = 1 − θ. The points go in calls sized like a slice's, `between`
/// awaited after each (a page paints there).
pub async fn interpolate<F: std::future::Future<Output = ()>>(
    trainer: &mut Trainer,
    (w0, w1): (&[f32], &[f32]),
    thetas: &[f32],
    sets: &[&Dataset],
    mut between: impl FnMut() -> F,
) -> Result<Vec<Vec<f32>>, Error> {
    let toward_start: Vec<f32> = w0.iter().zip(w1).map(|(a, b)| a - b).collect();
    let zero = vec![0.0; w1.len()];
    let points: Vec<[f32; 2]> = thetas.iter().map(|t| [1.0 - t, 0.0]).collect();
    let mut out = Vec::with_capacity(sets.len());
    for set in sets {
        trainer.set_eval_data(set)?;
        let mut losses = Vec::with_capacity(points.len());
        for call in points.chunks(points_per_call(trainer, 1)) {
            let part = trainer.plane_losses(w1, &toward_start, &zero, call).await?;
            losses.extend(part.into_iter().map(|(l, _)| l));
            between().await;
        }
        out.push(losses);
    }
    Ok(out)
}

/// Arithmetic per call to the device while mapping a slice: about 0.1 s on an emulated GPU, well
/// under a millisecond on a real one. Every call costs a round trip (the readback), so a small
/// model's points go many passes to a call; a large model's, one pass each.
const CALL_FLOPS: f64 = 50e6;

/// Points per call: whole evaluation passes, at least a row of the slice (a call also uploads
/// the plane and waits for the page's next turn), at most the log's capacity.
fn points_per_call(trainer: &Trainer, row: usize) -> usize {
    let per_pass = trainer.eval_points_per_pass();
    let passes = (CALL_FLOPS / trainer.eval_pass_flops().max(1.0)) as usize;
    let at_least = row.div_ceil(per_pass).min(LOG_CAPACITY / per_pass);
    passes.clamp(at_least.max(1), LOG_CAPACITY / per_pass) * per_pass
}

/// The loss on a `res × res` grid of L(center + α d1 + β d2), α and β evenly from −span to span;
/// rows go along β from −span (row 0), columns along α. The points go to the device in calls of
/// whole evaluation passes (`points_per_call`); after each, `progress` is told how many rows are
/// finished (and may let the page paint: it is awaited) and may stop the work by answering false
/// (the finished rows are returned).
#[allow(clippy::too_many_arguments)]
pub async fn slice<F: std::future::Future<Output = bool>>(
    trainer: &mut Trainer,
    center: &[f32],
    d1: &[f32],
    d2: &[f32],
    span: f32,
    res: usize,
    data: &Dataset,
    mut progress: impl FnMut(usize) -> F,
) -> Result<Vec<f32>, Error> {
    trainer.set_eval_data(data)?;
    let coord = |i: usize| -span + 2.0 * span * i as f32 / (res.max(2) - 1) as f32;
    let points: Vec<[f32; 2]> = (0..res * res).map(|i| [coord(i % res), coord(i / res)]).collect();
    let per_call = points_per_call(trainer, res);
    let mut out = Vec::with_capacity(res * res);
    for call in points.chunks(per_call) {
        let losses = trainer.plane_losses(center, d1, d2, call).await?;
        out.extend(losses.into_iter().map(|(l, _)| l));
        let rows = out.len() / res.max(1);
        if !progress(rows).await {
            out.truncate(rows * res);
            break;
        }
    }
    Ok(out)
}

/// The plane of a training trajectory (Li et al. 2018, §6; docs/theory.md §4.3): the first two
/// principal directions of the checkpoints' offsets from the final weights, *centred* on their
/// mean before the PCA as Li et al.'s code (scikit-learn's PCA) does, the share of the centred
/// variance each explains, and each checkpoint's offset projected on them (so the final weights
/// sit at the origin).
pub struct TrajectoryPlane {
    pub d1: Vec<f32>,
    pub d2: Vec<f32>,
    pub explained: [f32; 2],
    pub coords: Vec<[f32; 2]>,
}

/// PCA through the checkpoints' Gram matrix (k × k for k checkpoints, far smaller than the weight
/// count), its two leading eigenvectors by power iteration with deflation.
pub fn trajectory_plane(checkpoints: &[Vec<f32>], final_weights: &[f32]) -> TrajectoryPlane {
    let k = checkpoints.len();
    let x: Vec<Vec<f32>> = checkpoints
        .iter()
        .map(|c| c.iter().zip(final_weights).map(|(a, b)| a - b).collect())
        .collect();
    let mut mean = vec![0.0f64; final_weights.len()];
    for xi in &x {
        for (m, v) in mean.iter_mut().zip(xi) {
            *m += *v as f64 / k as f64;
        }
    }
    let y: Vec<Vec<f32>> = x
        .iter()
        .map(|xi| {
            xi.iter()
                .zip(&mean)
                .map(|(v, m)| (*v as f64 - m) as f32)
                .collect()
        })
        .collect();
    let mut gram = vec![vec![0.0f64; k]; k];
    for i in 0..k {
        for j in i..k {
            let v = dot(&y[i], &y[j]);
            gram[i][j] = v;
            gram[j][i] = v;
        }
    }
    let total: f64 = (0..k).map(|i| gram[i][i]).sum::<f64>().max(1e-30);
    let mut directions = Vec::new();
    let mut explained = [0.0f32; 2];
    for (slot, e) in explained.iter_mut().enumerate() {
        // Power iteration on the deflated Gram matrix.
        let mut u = vec![1.0f64; k];
        u[slot % k.max(1)] += 1.0;
        let mut lambda = 0.0;
        for _ in 0..500 {
            let mut next = vec![0.0; k];
            for i in 0..k {
                next[i] = (0..k).map(|j| gram[i][j] * u[j]).sum();
            }
            let n = next.iter().map(|v| v * v).sum::<f64>().sqrt();
            if n < 1e-30 {
                break;
            }
            lambda = n;
            u = next.into_iter().map(|v| v / n).collect();
        }
        // Direction in weight space: Yᵀu / ‖Yᵀu‖ (its norm² is λ).
        let dim = final_weights.len();
        let mut d = vec![0.0f64; dim];
        for (i, xi) in y.iter().enumerate() {
            for (dj, v) in d.iter_mut().zip(xi) {
                *dj += u[i] * *v as f64;
            }
        }
        let dn = d.iter().map(|v| v * v).sum::<f64>().sqrt();
        // No variance left (fewer than two distinct checkpoints): a zero direction.
        let scale = if lambda > 0.0 && dn > 0.0 { 1.0 / dn } else { 0.0 };
        directions.push(d.iter().map(|v| (v * scale) as f32).collect::<Vec<f32>>());
        *e = (lambda / total) as f32;
        for i in 0..k {
            for j in 0..k {
                gram[i][j] -= lambda * u[i] * u[j];
            }
        }
    }
    let (d1, d2) = (directions.remove(0), directions.remove(0));
    let coords = x
        .iter()
        .map(|xi| [dot(xi, &d1) as f32, dot(xi, &d2) as f32])
        .collect();
    TrajectoryPlane {
        d1,
        d2,
        explained,
        coords,
    }
}

/// The sharpness the labs report: the radius in filter norms, and how many random directions its
/// mean is taken over (4 gave a noisy figure that could flip a small-vs-large comparison).
pub const SHARPNESS_RADIUS: f32 = 0.1;
pub const SHARPNESS_DIRECTIONS: usize = 16;

/// Sharpness (Keskar et al. 2017, in the filter-normalized form of docs/theory.md §4.4): the mean rise of
/// the loss at distance `radius` along `directions` random filter-normalized directions, both
/// ways. `between` is awaited after each direction (a page paints there).
pub async fn sharpness<F: std::future::Future<Output = ()>>(
    trainer: &mut Trainer,
    data: &Dataset,
    (radius, directions, seed): (f32, usize, u64),
    mut between: impl FnMut() -> F,
) -> Result<f32, Error> {
    let w = trainer.params().await?;
    trainer.set_eval_data(data)?;
    let zero = vec![0.0; w.len()];
    let base = trainer.plane_losses(&w, &zero, &zero, &[[0.0, 0.0]]).await?[0].0;
    let mut rise = 0.0;
    for i in 0..directions {
        let d = filter_normalized_direction(&trainer.compiled, &w, seed + i as u64);
        let both_ways = [[radius, 0.0], [-radius, 0.0]];
        for (loss, _) in trainer.plane_losses(&w, &d, &zero, &both_ways).await? {
            rise += loss - base;
        }
        between().await;
    }
    Ok(rise / (2 * directions.max(1)) as f32)
}

/// Checkpoints kept for the trajectory's PCA while training a run of unknown length: at most
/// 2 × `CHECKPOINTS`, evenly spaced — when full, every other one is dropped and the stride doubles.
pub const CHECKPOINTS: usize = 30;

pub struct Checkpoints {
    pub kept: Vec<Vec<f32>>,
    stride: usize,
    seen: usize,
}

impl Checkpoints {
    pub fn new(first: Vec<f32>) -> Self {
        Self {
            kept: vec![first],
            stride: 1,
            seen: 0,
        }
    }

    pub fn push(&mut self, w: Vec<f32>) {
        self.seen += 1;
        if !self.seen.is_multiple_of(self.stride) {
            return;
        }
        self.kept.push(w);
        if self.kept.len() > 2 * CHECKPOINTS {
            let mut i = 0;
            self.kept.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.stride *= 2;
        }
    }
}

/// How a run to a training loss ended.
pub struct TrainedRun {
    pub steps: usize,
    /// The loss on the evaluation samples at the last check (NaN without a target).
    pub loss: f32,
    pub reached: bool,
    /// Checkpoints from the initial to the final weights.
    pub checkpoints: Vec<Vec<f32>>,
}

/// Trains until the loss on `eval` is at most `target` (checked every ≈ 256 samples, as the
/// scaling lab does, so a large batch stops near the target too) or `budget` steps; a target of
/// 0 trains the whole budget. So that batch sizes are compared at equal training loss before
/// their sharpness is (docs/theory.md §4.4). `progress(steps)` is awaited after every check and
/// stops the run by giving false.
pub async fn train_to_loss<F: std::future::Future<Output = bool>>(
    trainer: &mut Trainer,
    eval: &Dataset,
    target: f32,
    budget: usize,
    mut progress: impl FnMut(usize) -> F,
) -> Result<TrainedRun, Error> {
    let every = (256 / trainer.config.batch.max(1)).clamp(1, 64);
    let mut checkpoints = Checkpoints::new(trainer.params().await?);
    let mut loss = f32::NAN;
    let mut steps = trainer.step() as usize;
    while steps < budget && !(target > 0.0 && loss <= target) {
        trainer.train(every.min(budget - steps)).await?;
        steps = trainer.step() as usize;
        checkpoints.push(trainer.params().await?);
        if target > 0.0 {
            loss = trainer.evaluate(eval).await?.0;
        }
        if !progress(steps).await {
            break;
        }
    }
    let last = trainer.params().await?;
    let mut kept = checkpoints.kept;
    if kept.last() != Some(&last) {
        kept.push(last);
    }
    Ok(TrainedRun {
        steps,
        loss,
        reached: target > 0.0 && loss <= target,
        checkpoints: kept,
    })
}
