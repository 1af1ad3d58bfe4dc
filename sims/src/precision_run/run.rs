//! One reduced-precision run as the precision lab shows it: its losses, how it ended, the loss
//! scale over time, and now and then what its formats did to the gradients and the updates
//! (docs/theory.md §7.4). Runs built from the same config but for their precision train on the
//! same batches from the same weights, so they compare step by step.

use serde::{Deserialize, Serialize};

use engine::data::Dataset;
use engine::error::Error;
use engine::precision::{
    exponent_histogram, lost_updates, range_shares_by, tensor_bytes, ExponentHistogram, Format, LossScaling,
    Precision, RangeShares, ScaleEvent, TensorBytes,
};
use engine::train::{TrainError, Trainer};

/// The exponents the histograms span: fp32's subnormals aside, every value a gradient takes.
pub const HISTOGRAM_LOWEST: i32 = -40;
pub const HISTOGRAM_HIGHEST: i32 = 20;

/// What the formats did at one step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Check {
    pub step: u64,
    /// The loss scale the step ran at.
    pub scale: f32,
    /// The step overflowed and the dynamic scaler skipped it.
    pub skipped: bool,
    /// The share of weights with a gradient (before rounding) whose stored value did not move,
    /// the flushed gradients' included (None: skipped).
    pub lost_updates: Option<f64>,
    /// Where the weight gradients (× the scale) fall in the gradients' format, counted before
    /// they were rounded to it: the share flushed to zero, kept subnormal, normal, overflowed.
    pub gradient_shares: RangeShares,
    /// The stored weight gradients' exponents, per layer with weights.
    pub histograms: Vec<ExponentHistogram>,
    /// The share of weights with a nonzero gradient (as the optimizer used it) whose squared-gradient state
    /// (`Optimizer::squared_gradients`: Adam's v, RMSProp's and AdaGrad's accumulators) was stored
    /// as 0 after the step: flushed by its format, so the step divides by √0 + ε. None without
    /// such a state.
    #[serde(default)]
    pub squares_flushed: Option<f64>,
    /// Accuracy on the training samples the run is measured on, after the step.
    #[serde(default)]
    pub accuracy: f32,
    /// Under delayed scaling, the exponent k of each weight-gradient tensor's scale 2^k at this
    /// step, in parameter order (a layer's weights, then its bias); empty otherwise.
    #[serde(default)]
    pub gradient_scales: Vec<i32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrecisionRun {
    pub label: String,
    pub precision: Precision,
    pub losses: Vec<f32>,
    /// The step at which the loss became NaN or infinite.
    pub diverged_at: Option<u64>,
    pub train_accuracy: f32,
    pub test_accuracy: Option<f32>,
    pub skipped_steps: u64,
    /// Each step's scale under the dynamic scaler (empty otherwise).
    pub scale_events: Vec<ScaleEvent>,
    pub final_scale: f32,
    pub checks: Vec<Check>,
    pub bytes: TensorBytes,
}

/// Values kept for backward in one step: every layer's output for the batch.
pub fn activation_values(trainer: &Trainer) -> usize {
    let per_sample: usize = trainer.compiled.layers.iter().map(|l| l.out_len()).sum();
    per_sample * trainer.config.batch
}

/// Trains `steps` steps in calls of at most `chunk`, with a check every `check_every` steps (and
/// at the last); `progress(run so far)` is awaited after each call (a page draws it live) and
/// stops the run by giving false.
/// A run that diverges ends there, its losses up to the step before.
pub async fn run<F: std::future::Future<Output = bool>>(
    trainer: &mut Trainer,
    label: &str,
    (steps, chunk, check_every): (usize, usize, usize),
    (train_eval, test): (&Dataset, Option<&Dataset>),
    mut progress: impl FnMut(&PrecisionRun) -> F,
) -> Result<PrecisionRun, Error> {
    let precision = trainer.config.precision;
    let mut out = PrecisionRun {
        label: label.into(),
        precision,
        losses: Vec::new(),
        diverged_at: None,
        train_accuracy: 0.0,
        test_accuracy: None,
        skipped_steps: 0,
        scale_events: Vec::new(),
        final_scale: trainer.loss_scale(),
        checks: Vec::new(),
        bytes: tensor_bytes(
            &precision,
            trainer.compiled.n_params,
            activation_values(trainer),
            trainer.config.optimizer.state_vectors(),
        ),
    };
    let check_every = check_every.max(1);
    while out.losses.len() < steps {
        let done = out.losses.len();
        // The first step is checked too: what a format flushes at once (Adam's (1 − β₂)g² in
        // fp16) is recorded before a run that diverges in its first steps ends.
        let to_check = if done == 0 {
            1
        } else {
            check_every - done % check_every
        };
        let n = (steps - done).min(chunk.max(1)).min(to_check);
        // The step before a check trains alone: its weights before and after are compared.
        let at_check = n == to_check || done + n == steps;
        let result = if at_check {
            match train_steps(trainer, &mut out, n - 1).await {
                Ok(()) => check_step(trainer, &mut out, train_eval).await,
                e => e,
            }
        } else {
            train_steps(trainer, &mut out, n).await
        };
        match result {
            Ok(()) => {}
            Err(TrainError::Diverged { step }) => {
                out.diverged_at = Some(step);
                break;
            }
            Err(TrainError::Device(e)) => return Err(e),
        }
        if !progress(&out).await {
            break;
        }
    }
    out.skipped_steps = trainer.skipped_steps();
    out.scale_events = trainer.scale_events().to_vec();
    out.final_scale = trainer.loss_scale();
    if out.diverged_at.is_none() {
        out.train_accuracy = trainer.evaluate(train_eval).await?.1;
        if let Some(test) = test {
            out.test_accuracy = Some(trainer.evaluate(test).await?.1);
        }
    }
    Ok(out)
}

