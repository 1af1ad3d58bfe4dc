//! Benchmark runs of the fixed workloads (`engine::workloads`: W1 an MLP and W2 a small CNN on the
//! first 10,000 MNIST training images in file order), so results compare with other systems, and
//! the landscape's slice benchmark.

use engine::error::Error;
use serde::Serialize;

use engine::backend::KernelTime;
use engine::data::Dataset;
use engine::train::{Alone, StepRunner, Trainer};

#[cfg(not(target_arch = "wasm32"))]
pub use engine::workloads::native_now_ms;
pub use engine::workloads::{w1, w2, Workload, WORKLOADS};

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BenchResult {
    pub workload: String,
    pub backend: String,
    pub steps: usize,
    pub batch: usize,
    pub first_step_ms: f64,
    /// Samples per second over every step but the first (pipelines compiled, buffers warm).
    pub samples_per_sec_steady: f64,
    /// Samples per second including the first step.
    pub samples_per_sec_total: f64,
    /// Achieved training GFLOP/s (the FLOPs of `timeline::Work`: the kernels the step runs).
    pub gflops: f64,
    pub final_loss: f32,
    pub losses: Vec<f32>,
    pub test_accuracy: Option<f32>,
    /// Achieved GFLOP/s of the matrix-product kernels (matmul, and convolution as implicit GEMM),
    /// from the per-kernel profile.
    pub matmul_gflops: f64,
    /// Per-kernel milliseconds of one step, summed by kernel name, slowest first.
    pub kernels: Vec<KernelTime>,
    /// The same step dispatch by dispatch, in the order it runs them (`lab bench --each`); left
    /// out of the JSON, which `kernels` summarizes.
    #[serde(skip)]
    pub dispatches: Vec<KernelTime>,
    /// GPU readbacks awaited per training chunk (a chunk's metrics come back with its last step)
    /// and per view of the model (probabilities, every layer and the weights); 0 on the CPU path.
    pub readbacks_per_chunk: f64,
    pub readbacks_per_view: f64,
    /// Layers of the model: a view read each separately before readbacks were gathered.
    pub layers: usize,
    /// Kernels dispatched per training step (the fused list unless the run asked otherwise).
    pub dispatches_per_step: usize,
    /// Replicas (CPU threads) each step was split over; 1 unsplit.
    pub replicas: usize,
    /// How those replicas exchanged weights and gradients (`StepRunner::exchange`).
    pub exchange: Option<String>,
    /// How the step was split among them: "batch rows" or "hidden units" (`StepRunner::split`).
    pub split: Option<String>,
    /// The GPU's product tiles ("64×64", `TilePlan::label`); None on the CPU path.
    pub tiles: Option<String>,
}

/// Sums a step's profile by kernel name, slowest first.
pub fn summarize(profile: &[KernelTime]) -> Vec<KernelTime> {
    let mut out: Vec<KernelTime> = Vec::new();
    for k in profile {
        match out.iter_mut().find(|o| o.name == k.name) {
            Some(o) => {
                o.ms += k.ms;
                o.flops += k.flops;
            }
            None => out.push(k.clone()),
        }
    }
    out.sort_by(|a, b| b.ms.total_cmp(&a.ms));
    out
}

/// GFLOP/s over the kernels that do arithmetic (those reporting FLOPs).
pub fn gemm_gflops(profile: &[KernelTime]) -> f64 {
    let (flops, ms) = profile
        .iter()
        .filter(|k| k.flops > 0.0)
        .fold((0.0, 0.0), |(f, t), k| (f + k.flops, t + k.ms));
    if ms > 0.0 {
        flops / ms / 1e6
    } else {
        0.0
    }
}

/// Full batches in `epochs` epochs of the trainer's data.
pub fn epoch_steps(trainer: &Trainer, epochs: usize) -> usize {
    trainer.data.len() / trainer.config.batch * epochs
}

/// Trains `steps` full batches (at least 2) and measures with the clock `now_ms`; evaluates on
/// `test` after. `losses` in the result has one entry per step.
pub async fn run(
    trainer: &mut Trainer,
    test: Option<&Dataset>,
    name: &str,
    steps: usize,
    now_ms: &dyn Fn() -> f64,
) -> Result<BenchResult, Error> {
    run_with(trainer, &mut Alone, test, name, steps, now_ms).await
}

