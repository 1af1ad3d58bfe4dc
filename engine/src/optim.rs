//! Optimizer choices and their hyper-parameters (the kernels live in `ops/`).

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Optimizer {
    /// Plain SGD is momentum 0.
    Sgd {
        momentum: f32,
    },
    Adam {
        beta1: f32,
        beta2: f32,
        eps: f32,
    },
}

impl Optimizer {
    pub fn adam() -> Self {
        Optimizer::Adam {
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
        }
    }

    pub fn label(&self) -> &'static str {
        match self {
            Optimizer::Sgd { momentum } if *momentum == 0.0 => "SGD",
            Optimizer::Sgd { .. } => "SGD + momentum",
            Optimizer::Adam { .. } => "Adam",
        }
    }
}

impl Default for Optimizer {
    fn default() -> Self {
        Self::adam()
    }
}
