//! Convolution and pooling: GPU kernels against their CPU twins (odd sizes, strides, padding,
//! channels), and the CPU twins' backward passes against finite differences of L = Σ out · R.

use crate::common;

use common::{assert_close, gpu, gpu_as_real, random, run_multi, Init};
use engine::kernel::{BufferTable, Elem, Kernel, StepScalars};
use engine::ops::conv2d::*;
use engine::ops::pool::*;
use engine::tiles::{TilePlan, CONV_CHUNK_CAPS, DEFAULT_CONV_CHUNKS};

fn geoms() -> Vec<ConvGeom> {
    let g = |batch, in_c, in_h, in_w, out_c, k, stride, pad| ConvGeom {
        batch,
        in_c,
        in_h,
        in_w,
        out_c,
        k_h: k,
        k_w: k,
        stride,
        pad,
        w_off: 3,
        b_off: 3 + out_c * in_c * k * k,
    };
    vec![
        g(1, 1, 1, 1, 1, 1, 1, 0),
        g(2, 3, 7, 5, 4, 3, 1, 1),
        g(3, 2, 9, 9, 5, 3, 2, 0),
        g(1, 1, 28, 28, 8, 5, 1, 0), // LeNet's first layer
        // 2,304 positions: more row tiles than workgroups (they loop) and two gradient chunks.
        g(4, 1, 28, 28, 8, 5, 1, 0),
        g(2, 4, 6, 6, 17, 2, 2, 2),
        g(1, 3, 17, 13, 3, 5, 3, 2),
    ]
}

/// On the emulated GPU's sizes and on a real GPU's (every tile its own workgroup, gradient chunks
/// of at least 128 positions), under every cap on the chunks that the autotune may choose, and
/// with the narrow tiles (128 × 8) for the GEMMs of at most 8 columns (every geometry here has
/// some) under two of them. The narrow tiles sum every value in the same order as the wide ones,
/// so they give the same values to the bit.
#[test]
fn conv2d_kernels_match_cpu() {
    conv2d_kernels_match_cpu_on(&gpu());
    let real = gpu_as_real();
    let mut wide = Vec::new();
    for cap in CONV_CHUNK_CAPS {
        real.tiles.set(TilePlan {
            conv_chunks: cap,
            ..TilePlan::default()
        });
        wide.push(conv2d_kernels_match_cpu_on(&real));
    }
    for (cap, at) in [(DEFAULT_CONV_CHUNKS, 2), (8, 0)] {
        assert_eq!(CONV_CHUNK_CAPS[at], cap);
        real.tiles.set(TilePlan {
            conv_chunks: cap,
            conv_narrow: true,
            ..TilePlan::default()
        });
        let narrow = conv2d_kernels_match_cpu_on(&real);
        assert!(
            narrow == wide[at],
            "narrow tiles at {cap} chunks differ from wide ones"
        );
    }
}

/// Every geometry's forward, gradients and input gradient from the GPU, after checking each
/// against the CPU twins.
fn conv2d_kernels_match_cpu_on(ctx: &std::rc::Rc<engine::gpu::GpuContext>) -> Vec<Vec<f32>> {
    let mut gpu_values = Vec::new();
    for g in geoms() {
        let n_params = g.b_off + g.out_c;
        let mut t = BufferTable::default();
        let input = t.add("in", Elem::F32, g.in_len());
        let params = t.add("params", Elem::F32, n_params);
        let output = t.add("out", Elem::F32, g.out_len());
        let d_out = t.add("d_out", Elem::F32, g.out_len());
        let d_in = t.add("d_in", Elem::F32, g.in_len());
        let grads = t.add("grads", Elem::F32, n_params);
        let partials = t.add("partials", Elem::F32, g.chunk_slots() * g.partial_len());
        let inits = vec![
            Init::F32(random(g.in_len(), 1)),
            Init::F32(random(n_params, 2)),
            Init::F32(vec![0.0; g.out_len()]),
            Init::F32(random(g.out_len(), 3)),
            Init::F32(vec![0.0; g.in_len()]),
            Init::F32(vec![0.0; n_params]),
            Init::F32(vec![0.0; g.chunk_slots() * g.partial_len()]),
        ];
        let buffers = BackwardBuffers {
            input,
            d_out,
            d_in: Some(d_in),
            params,
            partials,
            grads,
        };
        let kernels = || -> Vec<Box<dyn Kernel>> {
            let mut step: Vec<Box<dyn Kernel>> =
                vec![Box::new(Conv2dForward::single(input, params, output, g))];
            step.extend(backward_kernels(g, buffers));
            step
        };
        let out = run_multi(
            ctx,
            t,
            inits,
            kernels,
            StepScalars::default(),
            &[output, grads, d_in],
        );
        let tol = 1e-5 * (g.patch_len().max(g.batch * g.out_h() * g.out_w()) as f32).sqrt();
        for (name, (gpu, cpu)) in ["forward", "weight+bias grads", "input grads"].iter().zip(&out) {
            assert_close(&format!("conv {g:?} {name}"), gpu, cpu, tol, 1e-4);
            gpu_values.push(gpu.clone());
        }
    }
    gpu_values
}

