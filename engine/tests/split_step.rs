//! A training step split over replicas (`Trainer::deal_batch`, `share_gradient`, `finish_split`),
//! as the browser's CPU path spreads it over Web Workers, against the unsplit step: the same
//! losses and weights run after run, to float rounding (the mean of equal shares' mean gradients
//! is the batch's mean gradient). Batch norm and dropout, which see the whole batch, refuse.

use crate::common;

use common::{conv_relu_pool, mnist, unsplit_run};
use engine::data::toy::{ToyConfig, ToyKind};
use engine::model::Layer;
use engine::ops::pool::PoolKind;
use engine::optim::Optimizer;
use engine::plan::Regularization;
use engine::train::{replicas_for, DataConfig, ModelConfig, ShareGradient, TrainConfig, Trainer};

fn trainer(config: &TrainConfig) -> Trainer {
    match &config.data {
        DataConfig::Images(_) => {
            pollster::block_on(Trainer::with_data(config.clone(), mnist(256, 0).1, None, 1))
        }
        _ => pollster::block_on(Trainer::new(config.clone(), None, 1)),
    }
    .unwrap()
}

fn configs() -> Vec<(&'static str, TrainConfig)> {
    let (images, _, _) = mnist(256, 0);
    let mut cnn = conv_relu_pool(4, 3, 1, 1, PoolKind::Max).to_vec();
    cnn.extend([Layer::Flatten, Layer::Dense { units: 10 }]);
    vec![
        (
            "W1 on 256 images",
            TrainConfig {
                data: images.clone(),
                ..engine::workloads::w1()
            },
        ),
        (
            "CNN, momentum",
            TrainConfig {
                data: images,
                model: ModelConfig::Layers { layers: cnn },
                optimizer: Optimizer::Momentum { momentum: 0.9 },
                learning_rate: 0.05,
                batch: 32,
                ..Default::default()
            },
        ),
        (
            "toy MLP, Adam, L2, shuffled",
            TrainConfig {
                data: DataConfig::Toy(ToyConfig {
                    kind: ToyKind::Spiral,
                    points: 300,
                    ..ToyConfig::default()
                }),
                regularization: Regularization {
                    l1: 0.0,
                    l2: 1e-3,
                    group: 0.0,
                },
                batch: 48,
                ..Default::default()
            },
        ),
    ]
}

/// Losses and final weights of `steps` steps split over `replicas` (1: `Trainer::train`).
fn run(config: &TrainConfig, replicas: usize, steps: usize) -> (Vec<f32>, Vec<f32>) {
    let mut leader = trainer(config);
    if replicas == 1 {
        return unsplit_run(&mut leader, steps);
    }
    assert_eq!(leader.split_blocker(), None);
    let share = leader.share_config(replicas);
    let mut workers: Vec<Trainer> = (0..replicas).map(|_| trainer(&share)).collect();
    let mut parts = vec![ShareGradient::default(); replicas];
    let mut losses = Vec::new();
    for _ in 0..steps {
        let params = pollster::block_on(leader.params()).unwrap();
        let step = leader.step();
        for ((w, rows), part) in workers
            .iter_mut()
            .zip(leader.deal_batch(replicas))
            .zip(&mut parts)
        {
            w.set_params(&params).unwrap();
            pollster::block_on(w.share_gradient(&rows, step, part)).unwrap();
        }
        losses.push(leader.finish_split(&parts).unwrap().loss);
    }
    (losses, pollster::block_on(leader.params()).unwrap())
}

#[test]
fn split_steps_equal_unsplit_steps() {
    for (name, config) in configs() {
        let (losses, params) = run(&config, 1, 12);
        for replicas in [2, 4] {
            assert_eq!(replicas_for(config.batch, replicas), replicas, "{name}");
            let (split_losses, split_params) = run(&config, replicas, 12);
            for (a, b) in split_losses.iter().zip(&losses) {
                assert!(
                    (a - b).abs() <= 1e-5 * (1.0 + b.abs()),
                    "{name} ×{replicas}: loss {a} vs {b}"
                );
            }
            let gap = split_params
                .iter()
                .zip(&params)
                .map(|(a, b)| (a - b).abs() / (1.0 + b.abs()))
                .fold(0.0f32, f32::max);
            assert!(gap < 1e-5, "{name} ×{replicas}: weights differ by {gap}");
        }
    }
}

#[test]
fn a_split_step_diverges_with_its_step_named_and_no_update() {
    let mut leader = trainer(&configs().remove(0).1);
    let before = pollster::block_on(leader.params()).unwrap();
    let nan = ShareGradient {
        loss: f32::NAN,
        accuracy: 0.0,
        grads: vec![0.0; before.len()],
    };
    let err = leader.finish_split(&[nan.clone(), nan]).unwrap_err();
    assert_eq!(err, engine::train::TrainError::Diverged { step: 1 });
    assert_eq!(pollster::block_on(leader.params()).unwrap(), before);
}

#[test]
fn whole_batch_layers_refuse_to_split() {
    let with = |layer: Layer| TrainConfig {
        model: ModelConfig::Layers {
            layers: vec![Layer::Dense { units: 8 }, layer, Layer::Dense { units: 2 }],
        },
        ..Default::default()
    };
    let bn = trainer(&with(Layer::BatchNorm { momentum: 0.1 }));
    assert!(bn.split_blocker().unwrap().contains("batch norm"));
    let dropout = trainer(&with(Layer::Dropout { rate: 0.3 }));
    assert!(dropout.split_blocker().unwrap().contains("dropout"));
}
