//! The landscape evaluation in chunks of samples: a network whose activations over all its
//! evaluation samples exceed the chunk budget (`plan::EVAL_CHUNK_BYTES`; here a smaller one, so
//! that a few hundred images need several chunks) runs them through the pass a chunk at a time.
//! Split runs are checked against unsplit ones on both backends.

use crate::common;

use engine::model::{Layer, BN_MOMENTUM};
use engine::ops::activation::Activation;
use engine::ops::pool::PoolKind;
use engine::train::{ModelConfig, TrainConfig, Trainer};
use lab_sims::landscape::{filter_normalized_direction, offset};

/// A wide first convolution: 32 channels at 28 × 28 is about 100 KB of activations per image
/// and layer, so 200 images need several chunks of `CHUNK_BYTES`, while its arithmetic stays
/// small.
fn wide_cnn(batch_norm: bool) -> Vec<Layer> {
    let mut layers = vec![common::conv3x3(32, 1)];
    if batch_norm {
        layers.push(Layer::BatchNorm {
            momentum: BN_MOMENTUM,
        });
    }
    layers.extend([
        Layer::Activation {
            kind: Activation::Relu,
        },
        Layer::Pool {
            kind: PoolKind::Avg,
            size: 4,
            stride: 4,
        },
        Layer::Flatten,
        Layer::Dense { units: 10 },
    ]);
    layers
}

const SAMPLES: usize = 200;

/// The evaluation's activations per pass: a few chunks for `SAMPLES` images.
const CHUNK_BYTES: usize = 8 << 20;

fn trainer(layers: Vec<Layer>, gpu: bool, eval_rows: usize) -> Trainer {
    let (data_config, data, _) = common::mnist(SAMPLES, 0);
    let config = TrainConfig {
        data: data_config,
        model: ModelConfig::Layers { layers },
        batch: 32,
        ..Default::default()
    };
    let ctx = gpu.then(common::gpu);
    let mut t = pollster::block_on(Trainer::with_evaluation_in_chunks(
        config,
        data,
        ctx,
        50,
        eval_rows,
        CHUNK_BYTES,
    ))
    .unwrap();
    pollster::block_on(t.train(10)).unwrap();
    t
}

fn points() -> Vec<[f32; 2]> {
    vec![[0.0, 0.0], [0.4, -0.3], [-0.7, 0.2]]
}

/// Without batch norm the samples are independent: the chunked mean over every point equals the
/// prediction pass's loss and accuracy on the same samples (a different pass, 50 rows at a time).
#[test]
fn chunked_evaluation_equals_the_whole_set_without_batch_norm() {
    for gpu in [true, false] {
        let mut t = trainer(wide_cnn(false), gpu, SAMPLES);
        let (rows, chunks) = (t.eval_rows(), t.eval_chunks());
        assert!(chunks > 1, "{} chunk(s): the test needs several", chunks);
        assert!(
            rows <= SAMPLES && SAMPLES - rows < chunks,
            "{rows} of {SAMPLES} samples used"
        );
        let w = pollster::block_on(t.params()).unwrap();
        let (d1, d2) = (
            filter_normalized_direction(&t.compiled, &w, 1),
            filter_normalized_direction(&t.compiled, &w, 2),
        );
        let set = t.data.head(rows);
        t.set_eval_data(&set).unwrap();
        let chunked = pollster::block_on(t.plane_losses(&w, &d1, &d2, &points())).unwrap();
        for (p, (loss, acc)) in points().iter().zip(chunked) {
            t.set_params(&offset(&w, &d1, p[0], &d2, p[1])).unwrap();
            let (l, a) = pollster::block_on(t.evaluate(&set)).unwrap();
            assert!(
                (loss - l).abs() <= 1e-5 * (1.0 + l) && (acc - a).abs() < 1e-6,
                "{} at {p:?}: {chunks} chunks ({loss}, {acc}) vs whole ({l}, {a})",
                t.backend_name()
            );
        }
        eprintln!(
            "{}: {rows} samples in {chunks} chunks = the whole set",
            t.backend_name()
        );
    }
}

/// With batch norm each chunk is normalized with its own statistics: the chunked loss equals the
/// mean of the chunks' losses, each evaluated alone by a trainer that holds just that chunk.
#[test]
fn with_batch_norm_each_chunk_is_its_own_batch() {
    for gpu in [true, false] {
        let mut t = trainer(wide_cnn(true), gpu, SAMPLES);
        let (rows, chunks) = (t.eval_rows(), t.eval_chunks());
        assert!(chunks > 1, "{} chunk(s): the test needs several", chunks);
        let chunk = rows / chunks;
        let w = pollster::block_on(t.params()).unwrap();
        let d1 = filter_normalized_direction(&t.compiled, &w, 3);
        let zero = vec![0.0; w.len()];
        t.set_eval_data(&t.data.head(rows)).unwrap();
        let chunked = pollster::block_on(t.plane_losses(&w, &d1, &zero, &points())).unwrap();
        let mut alone = trainer(wide_cnn(true), gpu, chunk);
        assert_eq!(alone.eval_chunks(), 1);
        let mut sums = vec![0.0f64; points().len()];
        for c in 0..chunks {
            let part = t.data.rows(&(c * chunk..(c + 1) * chunk).collect::<Vec<_>>());
            alone.set_eval_data(&part).unwrap();
            let losses = pollster::block_on(alone.plane_losses(&w, &d1, &zero, &points())).unwrap();
            for (s, (l, _)) in sums.iter_mut().zip(losses) {
                *s += l as f64 / chunks as f64;
            }
        }
        for ((p, (loss, _)), want) in points().iter().zip(chunked).zip(sums) {
            assert!(
                (loss as f64 - want).abs() <= 1e-5 * (1.0 + want),
                "{} at {p:?}: {chunks} chunks {loss} vs the chunks alone {want}",
                t.backend_name()
            );
        }
    }
}
