//! Tensor parallelism on a trained network (docs/theory.md §8.3): its first dense → ReLU → dense
//! block, with the trained weights, split over devices by columns, by rows and as Megatron's
//! MLP block, executed on real inputs and compared with the unsplit layers.

use serde::{Deserialize, Serialize};

use super::tensor::{column_split, dense, megatron_mlp, row_split, Dense};
use engine::model::{Compiled, Layer};
use engine::ops::activation::Activation;

/// One split of the block and how far its result lies from the unsplit one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SplitCheck {
    pub split: String,
    pub devices: usize,
    /// Largest |split − unsplit| over the outputs.
    pub max_gap: f32,
    /// Values each device sends to join the shards (ring collectives).
    pub sent_per_device: f64,
}

/// A dense layer's weights as `tensor` takes them (inputs × outputs), from the model's layout
/// (one row of W per output).
fn transposed(params: &[f32], c: &engine::model::CompiledLayer) -> (Vec<f32>, Vec<f32>, usize, usize) {
    let (inputs, outputs) = (c.in_len(), c.out_len());
    let w = &params[c.w_off..c.w_off + c.w_len];
    let mut t = vec![0.0; inputs * outputs];
    for o in 0..outputs {
        for i in 0..inputs {
            t[i * outputs + o] = w[o * inputs + i];
        }
    }
    (t, params[c.b_off..c.b_off + outputs].to_vec(), inputs, outputs)
}

/// The checks on the model's first dense → ReLU → dense block for `rows` inputs `x`, or None when
/// the model does not start with one.
pub fn first_block(
    compiled: &Compiled,
    params: &[f32],
    x: &[f32],
    rows: usize,
    devices: usize,
) -> Option<Vec<SplitCheck>> {
    let l = &compiled.layers;
    let ok = matches!(l.first()?.layer, Layer::Dense { .. })
        && matches!(
            l.get(1)?.layer,
            Layer::Activation {
                kind: Activation::Relu
            }
        )
        && matches!(l.get(2)?.layer, Layer::Dense { .. });
    if !ok {
        return None;
    }
    let (w1, b1, i1, o1) = transposed(params, &l[0]);
    let (w2, b2, i2, o2) = transposed(params, &l[2]);
    let first = Dense {
        w: &w1,
        b: &b1,
        inputs: i1,
        outputs: o1,
    };
    let second = Dense {
        w: &w2,
        b: &b2,
        inputs: i2,
        outputs: o2,
    };
    let x = &x[..rows * i1];
    let h = dense(x, rows, &first);
    let relu: Vec<f32> = h.iter().map(|v| v.max(0.0)).collect();
    let y = dense(&relu, rows, &second);
    let gap = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(p, q)| (p - q).abs()).fold(0.0, f32::max);
    let check = |name: &str, split: super::tensor::Split, reference: &[f32]| SplitCheck {
        split: name.into(),
        devices,
        max_gap: gap(&split.y, reference),
        sent_per_device: split.sent_per_device,
    };
    Some(vec![
        check(
            "first layer by columns (allgather)",
            column_split(x, rows, &first, devices),
            &h,
        ),
        check(
            "first layer by rows (allreduce)",
            row_split(x, rows, &first, devices),
            &h,
        ),
        check(
            "Megatron block: columns, ReLU, rows (one allreduce)",
            megatron_mlp(x, rows, &first, &second, devices),
            &y,
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::model::ModelSpec;

    #[test]
    fn the_splits_of_a_models_first_block_equal_the_unsplit_layers() {
        let spec = ModelSpec::mlp(12, &[8, 6], 3, Activation::Relu);
        let compiled = spec.compile().unwrap();
        let params = spec.init(&compiled, 7);
        let x: Vec<f32> = (0..5 * 12).map(|i| ((i * 37 % 11) as f32 - 5.0) / 5.0).collect();
        let checks = first_block(&compiled, &params, &x, 5, 2).unwrap();
        assert_eq!(checks[0].max_gap, 0.0, "columns are bit-identical");
        assert!(checks.iter().all(|c| c.max_gap < 1e-5), "{checks:?}");
        // An allgather of 5 × 8 outputs: half each; an allreduce twice that.
        assert_eq!(checks[0].sent_per_device, 20.0);
        assert_eq!(checks[1].sent_per_device, 40.0);
    }
}
