//! Batch size and learning rate (docs/theory.md §5): the scaling rules, steps-to-target from a loss
//! stream, the gradient noise scale B_simple (McCandlish et al. 2018) estimated from two batch
//! sizes, and sweeps that train one model per batch size.

use engine::error::Error;
use serde::{Deserialize, Serialize};

use engine::data::Dataset;
use engine::optim::Schedule;
use engine::train::{TrainConfig, Trainer};

pub use crate::noise_scale::{measure_noise, raw_b_simple, NoiseScale, NOISE_WINDOW};

mod record;
pub mod record_check;
pub use record::{SweepRecord, RECORD_FORMAT};

/// How the learning rate follows the batch size from a base pair (η_base, B_base).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// η stays η_base.
    #[default]
    None,
    /// η = η_base · B / B_base (Goyal et al. 2017).
    Linear,
    /// η = η_base · √(B / B_base) (Krizhevsky 2014; Hoffer et al. 2017).
    Sqrt,
}

impl Rule {
    pub fn learning_rate(self, base_lr: f32, base_batch: usize, batch: usize) -> f32 {
        base_lr * self.factor(batch as f32 / base_batch.max(1) as f32)
    }

    /// The factor on the rate for a batch `k` times the base batch.
    pub fn factor(self, k: f32) -> f32 {
        match self {
            Rule::None => 1.0,
            Rule::Linear => k,
            Rule::Sqrt => k.sqrt(),
        }
    }

    pub fn key(self) -> &'static str {
        match self {
            Rule::None => "none",
            Rule::Linear => "linear",
            Rule::Sqrt => "sqrt",
        }
    }
}

/// What a run trains until.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Target {
    /// The smoothed training loss at or below this.
    Loss(f32),
    /// The smoothed training accuracy at or above this.
    Accuracy(f32),
}

impl Target {
    /// Whether a value of the target's metric (loss or accuracy) reaches it.
    pub fn met_by(self, value: f32) -> bool {
        match self {
            Target::Loss(l) => value <= l,
            Target::Accuracy(a) => value >= a,
        }
    }
}

/// The first step (from 1) at which the trailing mean of the last `window` values (fewer at the
/// start) reaches the target; None when it never does.
pub fn steps_to_target(values: &[f32], target: Target, window: usize) -> Option<usize> {
    let window = window.max(1);
    let mut sum = 0.0f64;
    for (i, v) in values.iter().enumerate() {
        sum += *v as f64;
        if i >= window {
            sum -= values[i - window] as f64;
        }
        let mean = (sum / (i + 1).min(window) as f64) as f32;
        if target.met_by(mean) {
            return Some(i + 1);
        }
    }
    None
}

/// A sweep over batch sizes (and optionally learning rates): one run per (batch, η) pair, each
/// trained from the same initial weights until the target or the step budget.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Sweep {
    pub base: TrainConfig,
    pub batches: Vec<usize>,
    /// The base learning rate and the batch it belongs to.
    pub base_lr: f32,
    pub base_batch: usize,
    /// Extra factors on the rule's rate (for a batch × η heatmap); empty means [1].
    pub lr_factors: Vec<f32>,
    pub rule: Rule,
    /// Linear warmup from 0 over this many epochs' worth of steps (0: none).
    pub warmup_epochs: f32,
    pub target: Target,
    pub max_steps: usize,
    /// Estimate the gradient noise scale every this many steps (0: never), from `noise_k`
    /// batches at a time (B_small = the batch, B_big = noise_k × the batch).
    pub noise_every: usize,
    pub noise_k: usize,
}

impl Default for Sweep {
    fn default() -> Self {
        Self {
            base: TrainConfig::default(),
            batches: vec![8, 16, 32, 64, 128],
            base_lr: 0.05,
            base_batch: 16,
            lr_factors: Vec::new(),
            rule: Rule::Linear,
            warmup_epochs: 0.0,
            target: Target::Loss(0.3),
            max_steps: 2000,
            noise_every: 0,
            noise_k: 8,
        }
    }
}

