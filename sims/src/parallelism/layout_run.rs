//! A layout trained for real (docs/theory.md §8.6): every step takes the same batch, split into
//! data × micro pieces; each simulated replica adds its micro-batches' gradients (a pipeline's
//! gradient accumulation), the replicas combine theirs through the ring collectives (ZeRO's
//! reduce-scatter, sharded update and allgather, or data parallelism's allreduce), and
//! checkpointing re-runs the forward segment by segment. Done right, none of this changes the
//! update: the runs' weights agree with the plain run's (tested).

use serde::{Deserialize, Serialize};

use super::layout::Layout;
use super::zero::Stage;
use super::zero_run::{self, Workers};
use engine::data::Dataset;
use engine::error::Error;
use engine::train::Trainer;

/// What a layout's training gave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LayoutRun {
    pub label: String,
    pub layout: Layout,
    /// The batch loss of every step (the mean over its micro-batches).
    pub losses: Vec<f32>,
    pub test_accuracy: Option<f32>,
    pub diverged_at: Option<usize>,
    /// Largest |w − w_ref| / (1 + |w_ref|) against the first run's final weights (0 for it).
    pub weight_gap: Option<f32>,
    /// The same after the first step: one update against one update, before rounding
    /// differences compound over training.
    #[serde(default)]
    pub first_step_gap: Option<f32>,
}

/// The trainers a layout needs: `whole` at the batch (it draws the batches, trains an unsplit
/// layout and ends holding the trained model), `part` at the micro-batch's rows when the batch is
/// split (it computes the pieces and, with one replica, applies the update).
pub struct Devices<'a> {
    pub whole: &'a mut Trainer,
    pub part: Option<&'a mut Trainer>,
}

/// Trains `layout` for `steps` steps from `whole`'s weights, calling `progress(losses)` after
/// each step (false stops), then measures `test`. Returns the run, its final weights and its
/// weights after the first step.
pub async fn train<F: std::future::Future<Output = bool>>(
    label: String,
    layout: Layout,
    devices: Devices<'_>,
    steps: usize,
    test: Option<&Dataset>,
    mut progress: impl FnMut(&[f32]) -> F,
) -> Result<(LayoutRun, Vec<f32>, Vec<f32>), Error> {
    let Devices { whole, mut part } = devices;
    let batch = whole.config.batch;
    let rows_per = layout.micro_rows(batch).ok_or_else(|| {
        Error::Config(format!(
            "a batch of {batch} does not split into {} pieces",
            layout.data * layout.micro
        ))
    })?;
    let split = layout.data * layout.micro > 1;
    if split && part.as_ref().map(|p| p.config.batch) != Some(rows_per) {
        return Err(Error::Mismatch(format!("a trainer at {rows_per} rows is needed")));
    }
    let mut run = LayoutRun {
        label,
        layout,
        losses: Vec::new(),
        test_accuracy: None,
        diverged_at: None,
        weight_gap: None,
        first_step_gap: None,
    };
    let mut after_first = Vec::new();
    let mut shards = if layout.data > 1 {
        Some(Workers::new(&whole.params().await?, layout.data))
    } else {
        None
    };
    // One replica without ZeRO keeps the model on `part` (its update kernels are the same as
    // `whole`'s), so no step reads the weights back to hand them over.
    if let (Some(part), None) = (part.as_deref_mut(), &shards) {
        part.set_params(&whole.params().await?)?;
    }
    let optimizer = whole.config.optimizer;
    let n_params = whole.compiled.n_params;
    let mut grads = Vec::new();
    for _ in 0..steps {
        let rows = whole.next_batch_rows();
        let loss = if !split {
            let (loss, g) = match layout.segment {
                Some(k) => {
                    let (l, g, _) = whole.checkpointed_loss_and_gradient(&rows, k).await?;
                    (l, g)
                }
                None => whole.loss_and_gradient(&rows).await?,
            };
            whole.apply_gradient(&g)?;
            loss
        } else {
            let part = part.as_deref_mut().expect("checked above");
            if let Some(w) = &shards {
                part.set_params(&w.weights[0])?;
            }
            let mut loss_sum = 0.0;
            let mut replicas = Vec::with_capacity(layout.data);
            for replica in rows.chunks(rows_per * layout.micro) {
                let mut sum = vec![0.0f32; n_params];
                for micro in replica.chunks(rows_per) {
                    loss_sum += part.loss_and_gradient_into(micro, &mut grads).await?;
                    sum.iter_mut().zip(&grads).for_each(|(s, g)| *s += g);
                }
                let m = layout.micro as f32;
                replicas.push(sum.into_iter().map(|s| s / m).collect::<Vec<f32>>());
            }
            match &mut shards {
                Some(w) => {
                    let t = whole.step() + 1;
                    let lr = whole.learning_rate_at(t);
                    zero_run::step(w, replicas, optimizer, lr, t as u32, layout.zero != Stage::None)?;
                    whole.set_step(t);
                }
                None => part.apply_gradient(&replicas[0])?,
            }
            loss_sum / (layout.data * layout.micro) as f32
        };
        run.losses.push(loss);
        if run.losses.len() == 1 {
            after_first = model_weights(whole, part.as_deref(), &shards).await?;
        }
        if !loss.is_finite() {
            run.diverged_at = Some(run.losses.len());
            break;
        }
        if !progress(&run.losses).await {
            break;
        }
    }
    if shards.is_some() || split {
        let weights = model_weights(whole, part.as_deref(), &shards).await?;
        whole.set_params(&weights)?;
    }
    if let (Some(test), None) = (test, run.diverged_at) {
        run.test_accuracy = Some(whole.evaluate(test).await?.1);
    }
    let weights = whole.params().await?;
    Ok((run, weights, after_first))
}

/// The model's weights: the ZeRO workers' (all alike after the allgather), else the trainer
/// that applied the last update (`part` when the batch is split).
async fn model_weights(
    whole: &Trainer,
    part: Option<&Trainer>,
    shards: &Option<Workers>,
) -> Result<Vec<f32>, Error> {
    match (shards, part) {
        (Some(w), _) => Ok(w.weights[0].clone()),
        (None, Some(p)) => p.params().await,
        (None, None) => whole.params().await,
    }
}

/// Largest |a − b| / (1 + |b|).
pub fn weight_gap(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs() / (1.0 + y.abs()))
        .fold(0.0, f32::max)
}
