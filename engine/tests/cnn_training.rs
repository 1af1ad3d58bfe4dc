//! A small CNN (conv → ReLU → max-pool → flatten → dense) on the first MNIST images: GPU and CPU
//! give the same loss curve, the loss falls, and backprop through conv and pool matches finite
//! differences. Needs `data/` (setup prepares it).

use crate::common;

use common::conv_relu_pool;

use std::path::PathBuf;

use engine::data::Dataset;
use engine::model::Layer;
use engine::ops::pool::PoolKind;
use engine::optim::Optimizer;
use engine::train::{DataConfig, ImageConfig, ModelConfig, TrainConfig, Trainer};

fn config(pool: PoolKind, optimizer: Optimizer, batch: usize) -> TrainConfig {
    TrainConfig {
        data: DataConfig::Images(ImageConfig {
            set: "mnist".into(),
            train_limit: 512,
            test_limit: 200,
        }),
        model: ModelConfig::Layers {
            layers: [
                conv_relu_pool(4, 3, 2, 1, pool).as_slice(),
                &[Layer::Flatten, Layer::Dense { units: 10 }],
            ]
            .concat(),
        },
        optimizer,
        learning_rate: optimizer.default_learning_rate() * 5.0,
        batch,
        ..Default::default()
    }
}

fn data(config: &TrainConfig) -> (Dataset, Dataset) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
    let (train, test) = config
        .data
        .load(|name| std::fs::read(dir.join(name)).map_err(|e| format!("{name}: {e} (run scripts/setup.sh)")))
        .unwrap();
    (train, test.unwrap())
}

#[test]
fn cnn_trains_alike_on_gpu_and_cpu() {
    let ctx = common::gpu();
    for (pool, optimizer) in [
        (PoolKind::Max, Optimizer::adam()),
        (PoolKind::Avg, Optimizer::Momentum { momentum: 0.9 }),
    ] {
        let cfg = config(pool, optimizer, 32);
        let (train, test) = data(&cfg);
        let mut on_gpu = pollster::block_on(Trainer::with_data(
            cfg.clone(),
            train.clone(),
            Some(ctx.clone()),
            100,
        ))
        .unwrap();
        let mut on_cpu = pollster::block_on(Trainer::with_data(cfg, train, None, 100)).unwrap();
        let g = pollster::block_on(on_gpu.train(60)).unwrap();
        let c = pollster::block_on(on_cpu.train(60)).unwrap();
        for (a, b) in g.iter().zip(&c) {
            assert!(
                (a.loss - b.loss).abs() <= 5e-3 * (1.0 + b.loss),
                "{pool:?} step {}: GPU {} vs CPU {}",
                a.step,
                a.loss,
                b.loss
            );
        }
        let mean =
            |xs: &[engine::train::StepMetrics]| xs.iter().map(|m| m.loss).sum::<f32>() / xs.len() as f32;
        let (start, end) = (mean(&c[..10]), mean(&c[50..]));
        let (gl, ga) = pollster::block_on(on_gpu.evaluate(&test)).unwrap();
        let (cl, ca) = pollster::block_on(on_cpu.evaluate(&test)).unwrap();
        eprintln!(
            "{pool:?} {}: loss {start:.3} → {end:.3}; test accuracy GPU {ga:.3} CPU {ca:.3}",
            optimizer.label()
        );
        assert!(
            end < 0.6 * start,
            "{pool:?}: the loss should fall ({start} → {end})"
        );
        assert!(
            (gl - cl).abs() < 1e-2 && (ga - ca).abs() <= 0.01,
            "test metrics agree"
        );
        assert!(
            ca > 0.5,
            "60 steps on 512 digits already beat chance by far ({ca})"
        );
    }
}

#[test]
fn cnn_backprop_matches_finite_differences() {
    let cfg = config(PoolKind::Max, Optimizer::Sgd, 4);
    let (train, _) = data(&cfg);
    let mut t = pollster::block_on(Trainer::with_data(cfg, train, None, 1)).unwrap();
    pollster::block_on(t.train(3)).unwrap();
    let rows = t.next_batch_rows();
    let params = pollster::block_on(t.params()).unwrap();
    let (_, grads) = pollster::block_on(t.loss_and_gradient(&rows)).unwrap();
    let mut loss_at = |i: usize, d: f32| {
        let mut p = params.clone();
        p[i] += d;
        t.set_params(&p).unwrap();
        pollster::block_on(t.loss_and_gradient(&rows)).unwrap().0
    };
    let h = 1e-3;
    let (mut checked, mut kinks, mut worst) = (0, 0, 0.0f32);
    // Every conv parameter (the first 40) and every 7th dense one.
    for i in (0..params.len()).filter(|&i| i < 40 || i % 7 == 0) {
        let numeric = (loss_at(i, h) - loss_at(i, -h)) / (2.0 * h);
        let wide = (loss_at(i, 2.0 * h) - loss_at(i, -2.0 * h)) / (4.0 * h);
        if (wide - numeric).abs() > 3e-4 + 1e-2 * numeric.abs() {
            kinks += 1; // a ReLU or a max-pool winner switches within ±2h
            continue;
        }
        let err = (numeric - grads[i]).abs();
        worst = worst.max(err);
        assert!(
            err <= 5e-4 + 1e-2 * numeric.abs(),
            "θ[{i}]: backprop {} vs finite difference {numeric}",
            grads[i]
        );
        checked += 1;
    }
    eprintln!("CNN: {checked} parameters checked, {kinks} on a kink, worst difference {worst:.2e}");
    assert!(
        kinks * 10 <= checked,
        "too many kinks ({kinks}) for a meaningful check"
    );
}
