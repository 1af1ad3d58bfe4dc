//! Rematerialization gives the plain pass's gradients bit for bit, on both backends, for every
//! segment length, while keeping fewer activations (docs/theory.md §8.5).

use engine::model::Layer;
use engine::ops::activation::Activation;
use engine::ops::pool::PoolKind;
use engine::train::{ModelConfig, TrainConfig, Trainer};

use crate::common;

fn relu() -> Layer {
    Layer::Activation {
        kind: Activation::Relu,
    }
}

fn nets() -> Vec<(&'static str, Vec<Layer>)> {
    let dense = |units| Layer::Dense { units };
    vec![
        (
            "MLP with dropout",
            vec![
                dense(32),
                relu(),
                Layer::Dropout { rate: 0.2 },
                dense(32),
                relu(),
                dense(32),
                relu(),
                dense(10),
            ],
        ),
        (
            "CNN with batch norm and max-pool",
            vec![
                common::conv3x3(4, 1),
                Layer::BatchNorm { momentum: 0.1 },
                relu(),
                Layer::Pool {
                    kind: PoolKind::Max,
                    size: 2,
                    stride: 2,
                },
                common::conv3x3(8, 1),
                relu(),
                Layer::Flatten,
                dense(10),
            ],
        ),
    ]
}

#[test]
fn checkpointed_gradients_equal_the_plain_ones_bit_for_bit() {
    let (data_config, data, _) = common::mnist(256, 100);
    for (name, layers) in nets() {
        for gpu in [None, Some(common::gpu())] {
            let what = format!("{name} on {}", if gpu.is_some() { "the GPU" } else { "the CPU" });
            let config = TrainConfig {
                data: data_config.clone(),
                model: ModelConfig::Layers {
                    layers: layers.clone(),
                },
                batch: 16,
                ..Default::default()
            };
            let mut t = pollster::block_on(Trainer::with_data(config, data.clone(), gpu, 1)).unwrap();
            // A few steps first, so the weights (and batch norm's statistics) are not the start's.
            pollster::block_on(t.train(3)).unwrap();
            let rows = t.next_batch_rows();
            let (loss, plain) = pollster::block_on(t.loss_and_gradient(&rows)).unwrap();
            let n = t.compiled.layers.len();
            for segment in 1..=n {
                let (l, g, r) = pollster::block_on(t.checkpointed_loss_and_gradient(&rows, segment)).unwrap();
                assert_eq!(l.to_bits(), loss.to_bits(), "{what}, segment {segment}: loss");
                assert!(
                    g.iter().zip(&plain).all(|(a, b)| a.to_bits() == b.to_bits()),
                    "{what}, segment {segment}: gradients differ"
                );
                assert!(
                    r.peak_bytes <= r.all_bytes && r.kept_bytes <= r.peak_bytes,
                    "{what}: {r:?}"
                );
                if segment == n {
                    assert_eq!(
                        (r.kept_bytes, r.recompute_flops),
                        (r.all_bytes, 0.0),
                        "{what}: one segment keeps all"
                    );
                }
                // Nothing dropped, nothing re-run (FLOPs count the products only: a re-run
                // normalization or pooling alone counts none); the last segment never is re-run.
                if r.kept_bytes == r.all_bytes {
                    assert_eq!(r.recompute_flops, 0.0, "{what}, segment {segment}: {r:?}");
                }
                assert!(
                    r.recompute_flops < r.forward_flops,
                    "{what}: the last segment is not re-run"
                );
            }
            // The plain pass still works after a checkpointed one.
            let (again, g) = pollster::block_on(t.loss_and_gradient(&rows)).unwrap();
            assert_eq!((again.to_bits(), g), (loss.to_bits(), plain), "{what}");
        }
    }
}

/// Chen et al.'s trade on a deep MLP: with segments of about √n layers only the checkpoints stay
/// through the step, at the price of re-running most of the forward once (hand counts).
#[test]
fn square_root_segments_lower_the_peak() {
    let (data_config, data, _) = common::mnist(256, 100);
    let mut layers = Vec::new();
    for _ in 0..8 {
        layers.extend([Layer::Dense { units: 64 }, relu()]);
    }
    layers.push(Layer::Dense { units: 10 });
    let config = TrainConfig {
        data: data_config,
        model: ModelConfig::Layers { layers },
        batch: 16,
        ..Default::default()
    };
    let mut t = pollster::block_on(Trainer::with_data(config, data, None, 1)).unwrap();
    let rows = t.next_batch_rows();
    let (_, _, r) = pollster::block_on(t.checkpointed_loss_and_gradient(&rows, 4)).unwrap();
    // 17 layers: the batch's inputs (16 × 784) and 16 outputs of 16 × 64 and the logits.
    assert_eq!(r.all_bytes, (16 * 784 + 16 * 16 * 64 + 16 * 10) * 4);
    // Checkpoints at layers 0, 4, 8, 12, 16; segments of 4 layers drop 3 outputs each, the last
    // (layer 16, the logits' layer) drops nothing.
    assert_eq!(r.checkpoints, [0, 4, 8, 12, 16]);
    assert_eq!(r.kept_bytes, r.all_bytes - 4 * 3 * 16 * 64 * 4);
    assert_eq!(r.peak_bytes, r.kept_bytes + 3 * 16 * 64 * 4);
    // Of the 16 hidden outputs: the 4 checkpoints among them, and one segment's 3 re-run.
    let hidden = 16 * 16 * 64 * 4;
    assert_eq!(r.peak_bytes - (16 * 784 + 16 * 10) * 4, hidden * 7 / 16);
    assert!(r.recompute_flops > 0.9 * r.forward_flops && r.recompute_flops < r.forward_flops);
}

#[test]
fn residual_blocks_are_refused_with_a_reason() {
    let (data_config, data, _) = common::mnist(64, 10);
    let config = TrainConfig {
        data: data_config,
        model: ModelConfig::Layers {
            layers: vec![
                Layer::Dense { units: 8 },
                Layer::Residual {
                    layers: vec![Layer::Dense { units: 8 }],
                    projection: false,
                },
                Layer::Dense { units: 10 },
            ],
        },
        batch: 8,
        ..Default::default()
    };
    let mut t = pollster::block_on(Trainer::with_data(config, data, None, 1)).unwrap();
    let rows = t.next_batch_rows();
    let e = pollster::block_on(t.checkpointed_loss_and_gradient(&rows, 2)).unwrap_err();
    assert!(e.to_string().contains("residual"), "{e}");
}
