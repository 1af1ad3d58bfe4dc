//! The heads split over tensor-parallel devices, trained for real on the page (docs/theory.md
//! §12.6): the lab's model from its start on its first batches, a few steps on the engine's own
//! step and the same steps with every block's heads and MLP units over t devices
//! (`tensor_parallel_backward`), side by side. The split changes where the arithmetic runs, not
//! the update: the two runs' losses and weights agree to rounding.

use std::future::Future;

use super::tensor_parallel::sent_per_block;
use super::tensor_parallel_backward::SplitTraining;
use super::AttentionPlan;
use engine::error::Error;
use engine::transformer::{batch_tokens, TinyTransformer};

/// Steps the check trains.
pub const CHECK_STEPS: usize = 20;

/// What the check found.
#[derive(Clone, Debug, PartialEq)]
pub struct SplitCheck {
    pub devices: usize,
    /// Each step's loss: (one device, split).
    pub losses: Vec<(f32, f32)>,
    /// Largest |w_split − w| / (1 + |w|) after the last step.
    pub weight_gap: f32,
    /// Bytes one device sends in a training step: forward and backward, two ring allreduces
    /// each, every block.
    pub sent_per_step: f64,
}

impl SplitCheck {
    /// The largest |split − one device| over the steps' losses.
    pub fn loss_gap(&self) -> f32 {
        self.losses.iter().map(|(a, b)| (a - b).abs()).fold(0.0, f32::max)
    }
}

/// The device counts the model splits over: those above 1 that divide its heads and its
/// hidden units (at most 8).
pub fn device_choices(plan: &AttentionPlan) -> Vec<usize> {
    (2..=8)
        .filter(|t| plan.heads.is_multiple_of(*t) && plan.hidden.is_multiple_of(*t))
        .collect()
}

/// Trains `plan`'s model [`CHECK_STEPS`] steps both ways on the CPU path, Adam (the split runs
/// no weight decay), `progress(step)` after each step (false stops: None).
pub async fn check<F: Future<Output = bool>>(
    plan: &AttentionPlan,
    devices: usize,
    mut progress: impl FnMut(usize) -> F,
) -> Result<Option<SplitCheck>, Error> {
    if !device_choices(plan).contains(&devices) {
        return Err(Error::Config(format!(
            "{devices} devices do not divide the model's {} heads and {} hidden units",
            plan.heads, plan.hidden
        )));
    }
    let (beta1, beta2, eps) = AttentionPlan::ADAM;
    let (c, (train, _)) = (plan.config(), plan.data());
    let optimizer = AttentionPlan::optimizer(0.0);
    let mut whole = TinyTransformer::new(c, optimizer, plan.seed, None).await?;
    // A twin of the same seed draws the rows the engine's step will read.
    let mut rows = TinyTransformer::new(c, optimizer, plan.seed, None).await?;
    let layout = whole.layout.clone();
    let mut split = SplitTraining::new(whole.params().await?);
    let mut losses = Vec::with_capacity(CHECK_STEPS);
    for step in 1..=CHECK_STEPS {
        let (ids, labels) = batch_tokens(&train, &rows.next_rows(train.len()));
        let split_loss = split.step(
            (&c, &layout),
            (&ids, &labels),
            devices,
            (plan.lr, beta1, beta2, eps),
        );
        let loss = whole.train(&train, 1, plan.lr).await?[0];
        losses.push((loss, split_loss));
        if !progress(step).await {
            return Ok(None);
        }
    }
    let weights = whole.params().await?;
    let weight_gap = (split.params.iter().zip(&weights))
        .map(|(a, b)| (a - b).abs() / (1.0 + b.abs()))
        .fold(0.0, f32::max);
    Ok(Some(SplitCheck {
        devices,
        losses,
        weight_gap,
        sent_per_step: 2.0 * sent_per_block(&c, devices) * c.blocks as f64,
    }))
}
