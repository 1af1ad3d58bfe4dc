//! One training step split over replicas of the model (data parallelism within a step): each
//! replica computes the mean loss's gradient on its share of the batch, and the leader applies
//! their mean. The batch's mean loss is the mean of equal shares' means, so its gradient is the
//! mean of theirs: a split step equals the unsplit one up to the order the sums run in
//! (docs/theory.md §2, the data-parallel all-reduce). The browser's CPU path uses it to spread a
//! step over Web Workers, each holding a replica; the transport is the caller's.

use super::{StepMetrics, TrainConfig, TrainError, Trainer};
use crate::error::Error;
use crate::model::Layer;

/// Rows a share of the batch keeps at least: below this, sending the weights costs more than the
/// share's arithmetic saves.
pub const MIN_SHARE_ROWS: usize = 8;

/// One replica's part of a split step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShareGradient {
    /// The mean loss and accuracy over the share's rows.
    pub loss: f32,
    pub accuracy: f32,
    /// d(share's mean loss)/d(parameters), in the flat layout.
    pub grads: Vec<f32>,
}

/// Replicas to split a batch of `batch` rows over, with at most `wanted`: the most that divide
/// the batch into equal shares of at least [`MIN_SHARE_ROWS`] rows (equal shares make the batch
/// mean the plain mean of the shares' means). 1 means do not split.
pub fn replicas_for(batch: usize, wanted: usize) -> usize {
    (1..=wanted.max(1))
        .rev()
        .find(|&n| batch.is_multiple_of(n) && batch / n >= MIN_SHARE_ROWS)
        .unwrap_or(1)
}

impl Trainer {
    /// Why this run's steps cannot be split over replicas and still equal the unsplit step, if
    /// they cannot.
    pub fn split_blocker(&self) -> Option<&'static str> {
        if self.is_gpu() {
            return Some("it trains on the GPU");
        }
        if !self.config.precision.is_fp32() {
            return Some("reduced precision scales and rounds the whole batch's gradient");
        }
        for l in &self.compiled.layers {
            match l.layer {
                Layer::BatchNorm { .. } => {
                    return Some("batch norm normalizes over the whole batch");
                }
                Layer::Dropout { .. } => {
                    return Some("dropout draws its masks over the whole batch");
                }
                _ => {}
            }
        }
        None
    }

    /// The config a replica is built from for a split over `replicas`: the same run with a
    /// share of the batch.
    pub fn share_config(&self, replicas: usize) -> TrainConfig {
        TrainConfig {
            batch: self.config.batch / replicas.max(1),
            ..self.config.clone()
        }
    }

    /// Starts a split step: draws the next batch (as an unsplit step would) and deals it out in
    /// `replicas` consecutive equal shares, in order.
    pub fn deal_batch(&mut self, replicas: usize) -> Vec<Vec<u32>> {
        let rows = self.next_batch_rows();
        let share = rows.len() / replicas.max(1);
        rows.chunks(share.max(1)).map(<[u32]>::to_vec).collect()
    }

    /// A replica's part: the loss, accuracy and gradient on `rows` (a share dealt by
    /// [`Trainer::deal_batch`]) at the current weights, as step `step` of the leader's run.
    pub async fn share_gradient(
        &mut self,
        rows: &[u32],
        step: u64,
        out: &mut ShareGradient,
    ) -> Result<(), Error> {
        self.step = step;
        out.loss = self.loss_and_gradient_into(rows, &mut out.grads).await?;
        out.accuracy = self.backend.read_f32(self.host.log_accuracy, 1).await?[0];
        Ok(())
    }

    /// Ends a split step: the mean of the shares' gradients (summed in share order, so every
    /// leader gets the same bits) is applied as one optimizer step. A step whose loss is not
    /// finite stops the run there, its update not applied.
    pub fn finish_split(&mut self, shares: &[ShareGradient]) -> Result<StepMetrics, TrainError> {
        let n = shares.len().max(1) as f32;
        let loss = shares.iter().map(|s| s.loss).sum::<f32>() / n;
        let accuracy = shares.iter().map(|s| s.accuracy).sum::<f32>() / n;
        let step = self.step + 1;
        if !loss.is_finite() {
            self.step = step;
            return Err(TrainError::Diverged { step });
        }
        let len = self.compiled.n_params;
        if let Some(s) = shares.iter().find(|s| s.grads.len() != len) {
            return Err(TrainError::Device(Error::Mismatch(format!(
                "a share's gradient has {} values for {len} parameters",
                s.grads.len()
            ))));
        }
        let mut mean = std::mem::take(&mut self.split_mean);
        mean_of_shares(shares, &mut mean);
        let applied = self.apply_gradient(&mean);
        self.split_mean = mean;
        applied.map_err(TrainError::Device)?;
        Ok(StepMetrics { step, loss, accuracy })
    }
}

