//! A whole training run on the GPU against the same run on the CPU twins.

use crate::common;

use common::gpu;
use engine::data::toy::{ToyConfig, ToyKind};
use engine::ops::activation::Activation;
use engine::optim::Optimizer;
use engine::train::{DataConfig, ModelConfig, TrainConfig, Trainer};

/// Per-step losses may differ by float summation order only; over 100 Adam steps that stays
/// within this (absolute + relative to the loss) tolerance.
const LOSS_TOL: f32 = 2e-3;

fn mean(xs: &[f32]) -> f32 {
    xs.iter().sum::<f32>() / xs.len() as f32
}

#[test]
fn gpu_and_cpu_give_the_same_falling_loss_curve_over_100_steps() {
    let ctx = gpu();
    for (kind, optimizer) in [
        (ToyKind::Circle, Optimizer::adam()),
        (ToyKind::Xor, Optimizer::Momentum { momentum: 0.9 }),
    ] {
        let config = TrainConfig {
            data: DataConfig::Toy(ToyConfig {
                kind,
                points: 300,
                noise: 0.05,
                seed: 3,
                test_fraction: 0.0,
                classes: 2,
            }),
            model: ModelConfig::Mlp {
                hidden: vec![8, 8],
                activation: Activation::Tanh,
            },
            optimizer,
            learning_rate: if matches!(optimizer, Optimizer::Adam { .. }) {
                0.03
            } else {
                0.1
            },
            batch: 30,
            ..Default::default()
        };
        let mut on_gpu = pollster::block_on(Trainer::new(config.clone(), Some(ctx.clone()), 16)).unwrap();
        let mut on_cpu = pollster::block_on(Trainer::new(config, None, 16)).unwrap();
        assert!(on_gpu.is_gpu() && !on_cpu.is_gpu());
        let g = pollster::block_on(on_gpu.train(100)).unwrap();
        let c = pollster::block_on(on_cpu.train(100)).unwrap();
        for (a, b) in g.iter().zip(&c) {
            assert_eq!(a.step, b.step);
            assert!(
                (a.loss - b.loss).abs() <= LOSS_TOL * (1.0 + b.loss),
                "{kind:?} step {}: GPU loss {} vs CPU {}",
                a.step,
                a.loss,
                b.loss
            );
        }
        let losses: Vec<f32> = c.iter().map(|m| m.loss).collect();
        let (start, end) = (mean(&losses[..10]), mean(&losses[90..]));
        eprintln!("{kind:?} {}: loss {start:.3} → {end:.3}", optimizer.label());
        assert!(
            end < 0.6 * start,
            "{kind:?}: the loss should fall ({start} → {end})"
        );
        // Predictions agree too.
        let grid = engine::heatmap_grid(4, 1.0);
        let pg = pollster::block_on(on_gpu.predict(&grid)).unwrap();
        let pc = pollster::block_on(on_cpu.predict(&grid)).unwrap();
        common::assert_close("probabilities", &pg, &pc, 2e-3, 2e-3);
    }
    // Each (file, entry point) compiled once and shared by both sessions.
    assert!(
        ctx.cached_pipelines() <= 12,
        "{} pipelines",
        ctx.cached_pipelines()
    );
}

#[test]
fn divergence_stops_with_the_step_it_happened_at() {
    let config = TrainConfig {
        learning_rate: 1e30,
        model: ModelConfig::Mlp {
            hidden: vec![16, 16],
            activation: Activation::Relu,
        },
        optimizer: Optimizer::Sgd,
        ..Default::default()
    };
    let mut t = pollster::block_on(Trainer::new(config, None, 1)).unwrap();
    let err = pollster::block_on(t.train(50)).unwrap_err();
    match err {
        engine::train::TrainError::Diverged { step } => assert!((1..=50).contains(&step)),
        e => panic!("unexpected {e:?}"),
    }
}

#[test]
fn too_large_a_model_is_refused_before_allocating() {
    let ctx = gpu();
    let config = TrainConfig {
        model: ModelConfig::Mlp {
            hidden: vec![20_000, 20_000],
            activation: Activation::Tanh,
        },
        ..Default::default()
    };
    let err = pollster::block_on(Trainer::new(config.clone(), Some(ctx.clone()), 1))
        .err()
        .expect("refused");
    assert!(
        matches!(&err, engine::error::Error::GpuRefused(m) if m.contains("MB")),
        "{err:?}"
    );
    // The CPU path has its own budget: 1.6 GB of weights alone is refused, not allocated.
    let err = pollster::block_on(Trainer::new(config, None, 1))
        .err()
        .expect("refused on the CPU path");
    assert!(
        matches!(&err, engine::error::Error::TooLarge(m) if m.contains("the CPU path allows 512 MB")),
        "{err:?}"
    );
}