/// The outcome of one run of a sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub batch: usize,
    pub learning_rate: f32,
    pub steps: usize,
    pub steps_to_target: Option<usize>,
    /// steps_to_target × batch.
    pub examples_to_target: Option<usize>,
    pub final_loss: f32,
    pub train_loss: f32,
    pub train_accuracy: f32,
    pub test_loss: Option<f32>,
    pub test_accuracy: Option<f32>,
    /// True when the loss became NaN/Inf (the run stops there).
    pub diverged: bool,
    /// The step at which the run was stopped for making no progress: the check loss had not
    /// improved by [`STALL_IMPROVEMENT`] over its best for [`STALL_CHECKS`] checks.
    #[serde(default)]
    pub stalled_at: Option<usize>,
    pub losses: Vec<f32>,
    pub learning_rates: Vec<f32>,
    /// (step, loss, accuracy) on the check set at each check of the target.
    #[serde(default)]
    pub checks: Vec<(usize, f32, f32)>,
    /// (step, B_simple over the last [`NOISE_WINDOW`] measurements) at each noise measurement.
    #[serde(default)]
    pub noise_scale: Vec<(usize, f64)>,
    /// Every noise measurement: (step, |G|² estimate, tr Σ estimate).
    #[serde(default)]
    pub noise_raw: Vec<(usize, f64, f64)>,
}

/// The columns of [`RunResult::csv_row`].
pub const CSV_HEADER: &str = "batch,learning_rate,steps,steps_to_target,examples_to_target,final_loss,train_loss,train_accuracy,test_loss,test_accuracy,diverged,stalled_at";

impl RunResult {
    /// How the run ended, in a word the page publishes (`outcome-{batch}`): "reached" the
    /// target, "diverged", "stalled" (stopped for making no progress), or "not reached" in its
    /// step budget.
    pub fn outcome(&self) -> &'static str {
        match (self.steps_to_target, self.diverged, self.stalled_at) {
            (Some(_), _, _) => "reached",
            (None, true, _) => "diverged",
            (None, false, Some(_)) => "stalled",
            (None, false, None) => "not reached",
        }
    }

    /// One CSV line (empty cells where there is no value); every cell is a number or a word.
    pub fn csv_row(&self) -> String {
        self.csv_cells().join(",")
    }

    /// The cells of [`Self::csv_row`].
    pub fn csv_cells(&self) -> Vec<String> {
        let opt = |v: Option<String>| v.unwrap_or_default();
        vec![
            self.batch.to_string(),
            self.learning_rate.to_string(),
            self.steps.to_string(),
            opt(self.steps_to_target.map(|s| s.to_string())),
            opt(self.examples_to_target.map(|s| s.to_string())),
            self.final_loss.to_string(),
            self.train_loss.to_string(),
            self.train_accuracy.to_string(),
            opt(self.test_loss.map(|v| v.to_string())),
            opt(self.test_accuracy.map(|v| v.to_string())),
            self.diverged.to_string(),
            opt(self.stalled_at.map(|s| s.to_string())),
        ]
    }
}

impl Sweep {
    /// The (batch, learning rate) pairs, batch-major.
    pub fn runs(&self) -> Vec<(usize, f32)> {
        let factors = if self.lr_factors.is_empty() {
            vec![1.0]
        } else {
            self.lr_factors.clone()
        };
        self.batches
            .iter()
            .flat_map(|&b| {
                let lr = self.rule.learning_rate(self.base_lr, self.base_batch, b);
                factors.iter().map(move |f| (b, lr * f))
            })
            .collect()
    }

    /// The training config of one run: its batch, rate, and the warmup in steps.
    pub fn config(&self, batch: usize, lr: f32, train_len: usize) -> TrainConfig {
        let warmup = (self.warmup_epochs * train_len as f32 / batch.max(1) as f32).round() as u32;
        TrainConfig {
            batch,
            learning_rate: lr,
            schedule: Schedule {
                warmup_steps: warmup,
                ..self.base.schedule
            },
            ..self.base.clone()
        }
    }
}

/// Samples of the training set the final train loss and accuracy are measured on.
pub const EVAL_SAMPLES: usize = 2000;
/// Training samples the target is checked on: a fixed set, so the check does not depend on how
/// noisy one batch is (a small batch would otherwise "reach" an accuracy by luck).
pub const CHECK_SAMPLES: usize = 1000;
/// A run is stopped as stalled after this many checks (each about [`CHECK_EVERY_SAMPLES`]
/// samples) without its check loss improving on its best by [`STALL_IMPROVEMENT`].
pub const STALL_CHECKS: usize = 100;
/// The relative improvement of the check loss that counts as progress.
pub const STALL_IMPROVEMENT: f32 = 0.01;