/// The mean of the shares' gradients (each as long as the parameters), summed in share order:
/// (g₀ + g₁ + …) / n, in two passes, a copy of the first and then the others added with the
/// division fused into the last, rather than a pass per share and one more to divide: on a
/// small model (W1) this sum was a good part of a split step in the browser.
fn mean_of_shares(shares: &[ShareGradient], mean: &mut Vec<f32>) {
    let n = shares.len().max(1) as f32;
    mean.clear();
    let Some((first, rest)) = shares.split_first() else {
        return;
    };
    mean.extend_from_slice(&first.grads);
    match rest.split_last() {
        None => mean.iter_mut().for_each(|m| *m /= n),
        Some((last, middle)) => {
            for s in middle {
                add_lanes(mean, &s.grads, 1.0);
            }
            add_lanes(mean, &last.grads, n);
        }
    }
}

/// `m[i] = (m[i] + g[i]) / div` (div 1 is exact: a plain add), in wasm SIMD: LLVM leaves the
/// plain loop scalar for wasm32 (as in `ops::gemm_cpu`).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn add_lanes(m: &mut [f32], g: &[f32], div: f32) {
    use core::arch::wasm32::{f32x4_add, f32x4_div, f32x4_splat, v128, v128_load, v128_store};
    let len = m.len().min(g.len());
    let whole = len / 4 * 4;
    let d = f32x4_splat(div);
    for i in (0..whole).step_by(4) {
        // SAFETY: i + 4 <= whole <= both lengths; v128_load and v128_store need no alignment.
        unsafe {
            let mp = m.as_mut_ptr().add(i) as *mut v128;
            let sum = f32x4_add(v128_load(mp), v128_load(g.as_ptr().add(i) as *const v128));
            v128_store(mp, if div == 1.0 { sum } else { f32x4_div(sum, d) });
        }
    }
    for i in whole..len {
        m[i] = (m[i] + g[i]) / div;
    }
}

/// `m[i] = (m[i] + g[i]) / div`.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn add_lanes(m: &mut [f32], g: &[f32], div: f32) {
    m.iter_mut().zip(g).for_each(|(m, g)| *m = (*m + g) / div);
}

/// What trains a run's steps: the trainer alone ([`Alone`]), or a team of replicas that splits
/// each step (the browser's Web Workers).
#[allow(async_fn_in_trait)]
pub trait StepRunner {
    /// Trains up to `steps` steps of `trainer`'s run, as [`Trainer::train`] does.
    async fn train(&mut self, trainer: &mut Trainer, steps: usize) -> Result<Vec<StepMetrics>, TrainError>;
    /// How many replicas share each step (1: unsplit).
    fn replicas(&self) -> usize;
    /// How the replicas exchange weights and gradients, where they split ("shared memory",
    /// "messages": the caller's transport).
    fn exchange(&self) -> Option<&'static str> {
        None
    }
    /// How a step is split among the replicas, where it is: "batch rows" (each a share of the
    /// batch) or "hidden units" (each its own units of a hidden layer, `HiddenShard`).
    fn split(&self) -> Option<&'static str> {
        None
    }
}

/// Every step on the trainer itself.
pub struct Alone;

impl StepRunner for Alone {
    async fn train(&mut self, trainer: &mut Trainer, steps: usize) -> Result<Vec<StepMetrics>, TrainError> {
        trainer.train(steps).await
    }

    fn replicas(&self) -> usize {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replicas_divide_the_batch_into_equal_shares_of_enough_rows() {
        assert_eq!(replicas_for(64, 2), 2);
        assert_eq!(replicas_for(64, 3), 2);
        assert_eq!(replicas_for(64, 16), 8);
        assert_eq!(replicas_for(60, 4), 4);
        assert_eq!(replicas_for(37, 4), 1);
        assert_eq!(replicas_for(8, 4), 1);
        assert_eq!(replicas_for(64, 0), 1);
    }

    #[test]
    fn the_mean_of_shares_is_their_sum_in_order_over_their_count() {
        // Lengths that do and do not fill whole lanes of four.
        for len in [0, 3, 8, 13] {
            for n in 1..=4 {
                let shares: Vec<ShareGradient> = (0..n)
                    .map(|s| ShareGradient {
                        grads: (0..len)
                            .map(|i| ((i * 7 + s * 3) % 11) as f32 * 0.1 - 0.4)
                            .collect(),
                        ..Default::default()
                    })
                    .collect();
                let mut mean = vec![9.0; 2];
                mean_of_shares(&shares, &mut mean);
                let expected: Vec<f32> = (0..len)
                    .map(|i| shares.iter().map(|s| s.grads[i]).fold(0.0, |a, g| a + g) / n as f32)
                    .collect();
                assert_eq!(mean, expected, "{n} shares of {len}");
            }
        }
    }
}
