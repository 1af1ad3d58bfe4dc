//! What a pruned MLP costs to run (docs/theory.md §10.5), per sample of the forward pass: the
//! multiply-adds as FLOPs (2 each) and the bytes of its weights. Dense: every weight, 4 bytes
//! each. Unstructured in a compressed sparse row format (CSR): each kept weight's value (4 bytes)
//! and its column index (2 bytes where a layer has at most 65,536 inputs, else 4), and a row
//! pointer (4 bytes) per output plus one. Structured: the smaller dense network.

use engine::model::Compiled;
use serde::{Deserialize, Serialize};

use super::structured::weights_of;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    /// Forward FLOPs per sample (biases aside).
    pub flops: f64,
    /// Bytes of the weights as stored (biases aside).
    pub bytes: f64,
}

/// The dense network's cost.
pub fn dense(compiled: &Compiled) -> Cost {
    let weights: usize = compiled.layers.iter().map(|l| l.w_len).sum();
    Cost {
        flops: 2.0 * weights as f64,
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
        let index = if l.in_len() <= 65_536 { 2.0 } else { 4.0 };
        flops += 2.0 * nnz;
        bytes += nnz * (4.0 + index) + 4.0 * (l.out_len() + 1) as f64;
    }
    Cost { flops, bytes }
}

/// The cost of the dense network with these widths (input and output included).
pub fn smaller(widths: &[usize]) -> Cost {
    let w = weights_of(widths) as f64;
    Cost {
        flops: 2.0 * w,
        bytes: 4.0 * w,
    }
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
        assert_eq!(
            smaller(&[784, 12, 10]),
            Cost {
                flops: 2.0 * 9_528.0,
                bytes: 4.0 * 9_528.0
            }
        );
    }
}
