//! Normalization and residual blocks (docs/theory.md §1.4–1.5): backprop through layer norm,
//! batch norm and residual blocks (identity and projected skips) against finite differences on
//! both backends; batch norm's running statistics against the batches' own mean and variance;
//! prediction with them against the closed form; a block whose last layer is zero is the
//! identity, so the model equals the one without it; and a CNN with them trains alike on the GPU
//! and the CPU.

use crate::common;

use engine::data::Dataset;
use engine::model::{Layer, BN_MOMENTUM};
use engine::ops::activation::Activation;
use engine::ops::norm::NORM_EPS;
use engine::optim::Optimizer;
use engine::train::{ModelConfig, TrainConfig, Trainer};

fn act(kind: Activation) -> Layer {
    Layer::Activation { kind }
}

fn toy(layers: Vec<Layer>, batch: usize) -> TrainConfig {
    TrainConfig {
        data: common::moons64(),
        model: ModelConfig::Layers { layers },
        optimizer: Optimizer::Sgd,
        batch,
        seed: 11,
        ..Default::default()
    }
}

/// Dense layers with layer norm, batch norm, an identity block and a projected block.
fn dense_net() -> Vec<Layer> {
    vec![
        Layer::Dense { units: 6 },
        Layer::LayerNorm,
        act(Activation::Tanh),
        Layer::Residual {
            layers: vec![
                Layer::Dense { units: 6 },
                Layer::BatchNorm {
                    momentum: BN_MOMENTUM,
                },
                act(Activation::Tanh),
                Layer::Dense { units: 6 },
            ],
            projection: false,
        },
        Layer::Residual {
            layers: vec![Layer::Dense { units: 4 }, act(Activation::Sigmoid)],
            projection: true,
        },
        Layer::BatchNorm {
            momentum: BN_MOMENTUM,
        },
        Layer::Dense { units: 2 },
    ]
}

#[test]
fn backprop_through_norms_and_blocks_matches_finite_differences() {
    let ctx = common::gpu();
    for gpu in [None, Some(ctx)] {
        let what = if gpu.is_some() { "GPU" } else { "CPU" };
        let mut t = pollster::block_on(Trainer::with_data(
            toy(dense_net(), 16),
            data(&toy(vec![], 16)),
            gpu,
            1,
        ))
        .unwrap();
        pollster::block_on(t.train(5)).unwrap();
        common::fd_check(
            &mut t,
            &format!("{what}: layer norm, batch norm, residual blocks"),
        );
    }
}

fn data(config: &TrainConfig) -> Dataset {
    config.data.load(|_| Err("no files".into())).unwrap().0
}

/// Batch norm on the raw 2-D points: its running mean and variance after each step are the
/// blend of the previous ones with the batch's own mean and unbiased variance, computed here
/// from the data; and predicting normalizes with them, by the closed form.
#[test]
fn running_statistics_follow_the_batches_and_prediction_uses_them() {
    let config = toy(
        vec![Layer::BatchNorm { momentum: 0.2 }, Layer::Dense { units: 2 }],
        8,
    );
    let d = data(&config);
    let mut t = pollster::block_on(Trainer::with_data(config, d.clone(), None, 1)).unwrap();
    let mut expected = vec![0.0f64, 1.0, 0.0, 1.0];
    assert_eq!(
        pollster::block_on(t.running_stats()).unwrap(),
        vec![0.0, 1.0, 0.0, 1.0]
    );
    for _ in 0..4 {
        let rows = t.next_batch_rows();
        let before = pollster::block_on(t.running_stats()).unwrap();
        let (_, g) = pollster::block_on(t.loss_and_gradient(&rows)).unwrap();
        assert_eq!(
            pollster::block_on(t.running_stats()).unwrap(),
            before,
            "a gradient-only pass leaves the running statistics alone"
        );
        t.apply_gradient(&g).unwrap();
        for f in 0..2 {
            let v: Vec<f64> = rows.iter().map(|&r| d.x[r as usize * 2 + f] as f64).collect();
            let mean = v.iter().sum::<f64>() / v.len() as f64;
            let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (v.len() - 1) as f64;
            expected[2 * f] = 0.8 * expected[2 * f] + 0.2 * mean;
            expected[2 * f + 1] = 0.8 * expected[2 * f + 1] + 0.2 * var;
        }
        let running = pollster::block_on(t.running_stats()).unwrap();
        for (got, want) in running.iter().zip(&expected) {
            assert!(
                (*got as f64 - want).abs() < 1e-5,
                "running {running:?} vs {expected:?}"
            );
        }
    }
    // p = softmax(W · (γ (x − mean) / √(var + ε) + β) + b) with the running mean and variance.
    let (p, running) = (
        pollster::block_on(t.params()).unwrap(),
        pollster::block_on(t.running_stats()).unwrap(),
    );
    let x = &d.x[..2];
    let h: Vec<f32> = (0..2)
        .map(|f| p[f] * (x[f] - running[2 * f]) / (running[2 * f + 1] + NORM_EPS).sqrt() + p[2 + f])
        .collect();
    let z: Vec<f32> = (0..2)
        .map(|o| p[4 + 2 * o] * h[0] + p[4 + 2 * o + 1] * h[1] + p[8 + o])
        .collect();
    let e: Vec<f32> = z.iter().map(|v| (v - z[0].max(z[1])).exp()).collect();
    let want = e[0] / (e[0] + e[1]);
    let got = pollster::block_on(t.predict(x)).unwrap()[0];
    assert!((got - want).abs() < 1e-5, "predicted {got}, closed form {want}");
}