/// The forward pass of several weight vectors at once (the landscape's points): each point's
/// block of the output is its own weights' convolution of the shared images, or of its own.
#[test]
fn conv2d_forward_of_several_points_matches_each_point_alone() {
    let ctx = gpu();
    let points = 3;
    for g in geoms() {
        for input_shared in [true, false] {
            let stride = g.b_off + g.out_c + 5;
            let in_len = if input_shared {
                g.in_len()
            } else {
                points * g.in_len()
            };
            let mut t = BufferTable::default();
            let input = t.add("in", Elem::F32, in_len);
            let params = t.add("params", Elem::F32, points * stride);
            let output = t.add("out", Elem::F32, points * g.out_len());
            let (iv, pv) = (random(in_len, 4), random(points * stride, 5));
            let out = run_multi(
                &ctx,
                t,
                vec![
                    Init::F32(iv.clone()),
                    Init::F32(pv.clone()),
                    Init::F32(vec![0.0; points * g.out_len()]),
                ],
                || -> Vec<Box<dyn Kernel>> {
                    vec![Box::new(Conv2dForward {
                        input,
                        params,
                        output,
                        g,
                        points: engine::kernel::Points::new(points, stride),
                        input_shared,
                        row_groups: ROW_GROUPS,
                        narrow: false,
                    })]
                },
                StepScalars::default(),
                &[output],
            );
            let tol = 1e-5 * (g.patch_len() as f32).sqrt();
            let what = format!("conv {g:?} x{points} shared {input_shared}");
            assert_close(&what, &out[0].0, &out[0].1, tol, 1e-4);
            for q in 0..points {
                let x = if input_shared {
                    &iv[..]
                } else {
                    &iv[q * g.in_len()..]
                };
                let mut want = vec![0.0; g.out_len()];
                conv2d_forward_reference(&g, x, &pv[q * stride..], &mut want);
                let got = &out[0].0[q * g.out_len()..(q + 1) * g.out_len()];
                assert_close(&format!("{what} point {q}"), got, &want, tol, 1e-4);
            }
        }
    }
}

#[test]
fn pooling_kernels_match_cpu() {
    let ctx = gpu();
    for kind in [PoolKind::Max, PoolKind::Avg] {
        for g in [
            PoolGeom {
                planes: 1,
                in_h: 1,
                in_w: 1,
                size: 1,
                stride: 1,
            },
            PoolGeom {
                planes: 3,
                in_h: 8,
                in_w: 8,
                size: 2,
                stride: 2,
            },
            PoolGeom {
                planes: 17,
                in_h: 7,
                in_w: 5,
                size: 3,
                stride: 2,
            },
            PoolGeom {
                planes: 2,
                in_h: 9,
                in_w: 9,
                size: 3,
                stride: 1,
            },
            // More values than an emulated GPU's few workgroups take in one pass of their
            // grid-stride loop: W2's first pooling (windows that tile the input), and windows
            // that do not reach the last row.
            PoolGeom {
                planes: 512,
                in_h: 24,
                in_w: 24,
                size: 2,
                stride: 2,
            },
            PoolGeom {
                planes: 40,
                in_h: 7,
                in_w: 8,
                size: 2,
                stride: 2,
            },
        ] {
            let mut t = BufferTable::default();
            let input = t.add("in", Elem::F32, g.in_len());
            let output = t.add("out", Elem::F32, g.out_len());
            let argmax = t.add("argmax", Elem::U32, g.out_len());
            let d_out = t.add("d_out", Elem::F32, g.out_len());
            let d_in = t.add("d_in", Elem::F32, g.in_len());
            let inits = vec![
                Init::F32(random(g.in_len(), 5)),
                Init::F32(vec![0.0; g.out_len()]),
                Init::U32(vec![0; g.out_len()]),
                Init::F32(random(g.out_len(), 6)),
                Init::F32(vec![0.0; g.in_len()]),
            ];
            let kernels = || -> Vec<Box<dyn Kernel>> {
                vec![
                    Box::new(PoolForward {
                        kind,
                        input,
                        output,
                        argmax,
                        g,
                    }),
                    Box::new(PoolBackward {
                        kind,
                        d_out,
                        argmax,
                        d_in,
                        g,
                    }),
                ]
            };
            let out = run_multi(&ctx, t, inits, kernels, StepScalars::default(), &[output, d_in]);
            assert_close(
                &format!("{kind:?} {g:?} forward"),
                &out[0].0,
                &out[0].1,
                1e-6,
                1e-6,
            );
            assert_close(
                &format!("{kind:?} {g:?} backward"),
                &out[1].0,
                &out[1].1,
                1e-6,
                1e-5,
            );
        }
    }
}

