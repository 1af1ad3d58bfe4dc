//! The landscape point's weights, the pruning mask, group lasso, the gathers of a batch (f32 and packed bytes) and every optimizer's update, against their CPU twins.

use super::*;

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

/// The pruning mask on the weights: w · m, exact on both.
#[test]
fn mask_matches_cpu() {
    use engine::ops::mask::ApplyMask;
    let ctx = gpu();
    for &n in &[1, 3, 17, 1000] {
        let mut t = BufferTable::default();
        let mask = t.add("mask", Elem::F32, n);
        let weights = t.add("weights", Elem::F32, n);
        let m: Vec<f32> = (0..n).map(|i| (i % 2) as f32).collect();
        let out = run_both(
            &ctx,
            t,
            vec![Init::F32(m.clone()), Init::F32(random(n, 4))],
            || Box::new(ApplyMask { mask, weights, n }),
            StepScalars::default(),
            &[weights],
        );
        let want: Vec<f32> = random(n, 4)
            .iter()
            .zip(&m)
            .map(|(w, m)| if *m == 1.0 { *w } else { 0.0 })
            .collect();
        assert_eq!(out[0].0, want, "GPU");
        assert_eq!(out[0].1, want, "CPU");
    }
}

/// Group lasso on a layer's rows (a neuron's incoming weights), one all-zero row left alone.
#[test]
fn group_lasso_matches_cpu() {
    use engine::ops::group_lasso::GroupLasso;
    let ctx = gpu();
    for &(inputs, outputs) in &[(1, 1), (3, 5), (784, 100)] {
        let n = 2 + inputs * outputs;
        let mut t = BufferTable::default();
        let weights = t.add("weights", Elem::F32, n);
        let grads = t.add("grads", Elem::F32, n);
        let mut w = random(n, 5);
        w[2..2 + inputs].fill(0.0);
        let out = run_both(
            &ctx,
            t,
            vec![Init::F32(w), Init::F32(random(n, 6))],
            || {
                Box::new(GroupLasso {
                    weights,
                    grads,
                    w_off: 2,
                    inputs,
                    outputs,
                    lambda: 0.01,
                })
            },
            StepScalars::default(),
            &[grads],
        );
        assert_close("group lasso", &out[0].0, &out[0].1, 1e-6, 1e-5);
        assert_eq!(
            out[0].1[2..2 + inputs],
            random(n, 6)[2..2 + inputs],
            "a zero row is left alone"
        );
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
        // 20,011: more than four passes of a grid-stride loop on lavapipe (its loops take four
        // values a pass, then the rest one by one).
        for &n in &[1, 3, 17, 1000, 20_011] {
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
