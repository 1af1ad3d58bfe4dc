//! Training under a scaler that decides between steps: the dynamic loss scaler (a step's update
//! waits on its gradients' overflow test) and per-tensor delayed scaling (each step's amax sets
//! the next step's scales).

use crate::backend::Pass;
use crate::kernel::StepScalars;
use crate::plan::Plan;
use crate::precision::{DelayedScaler, LossScaling, Precision, ScaleEvent};

use super::{TrainError, Trainer};

impl Trainer {
    /// One step under whichever scaler the run has.
    pub(super) async fn decided_step(&mut self, scalars: &StepScalars) -> Result<(), TrainError> {
        if self.delayed.is_some() {
            self.delayed_step(scalars).await
        } else {
            self.scaled_step(scalars).await
        }
    }

    /// One step under the dynamic loss scaler (docs/theory.md §7.3): the gradients, a readback of
    /// how many overflowed, then the update unless one did (the scale halves; else it may grow).
    async fn scaled_step(&mut self, scalars: &StepScalars) -> Result<(), TrainError> {
        let read = [(self.host.nonfinite, 1)];
        let counts = self
            .backend
            .run_and_read(Pass::Gradient, scalars, &read)
            .await
            .map_err(TrainError::Device)?;
        let overflow = counts[0][0].to_bits() > 0;
        self.scale_events.push(ScaleEvent {
            step: self.step,
            scale: scalars.loss_scale,
            overflow,
        });
        if self.scaler.after_backward(overflow) {
            self.backend.run(Pass::Update, scalars);
        }
        Ok(())
    }

    /// One step under delayed scaling (docs/theory.md §7.3): the whole step at the scales set
    /// before it, then each tensor's amax read back and the next step's scales written.
    async fn delayed_step(&mut self, scalars: &StepScalars) -> Result<(), TrainError> {
        let (exponents, amax) = (self.host.scale_exponents, self.host.scale_amax);
        let slots = self.backend.plan().scaled_tensors.len();
        let read = self
            .backend
            .run_and_read(Pass::Train, scalars, &[(amax, slots)])
            .await
            .map_err(TrainError::Device)?;
        if let Some(scaler) = self.delayed.as_mut() {
            scaler.after_step(&read[0]);
            let bits: Vec<u32> = scaler.exponents.iter().map(|&k| k as u32).collect();
            self.backend.write_u32(exponents, &bits);
            self.backend.write_u32(amax, &vec![0; slots]);
        }
        Ok(())
    }

    /// Under delayed scaling, each scaled tensor with the exponent k of the scale 2^k the last
    /// step stored it at (empty otherwise).
    pub fn tensor_scales(&self) -> Vec<(crate::plan::ScaledTensor, i32)> {
        let Some(scaler) = &self.delayed else {
            return Vec::new();
        };
        let tensors = self.backend.plan().scaled_tensors.iter().cloned();
        tensors.zip(scaler.used.iter().copied()).collect()
    }

    /// The loss scale the next step uses (1 without loss scaling).
    pub fn loss_scale(&self) -> f32 {
        self.scaler.scale
    }

    /// Steps the dynamic loss scaler skipped (a gradient overflowed).
    pub fn skipped_steps(&self) -> u64 {
        self.scaler.skipped
    }

    /// Each step's loss scale and overflow under the dynamic loss scaler (empty otherwise).
    pub fn scale_events(&self) -> &[ScaleEvent] {
        &self.scale_events
    }
}

/// The delayed scaler of a plan under `precision` (None without delayed scaling): one scale per
/// tensor the plan stores scaled, each against its format's largest value.
pub(super) fn delayed_scaler(precision: &Precision, plan: &Plan) -> Option<DelayedScaler> {
    let LossScaling::Delayed { history, margin } = precision.loss_scaling else {
        return None;
    };
    let limits = plan.scaled_tensors.iter().map(|t| t.format.spec().max).collect();
    Some(DelayedScaler::new(limits, history, margin))
}
