//! Training under the dynamic loss scaler: a step's update waits on its gradients' overflow test.

use crate::backend::Pass;
use crate::kernel::StepScalars;
use crate::precision::ScaleEvent;

use super::{TrainError, Trainer};

impl Trainer {
    /// One step under the dynamic loss scaler (docs/theory.md §7.3): the gradients, a readback of
    /// how many overflowed, then the update unless one did (the scale halves; else it may grow).
    pub(super) async fn scaled_step(&mut self, scalars: &StepScalars) -> Result<(), TrainError> {
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
