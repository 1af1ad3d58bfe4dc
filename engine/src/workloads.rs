//! The fixed benchmark workloads (issue "Engine", section Speed), so results compare with other
//! systems: W1 an MLP and W2 a small CNN on the first 10,000 MNIST training images in file order.
//! `lab_sims::bench` runs and times them.

use crate::model::Layer;
use crate::ops::activation::Activation;
use crate::ops::pool::PoolKind;
use crate::optim::Optimizer;
use crate::train::{DataConfig, ImageConfig, ModelConfig, TrainConfig};

pub struct Workload {
    pub name: &'static str,
    pub config: fn() -> TrainConfig,
}

fn mnist_10k() -> DataConfig {
    DataConfig::Images(ImageConfig {
        set: "mnist".into(),
        train_limit: 10_000,
        test_limit: 10_000,
    })
}

/// W1: 784-128 (ReLU) -10, softmax cross-entropy, SGD lr 0.1, batch 64, file order.
pub fn w1() -> TrainConfig {
    TrainConfig {
        data: mnist_10k(),
        model: ModelConfig::Mlp {
            hidden: vec![128],
            activation: Activation::Relu,
        },
        optimizer: Optimizer::Sgd,
        learning_rate: 0.1,
        batch: 64,
        shuffle: false,
        ..Default::default()
    }
}

/// W2: conv 5×5×8 + ReLU + max-pool 2 → conv 5×5×16 + ReLU + max-pool 2 → dense 256→10; SGD lr 0.05.
pub fn w2() -> TrainConfig {
    let relu = Layer::Activation {
        kind: Activation::Relu,
    };
    let pool = Layer::Pool {
        kind: PoolKind::Max,
        size: 2,
        stride: 2,
    };
    TrainConfig {
        model: ModelConfig::Layers {
            layers: vec![
                Layer::Conv2d {
                    filters: 8,
                    kernel: 5,
                    stride: 1,
                    padding: 0,
                },
                relu.clone(),
                pool.clone(),
                Layer::Conv2d {
                    filters: 16,
                    kernel: 5,
                    stride: 1,
                    padding: 0,
                },
                relu,
                pool,
                Layer::Flatten,
                Layer::Dense { units: 10 },
            ],
        },
        learning_rate: 0.05,
        ..w1()
    }
}

pub const WORKLOADS: [Workload; 2] = [
    Workload {
        name: "W1",
        config: w1,
    },
    Workload {
        name: "W2",
        config: w2,
    },
];

/// Milliseconds from a fixed start, natively (the browser passes `performance.now`).
#[cfg(not(target_arch = "wasm32"))]
pub fn native_now_ms() -> f64 {
    use std::sync::OnceLock;
    static START: OnceLock<std::time::Instant> = OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed().as_secs_f64() * 1000.0
}