/// [`run`] with the steps trained by `runner` (a team of replicas splitting each step).
pub async fn run_with<R: StepRunner>(
    trainer: &mut Trainer,
    runner: &mut R,
    test: Option<&Dataset>,
    name: &str,
    steps: usize,
    now_ms: &dyn Fn() -> f64,
) -> Result<BenchResult, Error> {
    let batch = trainer.config.batch;
    let steps = steps.max(2);
    let t0 = now_ms();
    let mut metrics = runner.train(trainer, 1).await?;
    let t1 = now_ms();
    let (read0, mut chunks) = (trainer.readbacks(), 0);
    while metrics.len() < steps {
        let chunk = (steps - metrics.len()).min(engine::plan::LOG_CAPACITY);
        metrics.extend(runner.train(trainer, chunk).await?);
        chunks += 1;
    }
    let t2 = now_ms();
    let readbacks_per_chunk = (trainer.readbacks() - read0) as f64 / chunks.max(1) as f64;
    let sample = trainer.data.head(16);
    let read1 = trainer.readbacks();
    trainer.snapshot(&sample.x, true).await?;
    let readbacks_per_view = (trainer.readbacks() - read1) as f64;
    let test_accuracy = match test {
        Some(t) => Some(trainer.evaluate(t).await?.1),
        None => None,
    };
    let dispatches = trainer.profile_step(3, now_ms).await?;
    let profile = summarize(&dispatches);
    let steady = (steps - 1) as f64 * batch as f64 / ((t2 - t1) / 1000.0);
    let flops = crate::timeline::Work::of(&trainer.compiled).flops_per_sample * steady;
    Ok(BenchResult {
        workload: name.into(),
        backend: trainer.backend_name(),
        steps,
        batch,
        first_step_ms: t1 - t0,
        samples_per_sec_steady: steady,
        samples_per_sec_total: steps as f64 * batch as f64 / ((t2 - t0) / 1000.0),
        gflops: flops / 1e9,
        final_loss: metrics.last().map_or(f32::NAN, |m| m.loss),
        losses: metrics.iter().map(|m| m.loss).collect(),
        test_accuracy,
        matmul_gflops: gemm_gflops(&profile),
        kernels: profile,
        dispatches,
        readbacks_per_chunk,
        readbacks_per_view,
        layers: trainer.compiled.layers.len(),
        dispatches_per_step: trainer.dispatches_per_step(),
        replicas: runner.replicas(),
        exchange: runner.exchange().map(String::from),
        split: runner.split().map(String::from),
        tiles: trainer.tiles().map(|t| t.label()),
    })
}

/// The landscape benchmark: how fast a slice evaluates next to how fast the same model trains.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SliceBenchResult {
    pub workload: String,
    pub backend: String,
    /// Grid points per side (res × res points).
    pub res: usize,
    /// Samples each point is evaluated on.
    pub eval_samples: usize,
    /// Points evaluated side by side in one pass (`plan::eval_points`; 1 on the CPU path).
    pub points_per_pass: usize,
    pub slice_ms: f64,
    /// Samples evaluated per second over the slice (points × samples / time).
    pub slice_samples_per_sec: f64,
    /// Training samples per second of the same model on the same backend (steady state).
    pub train_samples_per_sec: f64,
    /// slice_samples_per_sec / train_samples_per_sec: forward-only evaluation should be well
    /// above 1.
    pub ratio: f64,
}

/// Trains `steps` steps (timed, after one warm-up step), then maps a `res × res` slice along two
/// filter-normalized directions on the trainer's first `eval_rows` training samples (timed, after
/// a one-point warm-up). The trainer needs an evaluation plan (`Trainer::with_evaluation`).
pub async fn slice_run(
    trainer: &mut Trainer,
    name: &str,
    res: usize,
    steps: usize,
    now_ms: &dyn Fn() -> f64,
) -> Result<SliceBenchResult, Error> {
    use crate::landscape::{filter_normalized_direction, slice};
    let batch = trainer.config.batch;
    trainer.train(1).await?;
    let t0 = now_ms();
    let mut done = 0;
    while done < steps {
        let chunk = (steps - done).min(engine::plan::LOG_CAPACITY);
        done += trainer.train(chunk).await?.len();
    }
    let train_rate = (done * batch) as f64 / ((now_ms() - t0) / 1000.0);
    let eval_samples = trainer.eval_rows();
    let data = trainer.data.head(eval_samples);
    let w = trainer.params().await?;
    let d1 = filter_normalized_direction(&trainer.compiled, &w, 1);
    let d2 = filter_normalized_direction(&trainer.compiled, &w, 2);
    slice(trainer, &w, &d1, &d2, 1.0, 1, &data, |_| async { true }).await?;
    let t1 = now_ms();
    slice(trainer, &w, &d1, &d2, 1.0, res, &data, |_| async { true }).await?;
    let slice_ms = now_ms() - t1;
    let slice_rate = (res * res * eval_samples) as f64 / (slice_ms / 1000.0);
    Ok(SliceBenchResult {
        workload: name.into(),
        backend: trainer.backend_name(),
        res,
        eval_samples,
        points_per_pass: trainer.eval_points_per_pass(),
        slice_ms,
        slice_samples_per_sec: slice_rate,
        train_samples_per_sec: train_rate,
        ratio: slice_rate / train_rate,
    })
}