/// A block whose last dense layer is all zeros adds nothing: the model predicts exactly as the
/// same model without the block.
#[test]
fn a_block_with_a_zero_last_layer_is_the_identity() {
    let plain = vec![
        Layer::Dense { units: 5 },
        act(Activation::Tanh),
        Layer::Dense { units: 2 },
    ];
    let with_block = vec![
        plain[0].clone(),
        plain[1].clone(),
        Layer::Residual {
            layers: vec![
                Layer::Dense { units: 3 },
                act(Activation::Relu),
                Layer::Dense { units: 5 },
            ],
            projection: false,
        },
        plain[2].clone(),
    ];
    let d = data(&toy(vec![], 8));
    let mut a = pollster::block_on(Trainer::with_data(toy(plain, 8), d.clone(), None, 16)).unwrap();
    let mut b = pollster::block_on(Trainer::with_data(toy(with_block, 8), d.clone(), None, 16)).unwrap();
    let pa = pollster::block_on(a.params()).unwrap();
    let mut pb = pollster::block_on(b.params()).unwrap();
    let c = &b.compiled;
    // dense, tanh, block start, dense, relu, dense, block end, dense.
    let (first, inner_last, last) = (&c.layers[0], &c.layers[5], &c.layers[7]);
    assert!(
        matches!(inner_last.layer, Layer::Dense { units: 5 })
            && matches!(c.layers[6].layer, Layer::SkipAdd { .. })
    );
    pb[first.w_off..first.b_off + 5].copy_from_slice(&pa[..15]);
    pb[inner_last.w_off..inner_last.b_off + 5].fill(0.0);
    pb[last.w_off..last.b_off + 2].copy_from_slice(&pa[15..]);
    b.set_params(&pb).unwrap();
    let x = &d.x[..32];
    assert_eq!(
        pollster::block_on(a.predict(x)).unwrap(),
        pollster::block_on(b.predict(x)).unwrap()
    );
}

/// A small residual CNN with batch norm on MNIST: the GPU's loss curve follows the CPU's, and the
/// loss falls.
#[test]
fn a_residual_cnn_with_batch_norm_trains_alike_on_gpu_and_cpu() {
    let conv = common::conv3x3;
    let bn = Layer::BatchNorm {
        momentum: BN_MOMENTUM,
    };
    let relu = act(Activation::Relu);
    let layers = vec![
        conv(4, 2),
        bn.clone(),
        relu.clone(),
        Layer::Residual {
            layers: vec![conv(4, 1), bn.clone(), relu.clone(), conv(4, 1), bn.clone()],
            projection: false,
        },
        relu.clone(),
        Layer::Residual {
            layers: vec![conv(8, 2), Layer::LayerNorm],
            projection: true,
        },
        relu,
        Layer::Flatten,
        Layer::Dense { units: 10 },
    ];
    let (data, train, test) = common::mnist(256, 100);
    let config = TrainConfig {
        data,
        model: ModelConfig::Layers { layers },
        optimizer: Optimizer::adam(),
        learning_rate: 0.01,
        batch: 16,
        ..Default::default()
    };
    let mut curves = Vec::new();
    for gpu in [None, Some(common::gpu())] {
        let mut t = pollster::block_on(Trainer::with_data(config.clone(), train.clone(), gpu, 100)).unwrap();
        let losses: Vec<f32> = pollster::block_on(t.train(40))
            .unwrap()
            .iter()
            .map(|m| m.loss)
            .collect();
        let accuracy = pollster::block_on(t.evaluate(test.as_ref().unwrap())).unwrap().1;
        curves.push((losses, accuracy, pollster::block_on(t.running_stats()).unwrap()));
    }
    let (cpu, gpu) = (&curves[0], &curves[1]);
    for (i, (c, g)) in cpu.0.iter().zip(&gpu.0).enumerate() {
        assert!(
            (c - g).abs() <= 2e-3 + 2e-3 * c.abs(),
            "step {i}: CPU loss {c}, GPU {g}"
        );
    }
    // The running variances agree. The means need not: a bias just before batch norm has a zero
    // gradient in exact arithmetic, and Adam turns its rounding noise into steps of ±η that
    // differ between the backends; the loss never sees them, as batch norm removes the mean.
    let variances = |r: &[f32]| r.iter().skip(1).step_by(2).copied().collect::<Vec<_>>();
    common::assert_close(
        "running variances",
        &variances(&gpu.2),
        &variances(&cpu.2),
        1e-3,
        1e-2,
    );
    let early: f32 = cpu.0[..5].iter().sum::<f32>() / 5.0;
    let late: f32 = cpu.0[35..].iter().sum::<f32>() / 5.0;
    assert!(late < 0.7 * early, "the loss falls: {early} → {late}");
    eprintln!(
        "residual CNN: loss {early:.3} → {late:.3}, test accuracy CPU {:.3}, GPU {:.3}",
        cpu.1, gpu.1
    );
}
