//! The losses, the penalties and dropout, and the landscape's points side by side, against their CPU twins.

use super::*;

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
