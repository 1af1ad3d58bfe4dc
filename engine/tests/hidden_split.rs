//! A training step split over shards by hidden units (`HiddenShard`, `Trainer::shard_outputs`,
//! `Trainer::shard_finish`: tensor parallelism of a one-hidden-layer MLP) against the unsplit
//! step: the same losses and weights run after run, to float rounding (the logits are the sum of
//! the shards' parts, and each weight's gradient involves only its own shard).

use crate::common;

use common::{assert_close, mnist, unsplit_run};
use engine::ops::activation::Activation;
use engine::optim::Optimizer;
use engine::plan::Regularization;
use engine::train::{HiddenShard, ModelConfig, TrainConfig, Trainer};

fn trainer(config: &TrainConfig) -> Trainer {
    pollster::block_on(Trainer::with_data(config.clone(), mnist(256, 0).1, None, 1)).unwrap()
}

fn configs() -> Vec<(&'static str, TrainConfig)> {
    let (images, _, _) = mnist(256, 0);
    let w1 = TrainConfig {
        data: images,
        ..engine::workloads::w1()
    };
    vec![
        ("W1", w1.clone()),
        (
            "momentum, 100 tanh units",
            TrainConfig {
                model: ModelConfig::Mlp {
                    hidden: vec![100],
                    activation: Activation::Tanh,
                },
                optimizer: Optimizer::Momentum { momentum: 0.9 },
                learning_rate: 0.05,
                ..w1.clone()
            },
        ),
        (
            "Adam, L2",
            TrainConfig {
                optimizer: Optimizer::Adam {
                    beta1: 0.9,
                    beta2: 0.999,
                    eps: 1e-8,
                },
                learning_rate: 1e-3,
                regularization: Regularization {
                    l1: 0.0,
                    l2: 1e-3,
                    group: 0.0,
                },
                ..w1
            },
        ),
    ]
}

/// Losses and final weights of `steps` steps over `shards` shards (1: `Trainer::train`).
fn run(config: &TrainConfig, shards: usize, steps: usize) -> (Vec<f32>, Vec<f32>) {
    let mut whole = trainer(config);
    if shards == 1 {
        return unsplit_run(&mut whole, steps);
    }
    assert_eq!(whole.hidden_split_blocker(), None);
    let mut params = pollster::block_on(whole.params()).unwrap();
    let mut team: Vec<(Trainer, HiddenShard)> = (0..shards)
        .map(|i| {
            let (config, shard) = whole.hidden_shard(shards, i).unwrap();
            let mut t = trainer(&config);
            t.set_params(&shard.take(&params)).unwrap();
            (t, shard)
        })
        .collect();
    let (mut losses, mut part) = (Vec::new(), Vec::new());
    for step in 0..steps as u64 {
        let rows = whole.next_batch_rows();
        // The all-reduce: the shards' parts added in shard order.
        let mut logits: Vec<f32> = Vec::new();
        for (t, _) in &mut team {
            pollster::block_on(t.shard_outputs(&rows, &mut part)).unwrap();
            if logits.is_empty() {
                logits = part.clone();
            } else {
                logits.iter_mut().zip(&part).for_each(|(l, p)| *l += p);
            }
        }
        let metrics: Vec<_> = team
            .iter_mut()
            .map(|(t, s)| pollster::block_on(t.shard_finish(&logits, s, step)).unwrap())
            .collect();
        assert!(
            metrics.iter().all(|m| m == &metrics[0]),
            "every shard sees the same loss"
        );
        assert_eq!(metrics[0].step, step + 1);
        losses.push(metrics[0].loss);
    }
    for (t, shard) in &team {
        shard.put(&pollster::block_on(t.params()).unwrap(), &mut params);
    }
    (losses, params)
}

#[test]
fn hidden_split_steps_equal_unsplit_steps() {
    for (name, config) in configs() {
        let (losses, params) = run(&config, 1, 12);
        for shards in [2, 3, 4] {
            let (split_losses, split_params) = run(&config, shards, 12);
            let what = |part| format!("{name} over {shards} shards: {part}, split against unsplit");
            assert_close(&what("losses"), &split_losses, &losses, 1e-5, 1e-5);
            assert_close(&what("weights"), &split_params, &params, 1e-5, 1e-5);
        }
    }
}

#[test]
fn shards_cover_every_weight_once() {
    let whole = trainer(&configs().remove(1).1);
    let n = whole.compiled.n_params;
    let marks: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut joined = vec![-1.0; n];
    for i in 0..3 {
        let (_, shard) = whole.hidden_shard(3, i).unwrap();
        shard.put(&shard.take(&marks), &mut joined);
    }
    assert_eq!(joined, marks);
}

#[test]
fn only_one_hidden_layer_splits_by_hidden_units() {
    let two = trainer(&TrainConfig {
        model: ModelConfig::Mlp {
            hidden: vec![16, 16],
            activation: Activation::Relu,
        },
        ..configs().remove(0).1
    });
    assert!(two.hidden_split_blocker().unwrap().contains("one hidden layer"));
}