#[test]
fn invalid_configs_are_refused_with_a_reason() {
    for bad in [
        TrainConfig {
            learning_rate: f32::NAN,
            ..Default::default()
        },
        TrainConfig {
            batch: 0,
            ..Default::default()
        },
        TrainConfig {
            model: ModelConfig::Mlp {
                hidden: vec![0],
                activation: Activation::Tanh,
            },
            ..Default::default()
        },
    ] {
        let refused = pollster::block_on(Trainer::new(bad, None, 1)).err();
        assert!(
            matches!(refused, Some(engine::error::Error::Config(_))),
            "{refused:?}"
        );
    }
}

#[test]
fn every_optimizer_trains_alike_on_gpu_and_cpu() {
    let ctx = gpu();
    for optimizer in Optimizer::all() {
        let config = TrainConfig {
            data: DataConfig::Toy(ToyConfig {
                kind: ToyKind::Gaussians,
                points: 200,
                noise: 0.05,
                seed: 4,
                test_fraction: 0.0,
                classes: 2,
            }),
            model: ModelConfig::Mlp {
                hidden: vec![6],
                activation: Activation::Tanh,
            },
            optimizer,
            learning_rate: optimizer.default_learning_rate() * 3.0,
            schedule: engine::optim::Schedule {
                warmup_steps: 5,
                ..Default::default()
            },
            batch: 20,
            ..Default::default()
        };
        let mut on_gpu = pollster::block_on(Trainer::new(config.clone(), Some(ctx.clone()), 1)).unwrap();
        let mut on_cpu = pollster::block_on(Trainer::new(config, None, 1)).unwrap();
        let g = pollster::block_on(on_gpu.train(30)).unwrap();
        let c = pollster::block_on(on_cpu.train(30)).unwrap();
        for (a, b) in g.iter().zip(&c) {
            assert!(
                (a.loss - b.loss).abs() <= LOSS_TOL * (1.0 + b.loss),
                "{} step {}: GPU {} vs CPU {}",
                optimizer.label(),
                a.step,
                a.loss,
                b.loss
            );
        }
        let pg = pollster::block_on(on_gpu.params()).unwrap();
        let pc = pollster::block_on(on_cpu.params()).unwrap();
        common::assert_close(&format!("{} weights", optimizer.label()), &pg, &pc, 1e-3, 1e-3);
    }
}

/// The regression sets: one output on MSE against real targets, alike on both backends, and the
/// held-out test loss ends far below the targets' variance (what predicting their mean scores).
#[test]
fn regression_trains_alike_on_gpu_and_cpu_and_generalizes() {
    use engine::plan::Loss;
    let ctx = gpu();
    for kind in ToyKind::REGRESSION {
        let config = TrainConfig {
            data: DataConfig::Toy(ToyConfig {
                kind,
                points: 400,
                noise: 0.02,
                seed: 5,
                test_fraction: 0.25,
                classes: 2,
            }),
            model: ModelConfig::Mlp {
                hidden: vec![8, 8],
                activation: Activation::Tanh,
            },
            loss: Loss::Mse,
            optimizer: Optimizer::adam(),
            learning_rate: 0.02,
            batch: 25,
            ..Default::default()
        };
        let (_, test) = config.data.load(|_| Err("no files".into())).unwrap();
        let test = test.expect("a test split");
        let m = mean(&test.targets);
        let variance = mean(&test.targets.iter().map(|t| (t - m).powi(2)).collect::<Vec<_>>());
        let mut on_gpu = pollster::block_on(Trainer::new(config.clone(), Some(ctx.clone()), 16)).unwrap();
        let mut on_cpu = pollster::block_on(Trainer::new(config, None, 16)).unwrap();
        let (mut g, mut c) = (Vec::new(), Vec::new());
        for _ in 0..3 {
            g.extend(pollster::block_on(on_gpu.train(100)).unwrap());
            c.extend(pollster::block_on(on_cpu.train(100)).unwrap());
        }
        for (a, b) in g.iter().zip(&c).take(100) {
            assert!(
                (a.loss - b.loss).abs() <= LOSS_TOL * (1.0 + b.loss),
                "{kind:?} step {}: GPU loss {} vs CPU {}",
                a.step,
                a.loss,
                b.loss
            );
        }
        let (gpu_test, _) = pollster::block_on(on_gpu.evaluate(&test)).unwrap();
        let (cpu_test, _) = pollster::block_on(on_cpu.evaluate(&test)).unwrap();
        eprintln!(
            "{kind:?}: train loss {:.4} → {:.4}, test MSE GPU {gpu_test:.4} CPU {cpu_test:.4}, target variance {variance:.4}",
            g[0].loss,
            g[g.len() - 1].loss
        );
        assert!((gpu_test - cpu_test).abs() <= 0.1 * cpu_test + 1e-3);
        assert!(
            cpu_test < 0.1 * variance,
            "{kind:?}: test MSE {cpu_test} vs variance {variance}"
        );
    }
}

