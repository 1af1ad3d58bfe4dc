//! Masked training (the sparsity lab): a trainer made with `TrainConfig::masked` keeps a pruned
//! weight at exactly zero through every optimizer, and trains the kept weights exactly as an
//! unmasked trainer whose pruned weights the host zeroes after every step — on the CPU path and
//! on the GPU.

use std::rc::Rc;

use engine::gpu::GpuContext;
use engine::optim::Optimizer;
use engine::train::{TrainConfig, Trainer};
use pollster::block_on;

fn config(optimizer: Optimizer, masked: bool) -> TrainConfig {
    TrainConfig {
        masked,
        ..crate::common::spiral_config(optimizer, 0.02, 16)
    }
}

/// Every third parameter pruned.
fn mask(n: usize) -> Vec<f32> {
    (0..n).map(|i| if i % 3 == 0 { 0.0 } else { 1.0 }).collect()
}

fn check(gpu: Option<Rc<GpuContext>>) {
    for optimizer in Optimizer::all() {
        let mut masked = block_on(Trainer::new(config(optimizer, true), gpu.clone(), 1)).unwrap();
        let mut plain = block_on(Trainer::new(config(optimizer, false), gpu.clone(), 1)).unwrap();
        // Trained dense first, so the optimizer's state would move a pruned weight on its own.
        block_on(masked.train(20)).unwrap();
        block_on(plain.train(20)).unwrap();
        let m = mask(masked.compiled.n_params);
        block_on(masked.set_mask(&m)).unwrap();
        for _ in 0..15 {
            let mut w = block_on(plain.params()).unwrap();
            w.iter_mut().zip(&m).for_each(|(w, m)| *w *= m);
            plain.set_params(&w).unwrap();
            block_on(plain.train(1)).unwrap();
            block_on(masked.train(1)).unwrap();
        }
        let (got, mut want) = (
            block_on(masked.params()).unwrap(),
            block_on(plain.params()).unwrap(),
        );
        want.iter_mut().zip(&m).for_each(|(w, m)| *w *= m);
        assert!(
            got.iter().zip(&m).all(|(w, m)| *m == 1.0 || *w == 0.0),
            "{optimizer:?}: a pruned weight moved"
        );
        assert_eq!(
            got, want,
            "{optimizer:?}: the kept weights as the host-zeroed run's"
        );
        assert!(got.iter().zip(&m).any(|(w, m)| *m == 1.0 && *w != 0.0));
    }
}

#[test]
fn a_pruned_weight_stays_zero_through_every_optimizer_on_the_cpu_path() {
    check(None);
}

#[test]
fn a_pruned_weight_stays_zero_through_every_optimizer_on_the_gpu() {
    check(Some(crate::common::gpu()));
}

#[test]
fn a_mask_needs_a_masked_trainer_and_one_value_per_weight() {
    let mut plain = block_on(Trainer::new(config(Optimizer::adam(), false), None, 1)).unwrap();
    let n = plain.compiled.n_params;
    assert!(block_on(plain.set_mask(&mask(n))).is_err());
    let mut masked = block_on(Trainer::new(config(Optimizer::adam(), true), None, 1)).unwrap();
    assert!(block_on(masked.set_mask(&mask(n - 1))).is_err());
}
