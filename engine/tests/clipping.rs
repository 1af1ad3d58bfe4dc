//! Clipping the gradient by its global norm (`ops::clip`): the factor by hand, the kernels
//! against their CPU twins on the GPU (a one-workgroup reduction against a sum in f64), and a
//! training step: clipped, SGD's step is the unclipped step scaled to the norm asked for.

use engine::kernel::{BufferTable, Elem, Kernel, StepScalars};
use engine::ops::clip::{clip_factor, ClipGrads, GradNorm};
use engine::optim::Optimizer;
use engine::train::{TrainConfig, Trainer};
use pollster::block_on;

use crate::common::{assert_close, gpu, random, run_multi, Init};

#[test]
fn the_factor_by_hand() {
    // ‖(3, 4)‖ = 5: clipped to 1, each gradient is scaled by 1/5; a norm of 10 leaves it.
    assert_eq!(clip_factor(&[3.0, 4.0], 1.0), (0.2, 5.0));
    assert_eq!(clip_factor(&[3.0, 4.0], 10.0), (1.0, 5.0));
}

#[test]
fn clipping_matches_its_twin_on_the_gpu() {
    let ctx = gpu();
    for n in [1, 1000, 101_770] {
        for max_norm in [0.5, 1e6] {
            let mut t = BufferTable::default();
            let grads = t.add("grads", Elem::F32, n);
            let clip = t.add("clip", Elem::F32, 2);
            let inits = vec![Init::F32(random(n, 9)), Init::F32(vec![0.0; 2])];
            let kernels = || -> Vec<Box<dyn Kernel>> {
                vec![
                    Box::new(GradNorm {
                        grads,
                        clip,
                        n,
                        max_norm,
                    }),
                    Box::new(ClipGrads { grads, clip, n }),
                ]
            };
            let got = run_multi(&ctx, t, inits, kernels, StepScalars::default(), &[grads, clip]);
            assert_close(&format!("{n} {max_norm} clip"), &got[1].0, &got[1].1, 1e-6, 1e-5);
            assert_close(&format!("{n} {max_norm} grads"), &got[0].0, &got[0].1, 1e-7, 1e-5);
            let norm = got[0].1.iter().map(|g| f64::from(*g).powi(2)).sum::<f64>().sqrt();
            assert!((norm - f64::from(max_norm).min(f64::from(got[1].1[1]))).abs() < 1e-4 * norm.max(1.0));
        }
    }
}

/// One SGD step from the same weights and batch, clipped and not: the clipped step is the
/// unclipped one times max_norm / ‖g‖, and its length is the learning rate times max_norm.
#[test]
fn a_clipped_step_is_the_step_scaled_to_the_norm() {
    let step = |clip_norm: f32| -> Vec<f32> {
        let config = TrainConfig {
            optimizer: Optimizer::Sgd,
            learning_rate: 0.1,
            clip_norm,
            ..TrainConfig::default()
        };
        let mut t = block_on(Trainer::new(config, None, 1)).unwrap();
        let before = block_on(t.params()).unwrap();
        block_on(t.train(1)).unwrap();
        let after = block_on(t.params()).unwrap();
        before.iter().zip(&after).map(|(b, a)| b - a).collect()
    };
    let free = step(0.0);
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    let gradient_norm = norm(&free) / 0.1;
    let max_norm = (gradient_norm / 4.0) as f32;
    let clipped = step(max_norm);
    assert!((norm(&clipped) - 0.1 * f64::from(max_norm)).abs() < 1e-4 * norm(&clipped));
    let scale = f64::from(max_norm) / gradient_norm;
    for (c, f) in clipped.iter().zip(&free) {
        assert!(
            (f64::from(*c) - scale * f64::from(*f)).abs() < 1e-6,
            "{c} against {f} × {scale}"
        );
    }
    // A norm above the gradient's leaves the step as it was.
    assert_eq!(step((gradient_norm * 2.0) as f32), free);
}
