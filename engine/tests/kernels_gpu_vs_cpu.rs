//! Every kernel against its CPU twin, at odd sizes (1, 3, 17, 1000) and with transposed strides.
//! Runs on whatever adapter wgpu finds: Mesa's lavapipe in CI.

mod common;

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
                let a = t.add("a", Elem::F32, m * k + 2);
                let b = t.add("b", Elem::F32, k * n + 3);
                let c = t.add("c", Elem::F32, m * n + 1);
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
                    accumulate,
                    ..Default::default()
                };
                let out = run_both(
                    ctx,
                    t,
                    vec![
                        Init::F32(random(m * k + 2, 1)),
                        Init::F32(random(k * n + 3, 2)),
                        Init::F32(random(m * n + 1, 3)),
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

/// The weights at a point of a landscape plane, the point picked by the step's slot.
#[test]
fn weight_offset_matches_cpu() {
    use engine::ops::weight_offset::WeightOffset;
    let ctx = gpu();
    for &n in &[1, 3, 17, 1000] {
        let mut t = BufferTable::default();
        let [center, d1, d2] = ["center", "d1", "d2"].map(|name| t.add(name, Elem::F32, n));
        let points = t.add("points", Elem::F32, 6);
        let weights = t.add("weights", Elem::F32, n);
        let out = run_both(
            &ctx,
            t,
            vec![
                Init::F32(random(n, 1)),
                Init::F32(random(n, 2)),
                Init::F32(random(n, 3)),
                Init::F32(vec![0.5, -1.0, -0.25, 2.0, 9.0, 9.0]),
                Init::F32(vec![0.0; n]),
            ],
            || {
                Box::new(WeightOffset {
                    center,
                    d1,
                    d2,
                    points,
                    weights,
                    n,
                    count: 1,
                })
            },
            StepScalars {
                slot: 1,
                ..Default::default()
            },
            &[weights],
        );
        assert_close("weight offset", &out[0].0, &out[0].1, 1e-6, 1e-6);
        let (c, a, b) = (random(n, 1), random(n, 2), random(n, 3));
        let want: Vec<f32> = (0..n).map(|i| c[i] - 0.25 * a[i] + 2.0 * b[i]).collect();
        assert_close("slot 1 is (−0.25, 2)", &out[0].1, &want, 1e-6, 1e-6);
    }
}

#[test]
fn gather_matches_cpu() {
    let ctx = gpu();
    for &(rows, dim) in &[(1, 1), (3, 2), (17, 3), (1000, 2)] {
        let data_rows = rows + 5;
        let mut t = BufferTable::default();
        let dx = t.add("data_x", Elem::F32, data_rows * dim);
        let dy = t.add("data_y", Elem::U32, data_rows);
        let idx = t.add("indices", Elem::U32, rows);
        let bx = t.add("batch_x", Elem::F32, rows * dim);
        let by = t.add("batch_y", Elem::U32, rows);
        let indices: Vec<u32> = (0..rows).map(|r| ((r * 13 + 2) % data_rows) as u32).collect();
        let out = run_both(
            &ctx,
            t,
            vec![
                Init::F32(random(data_rows * dim, 11)),
                Init::U32((0..data_rows as u32).map(|i| i % 3).collect()),
                Init::U32(indices),
                Init::F32(vec![0.0; rows * dim]),
                Init::U32(vec![0; rows]),
            ],
            || {
                Box::new(Gather {
                    data_x: dx,
                    data_y: dy,
                    indices: idx,
                    batch_x: bx,
                    batch_y: by,
                    rows,
                    dim,
                    packed: false,
                })
            },
            StepScalars::default(),
            &[bx, by],
        );
        assert_close("gather x", &out[0].0, &out[0].1, 0.0, 0.0);
        assert_close("gather y", &out[1].0, &out[1].1, 0.0, 0.0);
    }
}

/// Image bytes stored four to a word: odd row lengths so rows straddle words.
#[test]
fn packed_gather_matches_cpu_and_the_bytes() {
    let ctx = gpu();
    for &(rows, dim) in &[(1, 1), (3, 5), (17, 3), (64, 784)] {
        let data_rows = rows + 5;
        let bytes: Vec<u8> = (0..data_rows * dim).map(|i| (i * 37 % 256) as u8).collect();
        let data = engine::data::Dataset {
            x: bytes.iter().map(|&b| b as f32 / 255.0).collect(),
            y: (0..data_rows as u32).map(|i| i % 3).collect(),
            dim,
            classes: 3,
            targets: Vec::new(),
        };
        let words = data.packed_u8().expect("bytes over 255 pack");
        let mut t = BufferTable::default();
        let dx = t.add("data_bytes", Elem::U32, words.len());
        let dy = t.add("data_y", Elem::U32, data_rows);
        let idx = t.add("indices", Elem::U32, rows);
        let bx = t.add("batch_x", Elem::F32, rows * dim);
        let by = t.add("batch_y", Elem::U32, rows);
        let indices: Vec<u32> = (0..rows).map(|r| ((r * 13 + 2) % data_rows) as u32).collect();
        let want: Vec<f32> = indices
            .iter()
            .flat_map(|&r| data.point(r as usize).to_vec())
            .collect();
        let out = run_both(
            &ctx,
            t,
            vec![
                Init::U32(words),
                Init::U32(data.y.clone()),
                Init::U32(indices),
                Init::F32(vec![0.0; rows * dim]),
                Init::U32(vec![0; rows]),
            ],
            || {
                Box::new(Gather {
                    data_x: dx,
                    data_y: dy,
                    indices: idx,
                    batch_x: bx,
                    batch_y: by,
                    rows,
                    dim,
                    packed: true,
                })
            },
            StepScalars::default(),
            &[bx, by],
        );
        // WGSL may divide within a couple of ulps; the CPU twin reproduces the f32 data exactly.
        assert_close("packed gather x (GPU vs CPU)", &out[0].0, &out[0].1, 1e-6, 0.0);
        assert_eq!(out[0].1, want, "the CPU twin unpacks the original values");
        assert_close("gather y", &out[1].0, &out[1].1, 0.0, 0.0);
    }
    let not_bytes = engine::data::Dataset {
        x: vec![0.5, 0.25],
        y: vec![0],
        dim: 2,
        classes: 1,
        targets: Vec::new(),
    };
    assert_eq!(not_bytes.packed_u8(), None, "0.5 is not a byte over 255");
}

#[test]
fn every_optimizer_matches_cpu() {
    let ctx = gpu();
    for opt in Optimizer::all() {
        for &n in &[1, 3, 17, 1000] {
            let mut t = BufferTable::default();
            let g = t.add("grads", Elem::F32, n);
            let w = t.add("weights", Elem::F32, n);
            let a = t.add("state_a", Elem::F32, n);
            let b = t.add("state_b", Elem::F32, n);
            // Three tensors for LARS: [0, n/3), [n/3, n/2), [n/2, n) (some empty at small n).
            let bounds = t.add("bounds", Elem::U32, 4);
            let norms = t.add("norms", Elem::F32, 6);
            let inits = vec![
                Init::F32(random(n, 12)),
                Init::F32(random(n, 13)),
                // Accumulators of squares are never negative.
                Init::F32(random(n, 14).iter().map(|x| x.abs()).collect()),
                Init::F32(random(n, 15).iter().map(|x| x.abs()).collect()),
                Init::U32(vec![0, n as u32 / 3, n as u32 / 2, n as u32]),
                Init::F32(vec![0.0; 6]),
            ];
            let bufs = OptimizerBuffers {
                grads: g,
                weights: w,
                state_a: a,
                state_b: b,
                bounds,
                norms,
                n,
                segments: 3,
            };
            let step = StepScalars {
                slot: 0,
                t: 3,
                lr: 0.05,
                ..Default::default()
            };
            let out = run_multi(&ctx, t, inits, || optim::kernels(opt, bufs), step, &[w, a, b]);
            for (name, (gpu, cpu)) in ["weights", "state a", "state b"].iter().zip(&out) {
                assert_close(&format!("{} {name} n={n}", opt.label()), gpu, cpu, TOL, 1e-4);
            }
        }
    }
}

#[test]
fn mse_regularize_and_dropout_match_cpu() {
    use engine::ops::dropout::Dropout;
    use engine::ops::mse::Mse;
    use engine::ops::regularize::Regularize;
    let ctx = gpu();
    // (rows, classes, regression): a regression row has one output and a real target, whose
    // f32 bits ride in the label buffer.
    for &(rows, classes, regression) in &[
        (1, 2, false),
        (3, 3, false),
        (17, 10, false),
        (1000, 5, false),
        (1, 1, true),
        (17, 1, true),
        (1000, 1, true),
    ] {
        let mut t = BufferTable::default();
        let outputs = t.add("outputs", Elem::F32, rows * classes);
        let labels = t.add("labels", Elem::U32, rows);
        let loss = t.add("loss", Elem::F32, rows);
        let correct = t.add("correct", Elem::F32, rows);
        let d = t.add("d", Elem::F32, rows * classes);
        let inits = vec![
            Init::F32(random(rows * classes, 20)),
            Init::U32(if regression {
                random(rows, 23).iter().map(|t| t.to_bits()).collect()
            } else {
                (0..rows).map(|r| (r % classes) as u32).collect()
            }),
            Init::F32(vec![0.0; rows]),
            Init::F32(vec![0.0; rows]),
            Init::F32(vec![0.0; rows * classes]),
        ];
        let out = run_both(
            &ctx,
            t,
            inits,
            || {
                Box::new(Mse {
                    outputs,
                    labels,
                    loss,
                    correct,
                    d_outputs: d,
                    rows,
                    classes,
                    regression,
                })
            },
            StepScalars::default(),
            &[loss, correct, d],
        );
        for (name, (g, c)) in ["mse loss", "mse correct", "mse gradient"].iter().zip(&out) {
            assert_close(name, g, c, TOL, TOL);
        }
    }
    for &n in &[1, 3, 17, 1000] {
        let mut t = BufferTable::default();
        let w = t.add("w", Elem::F32, n);
        let g = t.add("g", Elem::F32, n);
        let bounds = t.add("bounds", Elem::U32, 4);
        let mut wv = random(n, 21);
        wv[0] = 0.0; // sign(0) = 0 on both sides
        let inits = vec![
            Init::F32(wv),
            Init::F32(random(n, 22)),
            Init::U32(vec![0, n as u32 / 2, (3 * n / 4) as u32, n as u32]),
        ];
        let out = run_both(
            &ctx,
            t,
            inits,
            || {
                Box::new(Regularize {
                    weights: w,
                    grads: g,
                    bounds,
                    n,
                    segments: 3,
                    l1: 0.01,
                    l2: 0.1,
                })
            },
            StepScalars::default(),
            &[g],
        );
        assert_close("regularize", &out[0].0, &out[0].1, TOL, TOL);

        let mut t = BufferTable::default();
        let x = t.add("x", Elem::F32, n);
        let y = t.add("y", Elem::F32, n);
        let out = run_both(
            &ctx,
            t,
            vec![Init::F32(random(n, 23)), Init::F32(vec![0.0; n])],
            || {
                Box::new(Dropout {
                    x,
                    y,
                    n,
                    seed: 7,
                    keep: 0.7,
                })
            },
            StepScalars {
                t: 5,
                ..Default::default()
            },
            &[y],
        );
        assert_close("dropout", &out[0].0, &out[0].1, TOL, TOL);
    }
}

/// The landscape's points side by side (several weight vectors in one dispatch): the batched
/// matrix product (shared or per-point left operand), the per-point bias, the per-point weights
/// and the per-point means, each against its CPU twin and against a closed form per point.
#[test]
fn landscape_point_batches_match_cpu_and_each_point_alone() {
    use engine::ops::bias::add_bias_cpu;
    use engine::ops::matmul::matmul_reference;
    use engine::ops::weight_offset::WeightOffset;
    let ctx = gpu();
    let points = 3;
    for &(m, n, k) in &[(1, 1, 1), (17, 3, 5), (33, 65, 17)] {
        for (shared, parallel) in [true, false].into_iter().flat_map(|s| CAPS.map(|p| (s, p))) {
            let a_bs = if shared { 0 } else { m * k };
            let (a_len, b_len, c_len) = (m * k + 2 * a_bs, points * (k * n + 2), points * m * n);
            let mut t = BufferTable::default();
            let a = t.add("a", Elem::F32, a_len);
            let b = t.add("b", Elem::F32, b_len);
            let c = t.add("c", Elem::F32, c_len);
            let dims = MatmulDims {
                m,
                n,
                k,
                a_rs: k,
                a_cs: 1,
                b_off: 1,
                b_rs: 1,
                b_cs: k,
                batch: points,
                a_bs,
                b_bs: k * n + 2,
                c_bs: m * n,
                ..Default::default()
            };
            let (av, bv) = (random(a_len, 11), random(b_len, 12));
            // C filled with `fill` first; `step.points` live products.
            let run = |fill: f32, step: StepScalars| {
                run_both(
                    &ctx,
                    t.clone(),
                    vec![
                        Init::F32(av.clone()),
                        Init::F32(bv.clone()),
                        Init::F32(vec![fill; c_len]),
                    ],
                    || {
                        Box::new(Matmul {
                            parallel,
                            ..Matmul::new(a, b, c, dims)
                        })
                    },
                    step,
                    &[c],
                )
            };
            let out = run(0.0, StepScalars::default());
            let what = format!("batched matmul {m}x{n}x{k} shared {shared} cap {parallel}");
            let tol = 1e-5 * (k as f32).sqrt();
            // A last pass with one live product: the others are left alone.
            let live = run(
                7.0,
                StepScalars {
                    points: 1,
                    ..Default::default()
                },
            );
            assert_close(&format!("{what}, first only"), &live[0].0, &live[0].1, tol, 1e-5);
            assert_eq!(
                &live[0].0[..m * n],
                &out[0].0[..m * n],
                "{what}: the live product"
            );
            assert!(
                live[0].0[m * n..].iter().all(|v| *v == 7.0),
                "{what}: the rest skipped"
            );
            assert_close(&what, &out[0].0, &out[0].1, tol, 1e-5);
            let mut want = vec![0.0; c_len];
            matmul_reference(&av, &bv, &mut want, &dims);
            assert_close(&format!("{what} vs triple loop"), &out[0].1, &want, tol, 1e-5);
        }
    }

    let (rows, cols, stride) = (17, 5, 9);
    let mut t = BufferTable::default();
    let params = t.add("params", Elem::F32, points * stride);
    let z = t.add("z", Elem::F32, points * rows * cols);
    let (pv, zv) = (random(points * stride, 13), random(points * rows * cols, 14));
    let out = run_both(
        &ctx,
        t,
        vec![Init::F32(pv.clone()), Init::F32(zv.clone())],
        || {
            Box::new(AddBias {
                params,
                bias_off: 2,
                z,
                rows,
                cols,
                points: Points::new(points, stride),
            })
        },
        StepScalars::default(),
        &[z],
    );
    assert_close("per-point bias", &out[0].0, &out[0].1, TOL, TOL);
    let mut want = zv.clone();
    for (q, block) in want.chunks_mut(rows * cols).enumerate() {
        add_bias_cpu(&pv[q * stride + 2..], block, cols);
    }
    assert_close("per-point bias vs point by point", &out[0].1, &want, TOL, TOL);

    let n = 17;
    let mut t = BufferTable::default();
    let [center, d1, d2] = ["center", "d1", "d2"].map(|name| t.add(name, Elem::F32, n));
    let plane = t.add("points", Elem::F32, 10);
    let weights = t.add("weights", Elem::F32, points * n);
    let list = vec![9.0, 9.0, 0.5, -1.0, -0.25, 2.0, 1.0, 0.0, 9.0, 9.0];
    let out = run_both(
        &ctx,
        t,
        vec![
            Init::F32(random(n, 1)),
            Init::F32(random(n, 2)),
            Init::F32(random(n, 3)),
            Init::F32(list.clone()),
            Init::F32(vec![0.0; points * n]),
        ],
        || {
            Box::new(WeightOffset {
                center,
                d1,
                d2,
                points: plane,
                weights,
                n,
                count: points,
            })
        },
        // A last pass with two live points: the third is left alone.
        StepScalars {
            slot: 1,
            points: 2,
            ..Default::default()
        },
        &[weights],
    );
    assert_close("weights of 2 of 3 points", &out[0].0, &out[0].1, 1e-6, 1e-6);
    assert!(out[0].0[2 * n..].iter().all(|w| *w == 0.0), "point 3 skipped");
    let (c, u, v) = (random(n, 1), random(n, 2), random(n, 3));
    for q in 0..2 {
        let (alpha, beta) = (list[2 * (1 + q)], list[2 * (1 + q) + 1]);
        let want: Vec<f32> = (0..n).map(|i| c[i] + alpha * u[i] + beta * v[i]).collect();
        let got = &out[0].1[q * n..(q + 1) * n];
        assert_close(&format!("point {q} = slot {}", 1 + q), got, &want, 1e-6, 1e-6);
    }

    let rows = 1000;
    let mut t = BufferTable::default();
    let loss = t.add("loss", Elem::F32, points * rows);
    let correct = t.add("correct", Elem::F32, points * rows);
    let log_loss = t.add("log_loss", Elem::F32, 8);
    let log_acc = t.add("log_acc", Elem::F32, 8);
    let lv: Vec<f32> = random(points * rows, 15).iter().map(|x| x.abs()).collect();
    let cv: Vec<f32> = (0..points * rows)
        .map(|r| (r % (2 + r / rows) == 0) as u8 as f32)
        .collect();
    let out = run_both(
        &ctx,
        t,
        vec![
            Init::F32(lv.clone()),
            Init::F32(cv.clone()),
            Init::F32(vec![0.0; 8]),
            Init::F32(vec![0.0; 8]),
        ],
        || {
            Box::new(BatchMean {
                loss,
                correct,
                log_loss,
                log_accuracy: log_acc,
                rows,
                batches: points,
            })
        },
        StepScalars {
            slot: 2,
            ..Default::default()
        },
        &[log_loss, log_acc],
    );
    assert_close("per-point mean loss", &out[0].0, &out[0].1, TOL, 1e-5);
    assert_close("per-point accuracy", &out[1].0, &out[1].1, TOL, 1e-5);
    for q in 0..points {
        let block = q * rows..(q + 1) * rows;
        let mean = |v: &[f32]| v.iter().map(|x| *x as f64).sum::<f64>() / rows as f64;
        let (l, a) = (mean(&lv[block.clone()]), mean(&cv[block]));
        assert!((out[0].0[2 + q] as f64 - l).abs() < 1e-5, "point {q} loss");
        assert!(
            (out[1].0[2 + q] as f64 - a).abs() < 1e-6,
            "point {q} accuracy {a}"
        );
    }
    assert!(
        out[0].0[1] == 0.0 && out[0].0[5] == 0.0,
        "only slots 2, 3, 4 written"
    );
}
