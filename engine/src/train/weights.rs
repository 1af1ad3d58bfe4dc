//! The weights and optimizer state read and written from outside a training loop: a saved run
//! resumed exactly, the cluster's shared model updated with the workers' averaged gradient.

use serde::{Deserialize, Serialize};

use super::Trainer;
use crate::backend::Pass;
use crate::error::Error;
use crate::kernel::StepScalars;

/// An optimizer's state: the steps taken (t of Adam's bias correction, the schedule's step) and
/// its two vectors in the flat parameter layout — SGD none (zeros), momentum and Nesterov the
/// velocity v in `a`, AdaGrad and RMSProp the accumulator A in `a`, Adam and AdamW the moments m
/// in `a` and v in `b`, LARS the velocity in `a` (docs/theory.md §2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OptimizerState {
    pub step: u64,
    pub a: Vec<f32>,
    pub b: Vec<f32>,
}

impl Trainer {
    /// One optimizer step with the given gradient instead of one computed here (a data-parallel
    /// step applies the workers' averaged gradient): the update kernels alone, at the next step's
    /// learning rate.
    pub fn apply_gradient(&mut self, grads: &[f32]) -> Result<(), Error> {
        let n = self.compiled.n_params;
        if grads.len() != n {
            return Err(Error::Mismatch(format!(
                "{} gradient values given for {n} parameters",
                grads.len()
            )));
        }
        self.backend.write_f32(self.host.grads, grads);
        self.step += 1;
        let scalars = StepScalars {
            slot: 0,
            t: self.step as u32,
            lr: self.learning_rate_at(self.step),
            ..Default::default()
        };
        self.backend.run(Pass::Update, &scalars);
        Ok(())
    }

    /// Replaces the weights (same layout as `params`).
    pub fn set_params(&mut self, params: &[f32]) -> Result<(), Error> {
        let n = self.compiled.n_params;
        if params.len() != n {
            return Err(Error::ParamCount {
                given: params.len(),
                expected: n,
            });
        }
        self.backend.write_f32(self.host.params, params);
        Ok(())
    }

    /// Prunes: `mask` (one value per parameter, 1 kept, 0 pruned) zeroes the pruned weights now
    /// and after every update from now on, whatever the optimizer's state (a trainer made with
    /// `TrainConfig::masked`).
    pub async fn set_mask(&mut self, mask: &[f32]) -> Result<(), Error> {
        let n = self.compiled.n_params;
        if !self.config.masked {
            return Err(Error::Config(
                "set_mask needs a trainer made with TrainConfig::masked".into(),
            ));
        }
        if mask.len() != n {
            return Err(Error::ParamCount {
                given: mask.len(),
                expected: n,
            });
        }
        self.backend.write_f32(self.host.mask, mask);
        let mut params = self.params().await?;
        crate::ops::mask::apply_mask_cpu(mask, &mut params);
        self.backend.write_f32(self.host.params, &params);
        Ok(())
    }

    /// The row indices of the next training batch (advances the sampler).
    pub fn next_batch_rows(&mut self) -> Vec<u32> {
        self.sampler.next_batch(self.config.batch).to_vec()
    }

    /// The current flat parameter vector (layout from `compiled`).
    pub async fn params(&self) -> Result<Vec<f32>, Error> {
        self.backend
            .read_f32(self.host.params, self.compiled.n_params)
            .await
    }

    /// [`Self::params`] into a vector the caller keeps (a split step reads them every step).
    pub async fn params_into(&self, out: &mut Vec<f32>) -> Result<(), Error> {
        self.backend
            .read_f32_into(self.host.params, self.compiled.n_params, out)
            .await
    }

    /// The last step's weight gradients as the optimizer used them (after a reduced-precision
    /// step's rounding and unscaling; all zero before the first step).
    pub async fn last_gradients(&self) -> Result<Vec<f32>, Error> {
        self.backend
            .read_f32(self.host.grads, self.compiled.n_params)
            .await
    }

    /// The last step's weight gradients as backward summed them in fp32, times the loss scale the
    /// step ran at, before they were stored in the gradients' format (docs/theory.md §7.4): what
    /// rounding flushed to zero or overflowed is counted from these. In an fp32 step, the
    /// gradients themselves (unscaled by the update).
    pub async fn unrounded_gradients(&self) -> Result<Vec<f32>, Error> {
        let n = self.compiled.n_params;
        self.backend.read_f32(self.host.grads_unrounded, n).await
    }

    /// Batch norm's running mean and variance (`Compiled::n_running` values; none without it).
    pub async fn running_stats(&self) -> Result<Vec<f32>, Error> {
        match self.compiled.n_running {
            0 => Ok(Vec::new()),
            n => self.backend.read_f32(self.host.running, n).await,
        }
    }

    /// Replaces batch norm's running statistics (same layout as `running_stats`).
    pub fn set_running_stats(&mut self, running: &[f32]) -> Result<(), Error> {
        if running.len() != self.compiled.n_running {
            return Err(Error::Mismatch(format!(
                "{} running statistics given for {}",
                running.len(),
                self.compiled.n_running
            )));
        }
        if !running.is_empty() {
            self.backend.write_f32(self.host.running, running);
        }
        Ok(())
    }

    /// The optimizer's state and step counter, so that a saved run resumes exactly.
    pub async fn optimizer_state(&self) -> Result<OptimizerState, Error> {
        let n = self.compiled.n_params;
        Ok(OptimizerState {
            step: self.step,
            a: self.backend.read_f32(self.host.optimizer_a, n).await?,
            b: self.backend.read_f32(self.host.optimizer_b, n).await?,
        })
    }

    /// Restores what [`Trainer::optimizer_state`] gave (and the step counter with it).
    pub fn set_optimizer_state(&mut self, state: &OptimizerState) -> Result<(), Error> {
        let n = self.compiled.n_params;
        if state.a.len() != n || state.b.len() != n {
            return Err(Error::Mismatch(format!(
                "optimizer state of {} and {} values for {n} parameters",
                state.a.len(),
                state.b.len()
            )));
        }
        self.backend.write_f32(self.host.optimizer_a, &state.a);
        self.backend.write_f32(self.host.optimizer_b, &state.b);
        self.step = state.step;
        Ok(())
    }
}

impl Trainer {
    /// Carries a run over from `old` to this trainer, built for the same model and data with
    /// other training hyper-parameters (learning rate, optimizer, regularization, batch size,
    /// backend): the weights, the step count, the batch order, and the optimizer's running
    /// averages when both use the same kind of optimizer (other kinds start them afresh).
    /// Returns whether the optimizer's state carried over.
    pub async fn carry_on_from(&mut self, old: &Trainer) -> Result<bool, Error> {
        if old.compiled.n_params != self.compiled.n_params || old.data.len() != self.data.len() {
            return Err(Error::Mismatch(format!(
                "a run of {} parameters on {} samples cannot carry on as one of {} on {}",
                old.compiled.n_params,
                old.data.len(),
                self.compiled.n_params,
                self.data.len()
            )));
        }
        self.set_params(&old.params().await?)?;
        self.sampler = old.sampler.clone();
        let same_kind =
            std::mem::discriminant(&old.config.optimizer) == std::mem::discriminant(&self.config.optimizer);
        if same_kind {
            self.set_optimizer_state(&old.optimizer_state().await?)?;
        } else {
            self.step = old.step;
        }
        Ok(same_kind)
    }
}
