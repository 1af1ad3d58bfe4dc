//! A training step's memory by class, from the engine's own buffers, against hand counts.

use engine::model::Layer;
use engine::ops::activation::Activation;
use engine::optim::Optimizer;
use engine::train::{ModelConfig, TrainConfig, Trainer};
use lab_sims::parallelism::memory::step_memory;

use crate::common;

fn mlp(optimizer: Optimizer, data: engine::train::DataConfig) -> TrainConfig {
    TrainConfig {
        data,
        model: ModelConfig::Layers {
            layers: vec![
                Layer::Dense { units: 32 },
                Layer::Activation {
                    kind: Activation::Relu,
                },
                Layer::Dense { units: 10 },
            ],
        },
        optimizer,
        batch: 32,
        ..Default::default()
    }
}

#[test]
fn an_mlps_step_memory_is_its_hand_count() {
    let adam = Optimizer::Adam {
        beta1: 0.9,
        beta2: 0.999,
        eps: 1e-8,
    };
    for (optimizer, copies) in [
        (Optimizer::Sgd, 0u64),
        (Optimizer::Momentum { momentum: 0.9 }, 1),
        (adam, 2),
    ] {
        let (config, data, _) = common::mnist(200, 100);
        let t = pollster::block_on(Trainer::with_data(mlp(optimizer, config), data, None, 1)).unwrap();
        let m = step_memory(t.plan(), &optimizer);
        // 784·32 + 32 + 32·10 + 10 parameters, 4 bytes each.
        let params = (784 * 32 + 32 + 32 * 10 + 10) * 4;
        assert_eq!(m.weights, params, "{optimizer:?}");
        assert_eq!(m.gradients, params);
        assert_eq!(m.optimizer, copies * params, "{optimizer:?}");
        // Kept for the backward: the batch's inputs (32 × 784), each layer's output
        // (32 × 32, 32 × 32, 32 × 10).
        let acts: Vec<u64> = m.activations.iter().map(|a| a.1).collect();
        assert_eq!(
            acts,
            [32 * 784 * 4, 32 * 32 * 4, 32 * 32 * 4, 32 * 10 * 4],
            "{:?}",
            m.activations
        );
        assert_eq!(
            m.step_bytes(),
            m.weights + m.gradients + m.optimizer + m.activation_bytes() + m.workspace
        );
    }
}

/// A conv-BN-ReLU net: batch norm's running mean and variance count with the weights, its saved
/// statistics with the activations; the flatten shares its input's buffer.
#[test]
fn a_batch_norm_cnns_step_memory_is_its_hand_count() {
    let (config, data, _) = common::mnist(200, 100);
    let cfg = TrainConfig {
        model: ModelConfig::Layers {
            layers: vec![
                common::conv3x3(4, 1),
                Layer::BatchNorm { momentum: 0.1 },
                Layer::Activation {
                    kind: Activation::Relu,
                },
                Layer::Flatten,
                Layer::Dense { units: 10 },
            ],
        },
        batch: 8,
        ..mlp(Optimizer::Sgd, config)
    };
    let t = pollster::block_on(Trainer::with_data(cfg, data, None, 1)).unwrap();
    let m = step_memory(t.plan(), &Optimizer::Sgd);
    // conv 4·1·3·3 + 4, BN γ and β 2·4, dense 3136·10 + 10; running mean and variance 2·4.
    assert_eq!(m.weights, (40 + 8 + 31_370 + 8) * 4);
    assert_eq!(m.optimizer, 0);
    let image = 8 * 4 * 28 * 28 * 4;
    let acts: Vec<(&str, u64)> = m.activations.iter().map(|(n, b)| (n.as_str(), *b)).collect();
    assert_eq!(
        acts,
        [
            ("batch.x", 8 * 784 * 4),
            ("train.act1", image),
            ("train.act2", image),
            ("train.norm_stats2", 2 * 4 * 4),
            ("train.act3", image),
            ("train.act5", 8 * 10 * 4),
        ]
    );
}
