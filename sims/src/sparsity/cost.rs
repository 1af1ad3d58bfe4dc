//! What a pruned network costs to run (docs/theory.md §10.5), per sample of the forward pass: the
//! multiply-adds as FLOPs (2 each; a conv layer's weights act at every output position) and the
//! bytes of its weights. Dense: every weight, 4 bytes each. Unstructured in a compressed sparse
//! row format (CSR; a conv layer's filters as the rows of its im2col matrix): each kept weight's
//! value (4 bytes) and its column index (2 bytes where a row has at most 65,536 columns, else 4),
//! and a row pointer (4 bytes) per row plus one. Structured: the smaller dense network
//! (`dense` of its compiled model).

use engine::model::{Compiled, CompiledLayer};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    /// Forward FLOPs per sample (biases aside).
    pub flops: f64,
    /// Bytes of the weights as stored (biases aside).
    pub bytes: f64,
}

/// Where a layer's weights act: every output position of a conv layer, once for a dense one.
fn positions(l: &CompiledLayer) -> f64 {
    if l.conv().is_some() {
        (l.out_shape[1] * l.out_shape[2]) as f64
    } else {
        1.0
    }
}

/// The dense network's cost.
pub fn dense(compiled: &Compiled) -> Cost {
    let weighted = compiled.layers.iter().filter(|l| l.w_len > 0);
    let flops = weighted
        .clone()
        .map(|l| 2.0 * l.w_len as f64 * positions(l))
        .sum();
    let weights: usize = weighted.map(|l| l.w_len).sum();
    Cost {
        flops,
        bytes: 4.0 * weights as f64,
    }
}

/// The cost of the weights `mask` keeps, stored in CSR, layer by layer.
pub fn csr(compiled: &Compiled, mask: &[f32]) -> Cost {
    let (mut flops, mut bytes) = (0.0, 0.0);
    for l in compiled.layers.iter().filter(|l| l.w_len > 0) {
        let nnz = mask[l.w_off..l.w_off + l.w_len]
            .iter()
            .filter(|m| **m != 0.0)
            .count() as f64;
        let rows = l.conv().map_or(l.out_len(), |(filters, ..)| filters);
        let index = if l.w_len / rows <= 65_536 { 2.0 } else { 4.0 };
        flops += 2.0 * nnz * positions(l);
        bytes += nnz * (4.0 + index) + 4.0 * (rows + 1) as f64;
    }
    Cost { flops, bytes }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::model::ModelSpec;
    use engine::ops::activation::Activation;

    #[test]
    fn costs_by_hand() {
        let c = ModelSpec::mlp(784, &[100], 10, Activation::Relu)
            .compile()
            .unwrap();
        // 784·100 + 100·10 = 79,400 weights: 158,800 FLOPs, 317,600 bytes.
        assert_eq!(
            dense(&c),
            Cost {
                flops: 158_800.0,
                bytes: 317_600.0
            }
        );
        // Keep every 8th weight of each layer: 9,800 + 125 = 9,925 kept.
        let mut mask = vec![0.0; c.n_params];
        for l in c.layers.iter().filter(|l| l.w_len > 0) {
            for k in (0..l.w_len).step_by(8) {
                mask[l.w_off + k] = 1.0;
            }
        }
        // 9,925 · 6 bytes + row pointers 4·(101 + 11).
        assert_eq!(
            csr(&c, &mask),
            Cost {
                flops: 19_850.0,
                bytes: 9_925.0 * 6.0 + 4.0 * 112.0
            }
        );
    }

    #[test]
    fn a_convolution_costs_its_weights_at_every_position() {
        let c = engine::workloads::w2().spec(10).compile().unwrap();
        // conv 1→8 5×5 over 28×28: 200 weights at 24·24 positions; conv 8→16 5×5 over 12×12:
        // 3,200 at 8·8; dense 256 → 10: 2,560 once.
        let flops = 2.0 * (200.0 * 576.0 + 3_200.0 * 64.0 + 2_560.0);
        assert_eq!(
            dense(&c),
            Cost {
                flops,
                bytes: 4.0 * 5_960.0
            }
        );
        // Every weight kept in CSR: rows are the 8 and 16 filters and the 10 outputs.
        let all = vec![1.0; c.n_params];
        let bytes = 5_960.0 * 6.0 + 4.0 * (9.0 + 17.0 + 11.0);
        assert_eq!(csr(&c, &all), Cost { flops, bytes });
    }
}
