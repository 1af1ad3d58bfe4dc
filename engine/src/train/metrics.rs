//! What a training step reports: its metrics, or why training stopped.

use serde::{Deserialize, Serialize};

pub use crate::error::TrainError;

/// Metrics of one step, measured on its mini-batch before the update.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepMetrics {
    pub step: u64,
    pub loss: f32,
    pub accuracy: f32,
}
