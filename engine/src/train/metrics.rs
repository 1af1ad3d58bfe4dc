//! What a training step reports: its metrics, or why training stopped.

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// Metrics of one step, measured on its mini-batch before the update.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepMetrics {
    pub step: u64,
    pub loss: f32,
    pub accuracy: f32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TrainError {
    /// The loss became NaN or infinite at this step; training stops there.
    Diverged {
        step: u64,
    },
    Device(Error),
}

impl std::fmt::Display for TrainError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TrainError::Diverged { step } => write!(
                f,
                "training diverged at step {step}: the loss became NaN or infinite. Lower the learning rate and reset."
            ),
            TrainError::Device(e) => write!(f, "device error: {e}"),
        }
    }
}