/// Input features: with x² and y² a network without hidden layers separates the circle, which it
/// cannot from x and y alone; both backends agree.
#[test]
fn input_features_let_a_linear_model_learn_the_circle() {
    use engine::data::features::Feature;
    let ctx = gpu();
    let config = |features: Vec<Feature>| TrainConfig {
        data: DataConfig::Toy(ToyConfig {
            kind: ToyKind::Circle,
            points: 200,
            noise: 0.02,
            seed: 8,
            test_fraction: 0.0,
            classes: 2,
        }),
        model: ModelConfig::Mlp {
            hidden: vec![],
            activation: Activation::Tanh,
        },
        optimizer: Optimizer::adam(),
        learning_rate: 0.1,
        batch: 20,
        features,
        ..Default::default()
    };
    let accuracy = |config: TrainConfig, gpu| {
        let mut t = pollster::block_on(Trainer::new(config.clone(), gpu, 200)).unwrap();
        pollster::block_on(t.train(200)).unwrap();
        let (data, _) = config.data.load(|_| Err("no files".into())).unwrap();
        pollster::block_on(t.evaluate(&data)).unwrap().1
    };
    let squares = vec![Feature::XSquared, Feature::YSquared];
    let (on_gpu, on_cpu) = (
        accuracy(config(squares.clone()), Some(ctx.clone())),
        accuracy(config(squares), None),
    );
    let plain = accuracy(config(vec![]), None);
    eprintln!("circle without hidden layers: x², y² → {on_cpu} (GPU {on_gpu}); x, y → {plain}");
    assert!(on_cpu >= 0.97 && on_gpu >= 0.97, "x², y²: {on_cpu} / {on_gpu}");
    assert!(plain < 0.8, "x, y alone: {plain}");
}

/// Every layer's output in the predict pass: the same on both backends, the first layer equals
/// x·Wᵀ + b by hand, and the last one's softmax is the prediction.
#[test]
fn layer_outputs_for_the_network_diagram() {
    let ctx = gpu();
    let config = TrainConfig {
        data: DataConfig::Toy(ToyConfig {
            kind: ToyKind::Spiral,
            points: 100,
            noise: 0.05,
            seed: 2,
            test_fraction: 0.0,
            classes: 3,
        }),
        model: ModelConfig::Mlp {
            hidden: vec![5, 4],
            activation: Activation::Tanh,
        },
        batch: 10,
        ..Default::default()
    };
    let points = engine::heatmap_grid(7, 1.0);
    let mut outs = Vec::new();
    for gpu in [Some(ctx.clone()), None] {
        let mut t = pollster::block_on(Trainer::new(config.clone(), gpu, 49)).unwrap();
        pollster::block_on(t.train(20)).unwrap();
        let (probs, layers) = pollster::block_on(t.predict_layers(&points)).unwrap();
        assert_eq!(layers.len(), 5, "dense, tanh, dense, tanh, dense");
        let params = pollster::block_on(t.params()).unwrap();
        let l0 = &t.compiled.layers[0];
        for (row, p) in points.chunks(2).enumerate() {
            for j in 0..5 {
                let w = &params[l0.w_off + 2 * j..l0.w_off + 2 * j + 2];
                let want = p[0] * w[0] + p[1] * w[1] + params[l0.b_off + j];
                assert!((layers[0][row * 5 + j] - want).abs() < 1e-5);
                assert!((layers[1][row * 5 + j] - want.tanh()).abs() < 1e-5);
            }
            let logits = &layers[4][row * 3..row * 3 + 3];
            let m = logits.iter().copied().fold(f32::MIN, f32::max);
            let z: f32 = logits.iter().map(|l| (l - m).exp()).sum();
            for c in 0..3 {
                assert!((probs[row * 3 + c] - (logits[c] - m).exp() / z).abs() < 1e-5);
            }
        }
        outs.push(layers);
    }
    for (g, c) in outs[0].iter().zip(&outs[1]) {
        for (a, b) in g.iter().zip(c) {
            assert!((a - b).abs() < 1e-3, "GPU {a} vs CPU {b}");
        }
    }
}

#[test]
fn a_lost_device_says_why_and_a_fresh_context_trains_on() {
    let ctx = gpu();
    assert_eq!(ctx.lost(), None);
    ctx.device.destroy();
    let _ = ctx.device.poll(wgpu::PollType::Poll);
    let why = ctx.lost().expect("the loss is reported");
    assert!(why.contains("Destroyed"), "{why}");
    // What the app does on a loss: a new context, the trainer rebuilt there from saved weights.
    let mut before = pollster::block_on(Trainer::new(TrainConfig::default(), None, 1)).unwrap();
    pollster::block_on(before.train(5)).unwrap();
    let saved = pollster::block_on(before.params()).unwrap();
    let mut after = pollster::block_on(Trainer::new(TrainConfig::default(), Some(gpu()), 1)).unwrap();
    after.set_params(&saved).unwrap();
    assert_eq!(pollster::block_on(after.params()).unwrap(), saved);
    pollster::block_on(after.train(5)).unwrap();
}
