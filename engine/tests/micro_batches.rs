//! A pipeline splits each batch into micro-batches and adds their gradients before one update
//! (gradient accumulation, docs/theory.md §8.1): the same update as the whole batch, to rounding,
//! on a CNN without batch norm. With batch norm it is not: each micro-batch is normalized with
//! its own statistics.

use engine::model::Layer;
use engine::ops::pool::PoolKind;
use engine::optim::Optimizer;
use engine::train::{ModelConfig, TrainConfig, Trainer};

use crate::common;

fn cnn(batch_norm: bool, batch: usize, data: engine::train::DataConfig) -> TrainConfig {
    let mut layers = common::conv_relu_pool(4, 3, 1, 1, PoolKind::Max).to_vec();
    if batch_norm {
        // Between the convolution and its ReLU.
        layers.insert(1, Layer::BatchNorm { momentum: 0.1 });
    }
    layers.extend([Layer::Flatten, Layer::Dense { units: 10 }]);
    TrainConfig {
        data,
        model: ModelConfig::Layers { layers },
        optimizer: Optimizer::Momentum { momentum: 0.9 },
        learning_rate: 0.05,
        batch,
        ..Default::default()
    }
}

/// Largest |a − b| / (1 + |b|) over two weight vectors.
fn gap(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs() / (1.0 + y.abs()))
        .fold(0.0, f32::max)
}

fn updated_weights(batch_norm: bool) -> (Vec<f32>, Vec<f32>) {
    let (config, data, _) = common::mnist(256, 10);
    let (m, micro) = (4, 8);
    let mut whole = pollster::block_on(Trainer::with_data(
        cnn(batch_norm, m * micro, config.clone()),
        data.clone(),
        None,
        1,
    ))
    .unwrap();
    let mut part =
        pollster::block_on(Trainer::with_data(cnn(batch_norm, micro, config), data, None, 1)).unwrap();
    let start = pollster::block_on(whole.params()).unwrap();
    part.set_params(&start).unwrap();
    let rows: Vec<u32> = (0..(m * micro) as u32).map(|i| i * 7 % 256).collect();
    let (_, g) = pollster::block_on(whole.loss_and_gradient(&rows)).unwrap();
    let mut sum = vec![0.0f32; g.len()];
    for chunk in rows.chunks(micro) {
        let (_, gm) = pollster::block_on(part.loss_and_gradient(chunk)).unwrap();
        sum.iter_mut().zip(gm).for_each(|(s, v)| *s += v);
    }
    let accumulated: Vec<f32> = sum.iter().map(|s| s / m as f32).collect();
    whole.apply_gradient(&g).unwrap();
    part.apply_gradient(&accumulated).unwrap();
    (
        pollster::block_on(whole.params()).unwrap(),
        pollster::block_on(part.params()).unwrap(),
    )
}

#[test]
fn micro_batches_make_the_whole_batchs_update() {
    let (whole, accumulated) = updated_weights(false);
    eprintln!("without batch norm: gap {}", gap(&accumulated, &whole));
    assert!(
        gap(&accumulated, &whole) < 1e-5,
        "gap {}",
        gap(&accumulated, &whole)
    );
}

#[test]
fn with_batch_norm_micro_batches_differ() {
    let (whole, accumulated) = updated_weights(true);
    eprintln!("with batch norm: gap {}", gap(&accumulated, &whole));
    assert!(
        gap(&accumulated, &whole) > 1e-4,
        "gap {}",
        gap(&accumulated, &whole)
    );
}
