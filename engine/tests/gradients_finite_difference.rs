//! The backward pass against central finite differences of the loss, for every activation
//! (dense layers, bias, activation, softmax cross-entropy all take part), on the CPU twins and on
//! the GPU kernels.

use crate::common;

use engine::data::toy::{ToyConfig, ToyKind};
use engine::ops::activation::Activation;
use engine::optim::Optimizer;
use engine::train::{DataConfig, ModelConfig, TrainConfig, Trainer};

fn config(activation: Activation) -> TrainConfig {
    TrainConfig {
        data: common::moons64(),
        model: ModelConfig::Mlp {
            hidden: vec![5, 4],
            activation,
        },
        optimizer: Optimizer::Sgd,
        batch: 16,
        seed: 11,
        ..Default::default()
    }
}

#[test]
fn backprop_matches_finite_differences_on_the_cpu() {
    for act in Activation::ALL {
        let mut t = pollster::block_on(Trainer::new(config(act), None, 1)).unwrap();
        // A few steps first, so the check is not only at the initial point.
        pollster::block_on(t.train(5)).unwrap();
        common::fd_check(&mut t, &format!("CPU {act:?}"));
    }
}

#[test]
fn backprop_matches_finite_differences_on_the_gpu() {
    let ctx = common::gpu();
    for act in [Activation::Tanh, Activation::Relu, Activation::Sigmoid] {
        let mut t = pollster::block_on(Trainer::new(config(act), Some(ctx.clone()), 1)).unwrap();
        pollster::block_on(t.train(5)).unwrap();
        common::fd_check(&mut t, &format!("GPU {act:?}"));
    }
}

#[test]
fn backprop_matches_finite_differences_with_mse_and_dropout() {
    use engine::model::Layer;
    use engine::plan::Loss;
    let ctx = common::gpu();
    let layers = vec![
        Layer::Dense { units: 6 },
        Layer::Activation {
            kind: Activation::Tanh,
        },
        Layer::Dropout { rate: 0.3 },
        Layer::Dense { units: 2 },
    ];
    for (loss, model) in [
        (
            Loss::Mse,
            ModelConfig::Mlp {
                hidden: vec![5, 4],
                activation: Activation::Sigmoid,
            },
        ),
        (
            Loss::CrossEntropy,
            ModelConfig::Layers {
                layers: layers.clone(),
            },
        ),
        (Loss::Mse, ModelConfig::Layers { layers }),
    ] {
        let cfg = TrainConfig {
            loss,
            model,
            ..config(Activation::Tanh)
        };
        for gpu in [None, Some(ctx.clone())] {
            let what = format!(
                "{loss:?} {} on {}",
                cfg.model_label(),
                if gpu.is_some() { "GPU" } else { "CPU" }
            );
            let mut t = pollster::block_on(Trainer::new(cfg.clone(), gpu, 1)).unwrap();
            pollster::block_on(t.train(5)).unwrap();
            common::fd_check(&mut t, &what);
        }
    }
}

#[test]
fn backprop_matches_finite_differences_for_regression() {
    use engine::plan::Loss;
    let ctx = common::gpu();
    for kind in ToyKind::REGRESSION {
        let cfg = TrainConfig {
            data: DataConfig::Toy(ToyConfig {
                kind,
                points: 64,
                noise: 0.05,
                seed: 4,
                test_fraction: 0.0,
                classes: 2,
            }),
            loss: Loss::Mse,
            ..config(Activation::Tanh)
        };
        for gpu in [None, Some(ctx.clone())] {
            let what = format!(
                "regression {kind:?} on {}",
                if gpu.is_some() { "GPU" } else { "CPU" }
            );
            let mut t = pollster::block_on(Trainer::new(cfg.clone(), gpu, 1)).unwrap();
            pollster::block_on(t.train(5)).unwrap();
            common::fd_check(&mut t, &what);
        }
    }
}

/// Each layer's weight-gradient norm (`Trainer::weight_gradient_norms`, on the first batch of
/// training rows) against the norm of that layer's central finite differences of the loss: the
/// weights are found by perturbing each parameter in turn, the layers by the plan's offsets.
#[test]
fn per_layer_gradient_norms_match_finite_differences() {
    let mut t = pollster::block_on(Trainer::new(config(Activation::Sigmoid), None, 1)).unwrap();
    pollster::block_on(t.train(3)).unwrap();
    let norms = pollster::block_on(t.weight_gradient_norms()).unwrap();
    let rows: Vec<u32> = (0..t.config.batch as u32).collect();
    let params = pollster::block_on(t.params()).unwrap();
    let h = 1e-2f32;
    let mut loss_at = |i: usize, delta: f32| {
        let mut p = params.clone();
        p[i] += delta;
        t.set_params(&p).unwrap();
        pollster::block_on(t.loss_and_gradient(&rows)).unwrap().0
    };
    let numeric: Vec<f32> = (0..params.len())
        .map(|i| (loss_at(i, h) - loss_at(i, -h)) / (2.0 * h))
        .collect();
    t.set_params(&params).unwrap();
    let weighted: Vec<_> = t.compiled.layers.iter().filter(|c| c.w_len > 0).collect();
    assert_eq!(
        norms.len(),
        weighted.len(),
        "one norm per dense layer: 2-5-4-2 has three"
    );
    assert_eq!(norms.len(), 3);
    for (c, &norm) in weighted.iter().zip(&norms) {
        let by_fd = numeric[c.w_off..c.w_off + c.w_len]
            .iter()
            .map(|g| g * g)
            .sum::<f32>()
            .sqrt();
        assert!(
            (norm - by_fd).abs() <= 1e-3 + 1e-2 * by_fd,
            "{norm} against {by_fd}"
        );
    }
}