/// `n` steps (none for 0), their losses kept.
async fn train_steps(trainer: &mut Trainer, out: &mut PrecisionRun, n: usize) -> Result<(), TrainError> {
    if n > 0 {
        let m = trainer.train(n).await?;
        out.losses.extend(m.iter().map(|m| m.loss));
    }
    Ok(())
}

/// One step, then what its formats did.
async fn check_step(trainer: &mut Trainer, out: &mut PrecisionRun, eval: &Dataset) -> Result<(), TrainError> {
    let scale = trainer.loss_scale();
    let before = trainer.params().await.map_err(TrainError::Device)?;
    train_steps(trainer, out, 1).await?;
    let after = trainer.params().await.map_err(TrainError::Device)?;
    let grads = trainer.last_gradients().await.map_err(TrainError::Device)?;
    // Times the scale, before rounding: what flushed or overflowed is counted from these.
    let unrounded = trainer.unrounded_gradients().await.map_err(TrainError::Device)?;
    let skipped = trainer
        .scale_events()
        .last()
        .is_some_and(|e| e.step == trainer.step() && e.overflow);
    // A skipped step's gradients were never unscaled: they are stored as they are.
    let stored_scale = if skipped { 1.0 } else { scale };
    let precision = trainer.config.precision;
    // Each value's scale in its format: the loss scale, or its tensor's own under delayed scaling
    // (whose stored gradients were unscaled, and unrounded ones never scaled).
    let per_tensor: Vec<_> = trainer
        .tensor_scales()
        .into_iter()
        .filter(|(t, _)| t.weight_gradient)
        .collect();
    let mut scale_of = vec![stored_scale; grads.len()];
    for (t, k) in &per_tensor {
        scale_of[t.params.clone().unwrap_or_default()].fill(2f32.powi(*k));
    }
    let histograms = trainer
        .compiled
        .layers
        .iter()
        .filter(|l| l.has_params())
        .map(|l| {
            let end = l.b_off + l.out_shape[0];
            let stored: Vec<f32> = (l.w_off..end).map(|i| grads[i] * scale_of[i]).collect();
            exponent_histogram(&stored, HISTOGRAM_LOWEST, HISTOGRAM_HIGHEST)
        })
        .collect();
    let squares_flushed = match trainer.config.optimizer.squared_gradients() {
        Some((which, _)) if !skipped => {
            let state = trainer.optimizer_state().await.map_err(TrainError::Device)?;
            let squares = if which == 0 { &state.a } else { &state.b };
            // Against the gradient the optimizer squared (rounded, unscaled): a gradient that
            // itself flushed is counted in `gradient_shares`, not here.
            Some(flushed_share(squares, &grads))
        }
        _ => None,
    };
    let accuracy = trainer.evaluate(eval).await.map_err(TrainError::Device)?.1;
    out.checks.push(Check {
        step: trainer.step(),
        scale,
        skipped,
        lost_updates: (!skipped).then(|| lost_updates(&before, &after, &unrounded)),
        // An fp32 step keeps no separate copy: its unrounded gradients are `grads`, unscaled.
        gradient_shares: range_shares_by(
            &unrounded,
            |i| match (precision.is_fp32(), per_tensor.is_empty()) {
                (true, _) => stored_scale,
                (false, true) => 1.0,
                (false, false) => scale_of[i],
            },
            precision.gradients,
        ),
        histograms,
        squares_flushed,
        accuracy,
        gradient_scales: per_tensor.iter().map(|(_, k)| *k).collect(),
    });
    Ok(())
}

/// The share of weights with a nonzero gradient whose squared-gradient state is exactly 0: in
/// exact arithmetic it is at least (1 − β)g² > 0, so a 0 was flushed where it was stored.
pub fn flushed_share(squares: &[f32], grads: &[f32]) -> f64 {
    let (mut with_gradient, mut flushed) = (0u64, 0u64);
    for (s, g) in squares.iter().zip(grads) {
        if *g != 0.0 && g.is_finite() {
            with_gradient += 1;
            flushed += u64::from(*s == 0.0);
        }
    }
    flushed as f64 / with_gradient.max(1) as f64
}

impl PrecisionRun {
    /// The last check of a step the scaler did not skip: what the page's table reports (the
    /// gradients flushed, the updates lost).
    pub fn last_check(&self) -> Option<&Check> {
        self.checks.iter().rev().find(|c| !c.skipped)
    }

    /// The share of the squared-gradient state stored as 0 after the first step (None without one).
    pub fn first_squares_flushed(&self) -> Option<f64> {
        self.checks.first().and_then(|c| c.squares_flushed)
    }

    /// The loss scale at each step: the dynamic scaler's record, else the fixed scale.
    pub fn scale_at(&self, step: u64) -> f32 {
        match self.precision.loss_scaling {
            LossScaling::Dynamic { .. } => self
                .scale_events
                .iter()
                .find(|e| e.step == step)
                .map_or(self.final_scale, |e| e.scale),
            other => other.initial(),
        }
    }

    /// The format the gradients are stored in (their histogram's range).
    pub fn gradient_format(&self) -> Format {
        self.precision.gradients
    }
}
