//! The sparse (CSR) forward pass (`ops::spmm`, `sparse::SparseMlp`): the kernel against its CPU
//! twin and against the dense product with the pruned weights zeroed (a plain loop written here),
//! and a pruned MLP run in CSR predicting what the dense network with those weights zeroed
//! predicts — on the CPU path and on the GPU.

use std::rc::Rc;

use engine::gpu::GpuContext;
use engine::kernel::{BufferTable, Elem, StepScalars};
use engine::ops::spmm::{Csr, Spmm};
use engine::optim::Optimizer;
use engine::sparse::SparseMlp;
use engine::train::Trainer;
use pollster::block_on;

use crate::common::{gpu, random, run_both, Init};

/// `w` with every entry whose index is not a multiple of `keep` zeroed, plus a zero row.
fn pruned(rows: usize, columns: usize, keep: usize, seed: u64) -> Vec<f32> {
    let mut w = random(rows * columns, seed);
    for (i, v) in w.iter_mut().enumerate() {
        if i % keep != 0 || i / columns == rows / 2 {
            *v = 0.0;
        }
    }
    w
}

#[test]
fn csr_keeps_the_nonzeros_and_counts_its_bytes() {
    let w = [0.0, 2.0, 0.0, 3.0, 0.0, 0.0, 4.0, 5.0, 6.0];
    let csr = Csr::from_dense(&w, 3, 3).unwrap();
    assert_eq!(csr.row_ptr, [0, 1, 2, 5]);
    assert_eq!(csr.cols, [1, 0, 0, 1, 2]);
    assert_eq!(csr.values, [2.0, 3.0, 4.0, 5.0, 6.0]);
    // 5 values · (4 + 2) bytes + 4 row pointers · 4.
    assert_eq!(csr.bytes(), 46);
    assert_eq!(csr.packed_cols(), [1, 1 << 16, 2]);
    assert!(Csr::from_dense(&vec![0.0; 70_000], 1, 70_000).is_err());
}

#[test]
fn spmm_matches_cpu_and_the_dense_product() {
    let ctx = gpu();
    for &(rows, columns, batch, keep, relu) in &[
        (1, 1, 1, 1, false),
        (3, 17, 5, 2, true),
        (100, 784, 7, 5, true),
        (65, 130, 3, 3, false),
    ] {
        let w = pruned(rows, columns, keep, 11);
        let csr = Csr::from_dense(&w, rows, columns).unwrap();
        let (bias, x) = (random(rows, 12), random(batch * columns, 13));
        let mut t = BufferTable::default();
        let row_ptr = t.add("row_ptr", Elem::U32, csr.row_ptr.len());
        let cols = t.add("cols", Elem::U32, csr.packed_cols().len());
        let values = t.add("values", Elem::F32, csr.values.len());
        let [b, xb, y] = [("bias", rows), ("x", batch * columns), ("y", batch * rows)]
            .map(|(n, l)| t.add(n, Elem::F32, l));
        let kernel = Spmm {
            row_ptr,
            cols,
            values,
            bias: b,
            x: xb,
            y,
            rows,
            inputs: columns,
            batch,
            relu,
            nnz: csr.values.len(),
        };
        let values_init = if csr.values.is_empty() {
            vec![0.0]
        } else {
            csr.values.clone()
        };
        let out = run_both(
            &ctx,
            t,
            vec![
                Init::U32(csr.row_ptr.clone()),
                Init::U32(csr.packed_cols()),
                Init::F32(values_init),
                Init::F32(bias.clone()),
                Init::F32(x.clone()),
                Init::F32(vec![0.0; batch * rows]),
            ],
            || Box::new(kernel.clone()),
            StepScalars::default(),
            &[y],
        );
        let mut want = vec![0.0f32; batch * rows];
        for n in 0..batch {
            for o in 0..rows {
                let s: f32 = (0..columns)
                    .map(|j| w[o * columns + j] * x[n * columns + j])
                    .sum::<f32>()
                    + bias[o];
                want[n * rows + o] = if relu { s.max(0.0) } else { s };
            }
        }
        crate::common::assert_close("GPU against CPU", &out[0].0, &out[0].1, 1e-5, 1e-5);
        crate::common::assert_close("CPU against the dense product", &out[0].1, &want, 1e-5, 1e-5);
    }
}

/// A trained spiral MLP with two of every three weights pruned: its CSR run gives the dense
/// network's probabilities and accuracy.
fn check(gpu: Option<Rc<GpuContext>>) {
    let config = engine::train::TrainConfig {
        model: engine::train::ModelConfig::Mlp {
            hidden: vec![16, 16],
            activation: engine::ops::activation::Activation::Relu,
        },
        ..crate::common::spiral_config(Optimizer::adam(), 0.02, 16)
    };
    let mut trainer = block_on(Trainer::new(config, gpu.clone(), 1)).unwrap();
    block_on(trainer.train(30)).unwrap();
    let mut w = block_on(trainer.params()).unwrap();
    for l in trainer.compiled.layers.iter().filter(|l| l.w_len > 0) {
        w[l.w_off..l.w_off + l.w_len]
            .iter_mut()
            .enumerate()
            .for_each(|(i, v)| *v *= f32::from(i % 3 == 0));
    }
    trainer.set_params(&w).unwrap();
    let data = trainer.data.clone();
    let dense = block_on(trainer.probabilities(&data)).unwrap();
    let mut sparse = block_on(SparseMlp::new(&trainer.compiled, &w, 64, gpu)).unwrap();
    let classes = data.classes;
    let mut logits = Vec::new();
    for chunk in data.x.chunks(64 * data.dim) {
        logits.extend(block_on(sparse.forward(chunk)).unwrap());
    }
    for (row, p) in logits.chunks(classes).zip(dense.chunks(classes)) {
        let max = row.iter().fold(f32::MIN, |a, b| a.max(*b));
        let sum: f32 = row.iter().map(|v| (v - max).exp()).sum();
        for (v, want) in row.iter().zip(p) {
            assert!(
                ((v - max).exp() / sum - want).abs() < 1e-4,
                "probabilities {row:?} against {p:?}"
            );
        }
    }
    let right = (dense.chunks(classes).zip(&data.y))
        .filter(|(p, y)| (0..classes).all(|c| p[c] <= p[**y as usize]))
        .count();
    let accuracy = block_on(sparse.accuracy(&data)).unwrap();
    assert!((accuracy - right as f32 / data.len() as f32).abs() < 1.5 / data.len() as f32);
}

#[test]
fn a_pruned_mlp_in_csr_predicts_what_the_dense_one_does_on_the_cpu() {
    check(None);
}

#[test]
fn a_pruned_mlp_in_csr_predicts_what_the_dense_one_does_on_the_gpu() {
    check(Some(gpu()));
}
