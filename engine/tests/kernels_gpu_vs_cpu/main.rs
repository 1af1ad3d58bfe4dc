//! Every kernel against its CPU twin, at odd sizes (1, 3, 17, 1000) and with transposed strides.
//! Runs on whatever adapter wgpu finds: Mesa's lavapipe in CI.

use crate::common;

use common::{assert_close, gpu, gpu_as_real, random, run_both, run_multi, Init};
use engine::kernel::{BufferTable, Elem, Points, StepScalars};
use engine::ops::activation::{ActBackward, ActForward, Activation};
use engine::ops::batch_mean::BatchMean;
use engine::ops::bias::{AddBias, BiasGrad};
use engine::ops::gather::Gather;
use engine::ops::matmul::{Matmul, MatmulDims};
use engine::ops::softmax_xent::{Softmax, SoftmaxXent};
use engine::optim::{self, Optimizer, OptimizerBuffers};
use engine::tiles::TileShape;

const TOL: f32 = 1e-5;

/// Workgroup caps to test: the device's own (0), one workgroup looping over every tile, and
/// one workgroup per tile (a real GPU's).
const CAPS: [u32; 3] = [0, 1, u32::MAX];

#[test]
fn matmul_matches_cpu_at_odd_sizes_and_strides() {
    // Sized as an emulated GPU and as a real one (the split tiles' two loops).
    for ctx in [gpu(), gpu_as_real()] {
        matmul_matches_cpu_on(&ctx);
    }
}

fn matmul_matches_cpu_on(ctx: &std::rc::Rc<engine::gpu::GpuContext>) {
    let sizes = [
        (1, 1, 1),
        (3, 17, 5),
        (17, 3, 1000),
        (33, 65, 17),
        (1000, 3, 3),
        (130, 200, 9),
    ];
    let every = sizes.iter().flat_map(|s| CAPS.map(|p| (s, p)));
    for ((&(m, n, k), parallel), tiles) in every.flat_map(|c| TileShape::ALL.map(|t| (c, t))) {
        for transpose_a in [false, true] {
            for accumulate in [false, true] {
                let mut t = BufferTable::default();
                // C's rows 2 apart where A is transposed (as the transformer's head writes only
                // each sequence's last position): what lies between is left as it was.
                let c_rs = if transpose_a { n + 2 } else { 0 };
                let c_len = m * (n + 2) + 1;
                let a = t.add("a", Elem::F32, m * k + 2);
                let b = t.add("b", Elem::F32, k * n + 3);
                let c = t.add("c", Elem::F32, c_len);
                // A stored k×m when transposed; B always read as the transpose of an n×k matrix
                // at an offset, like the forward pass reads W.
                let (a_rs, a_cs) = if transpose_a { (1, m) } else { (k, 1) };
                let dims = MatmulDims {
                    m,
                    n,
                    k,
                    a_off: 2,
                    a_rs,
                    a_cs,
                    b_off: 3,
                    b_rs: 1,
                    b_cs: k,
                    c_off: 1,
                    c_rs,
                    accumulate,
                    ..Default::default()
                };
                let out = run_both(
                    ctx,
                    t,
                    vec![
                        Init::F32(random(m * k + 2, 1)),
                        Init::F32(random(k * n + 3, 2)),
                        Init::F32(random(c_len, 3)),
                    ],
                    || {
                        Box::new(Matmul {
                            parallel,
                            tiles: Some(tiles),
                            fetch_ahead: false,
                            ..Matmul::new(a, b, c, dims)
                        })
                    },
                    StepScalars::default(),
                    &[c],
                );
                let tol = 1e-5 * (k as f32).sqrt();
                assert_close(
                    &format!(
                        "matmul {m}x{n}x{k} T{transpose_a} acc{accumulate} cap {parallel} tiles {tiles:?}"
                    ),
                    &out[0].0,
                    &out[0].1,
                    tol,
                    1e-5,
                );
            }
        }
    }
}

#[test]
fn bias_add_and_grad_match_cpu() {
    let ctx = gpu();
    for &(rows, cols) in &[(1, 1), (3, 17), (1000, 3)] {
        let mut t = BufferTable::default();
        let params = t.add("params", Elem::F32, cols + 4);
        let z = t.add("z", Elem::F32, rows * cols);
        let grads = t.add("grads", Elem::F32, cols + 4);
        let inits = || {
            vec![
                Init::F32(random(cols + 4, 4)),
                Init::F32(random(rows * cols, 5)),
                Init::F32(random(cols + 4, 6)),
            ]
        };
        let out = run_both(
            &ctx,
            t.clone(),
            inits(),
            || {
                Box::new(AddBias {
                    params,
                    bias_off: 4,
                    z,
                    rows,
                    cols,
                    points: Points::default(),
                })
            },
            StepScalars::default(),
            &[z],
        );
        assert_close("add_bias", &out[0].0, &out[0].1, TOL, TOL);
        let out = run_both(
            &ctx,
            t,
            inits(),
            || {
                Box::new(BiasGrad {
                    dz: z,
                    grads,
                    bias_off: 4,
                    rows,
                    cols,
                })
            },
            StepScalars::default(),
            &[grads],
        );
        assert_close("bias_grad", &out[0].0, &out[0].1, 1e-4, 1e-4);
    }
}