/// Watches a run's check losses for progress: stalled after [`STALL_CHECKS`] checks in a row that
/// did not improve on the best by [`STALL_IMPROVEMENT`].
#[derive(Clone, Copy, Debug)]
pub struct StallWatch {
    best: f32,
    since_best: usize,
}

impl Default for StallWatch {
    fn default() -> Self {
        Self {
            best: f32::INFINITY,
            since_best: 0,
        }
    }
}

impl StallWatch {
    /// Records one check's loss; true once the run has stalled.
    pub fn stalled(&mut self, loss: f32) -> bool {
        if loss < self.best * (1.0 - STALL_IMPROVEMENT) {
            (self.best, self.since_best) = (loss, 0);
        } else {
            self.since_best += 1;
        }
        self.since_best >= STALL_CHECKS
    }
}

/// The target is checked after about this many training samples (at least every step, at most
/// every 64 steps): the same resolution in samples for every batch size.
pub const CHECK_EVERY_SAMPLES: usize = 256;

/// Trains one run of a sweep until the target, checked on the first [`CHECK_SAMPLES`] training
/// samples every [`CHECK_EVERY_SAMPLES`] or so, or `max_steps`; then evaluates on (the first
/// [`EVAL_SAMPLES`] of) its training data and on `test`. Measures the noise scale every
/// `noise_every` steps when set. `progress(steps, max)` is awaited after every check (a page
/// yields to the browser there) and may stop the run early by giving false.
pub async fn run<F: std::future::Future<Output = bool>>(
    trainer: &mut Trainer,
    sweep: &Sweep,
    test: Option<&Dataset>,
    mut progress: impl FnMut(usize, usize) -> F,
) -> Result<RunResult, Error> {
    let batch = trainer.config.batch;
    let check_set = trainer.data.head(CHECK_SAMPLES);
    let interval = (CHECK_EVERY_SAMPLES / batch.max(1)).clamp(1, 64);
    let mut losses = Vec::new();
    let mut checks: Vec<(usize, f32, f32)> = Vec::new();
    let mut diverged = false;
    let mut reached = None;
    let mut stalled_at = None;
    let mut watch = StallWatch::default();
    let mut noise = NoiseScale::new(NOISE_WINDOW);
    let mut noise_scale = Vec::new();
    while losses.len() < sweep.max_steps && reached.is_none() {
        let before = losses.len();
        match trainer.train((sweep.max_steps - before).min(interval)).await {
            Ok(m) => losses.extend(m.iter().map(|m| m.loss)),
            Err(engine::train::TrainError::Diverged { .. }) => {
                diverged = true;
                break;
            }
            Err(e) => return Err(e.into()),
        }
        let (loss, accuracy) = trainer.evaluate(&check_set).await?;
        checks.push((losses.len(), loss, accuracy));
        // Runs stop at the first check that passes, so only the newest needs testing.
        let value = match sweep.target {
            Target::Loss(_) => loss,
            Target::Accuracy(_) => accuracy,
        };
        if sweep.target.met_by(value) {
            reached = Some(losses.len());
        }
        if watch.stalled(loss) && reached.is_none() {
            stalled_at = Some(losses.len());
            break;
        }
        let every = sweep.noise_every;
        if every > 0 && before / every != losses.len() / every {
            let (bs, small, bb, big) = measure_noise(trainer, sweep.noise_k).await?;
            noise.add(losses.len(), bs, small, bb, big);
            if let Some(b) = noise.b_simple() {
                noise_scale.push((losses.len(), b));
            }
        }
        if !progress(losses.len(), sweep.max_steps).await {
            break;
        }
    }
    let data = trainer.data.head(EVAL_SAMPLES);
    let (train_loss, train_accuracy) = trainer.evaluate(&data).await?;
    let (test_loss, test_accuracy) = match test {
        Some(t) => {
            let (l, a) = trainer.evaluate(t).await?;
            (Some(l), Some(a))
        }
        None => (None, None),
    };
    Ok(RunResult {
        batch,
        learning_rate: trainer.config.learning_rate,
        steps: losses.len(),
        steps_to_target: reached,
        examples_to_target: reached.map(|s| s * batch),
        final_loss: losses.last().copied().unwrap_or(f32::NAN),
        train_loss,
        train_accuracy,
        test_loss,
        test_accuracy,
        diverged,
        stalled_at,
        learning_rates: (1..=losses.len() as u64)
            .map(|s| trainer.learning_rate_at(s))
            .collect(),
        losses,
        checks,
        noise_scale,
        noise_raw: noise.raw,
    })
}