/// Central differences of L(x) = Σ f(x) · r with respect to every x, in f64 accumulation.
fn numeric_grad(x: &[f32], r: &[f32], f: impl Fn(&[f32]) -> Vec<f32>) -> Vec<f32> {
    let loss = |x: &[f32]| {
        f(x).iter()
            .zip(r)
            .map(|(a, b)| *a as f64 * *b as f64)
            .sum::<f64>()
    };
    let h = 1e-2f32;
    (0..x.len())
        .map(|i| {
            let mut p = x.to_vec();
            p[i] += h;
            let up = loss(&p);
            p[i] -= 2.0 * h;
            ((up - loss(&p)) / (2.0 * h as f64)) as f32
        })
        .collect()
}

#[test]
fn conv2d_backward_matches_finite_differences() {
    // Convolution is linear in its input and in its weights, so central differences are exact up
    // to rounding.
    for g in geoms().into_iter().filter(|g| g.in_len() < 400) {
        let n_params = g.b_off + g.out_c;
        let (x, p, r) = (random(g.in_len(), 7), random(n_params, 8), random(g.out_len(), 9));
        let forward = |x: &[f32], p: &[f32]| {
            let mut out = vec![0.0; g.out_len()];
            conv2d_forward_cpu(&g, x, p, &mut out);
            out
        };
        let mut d_in = vec![0.0; g.in_len()];
        conv2d_backward_input_cpu(&g, &p, &r, &mut d_in);
        assert_close(
            "conv d_in",
            &d_in,
            &numeric_grad(&x, &r, |x| forward(x, &p)),
            1e-3,
            1e-3,
        );
        let mut grads = vec![0.0; n_params];
        conv2d_backward_params_cpu(&g, &x, &r, &mut grads);
        let numeric = numeric_grad(&p, &r, |p| forward(&x, p));
        assert_close("conv d_params", &grads[3..], &numeric[3..], 1e-3, 1e-3);
    }
}

#[test]
fn pool_backward_matches_finite_differences() {
    let g = PoolGeom {
        planes: 2,
        in_h: 7,
        in_w: 6,
        size: 3,
        stride: 2,
    };
    // Spread values apart so no two in a window tie within the step.
    let x: Vec<f32> = (0..g.in_len()).map(|i| ((i * 37) % 101) as f32 * 0.1).collect();
    let r = random(g.out_len(), 10);
    for kind in [PoolKind::Max, PoolKind::Avg] {
        let forward = |x: &[f32]| {
            let (mut out, mut arg) = (vec![0.0; g.out_len()], vec![0; g.out_len()]);
            pool_forward_cpu(kind, &g, x, &mut out, &mut arg);
            out
        };
        let (mut out, mut arg) = (vec![0.0; g.out_len()], vec![0; g.out_len()]);
        pool_forward_cpu(kind, &g, &x, &mut out, &mut arg);
        let mut d_in = vec![0.0; g.in_len()];
        pool_backward_cpu(kind, &g, &r, &arg, &mut d_in);
        assert_close(
            &format!("{kind:?} d_in"),
            &d_in,
            &numeric_grad(&x, &r, forward),
            1e-3,
            1e-3,
        );
    }
}