#[test]
fn activations_forward_and_backward_match_cpu() {
    let ctx = gpu();
    for kind in Activation::ALL {
        for &n in &[1, 3, 17, 1000] {
            let mut t = BufferTable::default();
            let z = t.add("z", Elem::F32, n);
            let h = t.add("h", Elem::F32, n);
            let dh = t.add("dh", Elem::F32, n);
            let dz = t.add("dz", Elem::F32, n);
            let zs: Vec<f32> = random(n, 7).iter().map(|v| v * 4.0).collect();
            let inits = || {
                vec![
                    Init::F32(zs.clone()),
                    Init::F32(vec![0.0; n]),
                    Init::F32(random(n, 8)),
                    Init::F32(vec![0.0; n]),
                ]
            };
            let out = run_both(
                &ctx,
                t.clone(),
                inits(),
                || Box::new(ActForward { kind, z, h, n }),
                StepScalars::default(),
                &[h],
            );
            assert_close(&format!("{kind:?} forward"), &out[0].0, &out[0].1, TOL, TOL);
            let out = run_both(
                &ctx,
                t,
                inits(),
                || Box::new(ActBackward { kind, z, dh, dz, n }),
                StepScalars::default(),
                &[dz],
            );
            assert_close(&format!("{kind:?} backward"), &out[0].0, &out[0].1, TOL, TOL);
        }
    }
}

#[test]
fn softmax_cross_entropy_and_batch_mean_match_cpu() {
    let ctx = gpu();
    for &(rows, classes) in &[(1, 2), (3, 3), (17, 10), (1000, 5)] {
        let mut t = BufferTable::default();
        let logits = t.add("logits", Elem::F32, rows * classes);
        let labels = t.add("labels", Elem::U32, rows);
        let loss = t.add("loss", Elem::F32, rows);
        let correct = t.add("correct", Elem::F32, rows);
        let dlogits = t.add("dlogits", Elem::F32, rows * classes);
        let probs = t.add("probs", Elem::F32, rows * classes);
        let log_loss = t.add("log_loss", Elem::F32, 8);
        let log_acc = t.add("log_acc", Elem::F32, 8);
        let labels_v: Vec<u32> = (0..rows).map(|r| ((r * 7 + 3) % classes) as u32).collect();
        let logits_v: Vec<f32> = random(rows * classes, 9).iter().map(|v| v * 5.0).collect();
        let inits = || {
            vec![
                Init::F32(logits_v.clone()),
                Init::U32(labels_v.clone()),
                Init::F32(random(rows, 10).iter().map(|v| v.abs()).collect()),
                Init::F32((0..rows).map(|r| (r % 2) as f32).collect()),
                Init::F32(vec![0.0; rows * classes]),
                Init::F32(vec![0.0; rows * classes]),
                Init::F32(vec![0.0; 8]),
                Init::F32(vec![0.0; 8]),
            ]
        };
        let out = run_both(
            &ctx,
            t.clone(),
            inits(),
            || {
                Box::new(SoftmaxXent {
                    logits,
                    labels,
                    loss,
                    correct,
                    dlogits,
                    rows,
                    classes,
                })
            },
            StepScalars::default(),
            &[loss, correct, dlogits],
        );
        assert_close("xent loss", &out[0].0, &out[0].1, TOL, TOL);
        assert_close("xent correct", &out[1].0, &out[1].1, 0.0, 0.0);
        assert_close("xent dlogits", &out[2].0, &out[2].1, TOL, TOL);
        let out = run_both(
            &ctx,
            t.clone(),
            inits(),
            || {
                Box::new(Softmax {
                    logits,
                    probs,
                    rows,
                    classes,
                })
            },
            StepScalars::default(),
            &[probs],
        );
        assert_close("softmax", &out[0].0, &out[0].1, TOL, TOL);
        let step = StepScalars {
            slot: 5,
            ..Default::default()
        };
        let out = run_both(
            &ctx,
            t,
            inits(),
            || {
                Box::new(BatchMean {
                    loss,
                    correct,
                    log_loss,
                    log_accuracy: log_acc,
                    rows,
                    batches: 1,
                })
            },
            step,
            &[log_loss, log_acc],
        );
        assert_close("batch mean loss", &out[0].0, &out[0].1, TOL, 1e-5);
        assert_close("batch mean accuracy", &out[1].0, &out[1].1, TOL, 1e-5);
        assert!(
            out[0].1[5] > 0.0 && out[0].1[4] == 0.0,
            "the mean lands in the given slot only"
        );
    }
}

mod data_and_updates;
mod losses_and_points;
