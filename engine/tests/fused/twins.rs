//! Each fused kernel against its CPU twin at odd sizes, with every workgroup cap and tile shape.

use super::*;

/// A dense layer's forward, gathered from a data set (bytes or f32) or not, with its bias and
/// each activation, at odd sizes.
#[test]
fn fused_forward_matches_its_twin() {
    // Sized as an emulated GPU and as a real one (the split tiles' two loops).
    for ctx in [gpu(), gpu_as_real()] {
        fused_forward_on(&ctx);
    }
}

fn fused_forward_on(ctx: &std::rc::Rc<engine::gpu::GpuContext>) {
    ctx.specialize.set(true);
    for (rows, units, inputs) in [
        (17usize, 3usize, 1000usize),
        (33, 65, 17),
        (130, 70, 9),
        (1, 1, 1),
    ] {
        for (kind, packed, gathered) in [
            (Activation::Relu, true, true),
            (Activation::Tanh, false, true),
            (Activation::Sigmoid, false, false),
            (Activation::LeakyRelu, true, true),
            (Activation::Linear, false, false),
        ] {
            for (parallel, tiles) in caps_and_tiles() {
                let data_rows = rows + 5;
                let mut t = BufferTable::default();
                let data = if packed {
                    t.add("data", Elem::U32, (data_rows * inputs).div_ceil(4))
                } else {
                    t.add("data", Elem::F32, data_rows * inputs)
                };
                let labels = t.add("labels", Elem::U32, data_rows);
                let indices = t.add("indices", Elem::U32, rows);
                let x = t.add("x", Elem::F32, rows * inputs);
                let y = t.add("y", Elem::U32, rows);
                let params = t.add("params", Elem::F32, units * inputs + units + 3);
                let z = t.add("z", Elem::F32, rows * units);
                let h = t.add("h", Elem::F32, rows * units);
                let unused = [
                    t.add("u1", Elem::F32, 1),
                    t.add("u2", Elem::U32, 1),
                    t.add("u3", Elem::F32, 1),
                    t.add("u4", Elem::F32, 1),
                ];
                let data_init = if packed {
                    let bytes: Vec<u32> = (0..(data_rows * inputs).div_ceil(4) as u32)
                        .map(|i| i.wrapping_mul(2654435761))
                        .collect();
                    Init::U32(bytes)
                } else {
                    Init::F32(random(data_rows * inputs, 4))
                };
                let picks: Vec<u32> = (0..rows as u32).map(|r| (r * 7 + 3) % data_rows as u32).collect();
                let mut inits = vec![
                    data_init,
                    Init::U32((0..data_rows as u32).collect()),
                    Init::U32(picks),
                    Init::F32(random(rows * inputs, 5)),
                    Init::U32(vec![0; rows]),
                    Init::F32(random(units * inputs + units + 3, 6)),
                ];
                inits.extend([z, h].map(|_| Init::F32(vec![0.0; 0])));
                let dims = MatmulDims {
                    m: rows,
                    n: units,
                    k: inputs,
                    a_rs: inputs,
                    a_cs: 1,
                    b_off: 3,
                    b_rs: 1,
                    b_cs: inputs,
                    ..Default::default()
                };
                let bias_off = 3 + units * inputs;
                let kernels = || -> Vec<Box<dyn Kernel>> {
                    let gather = Gather {
                        data_x: data,
                        data_y: labels,
                        indices,
                        batch_x: x,
                        batch_y: y,
                        rows,
                        dim: inputs,
                        packed,
                    };
                    let mut replaces: Vec<Box<dyn Kernel>> = Vec::new();
                    if gathered {
                        replaces.push(Box::new(gather));
                    }
                    replaces.push(Box::new(Matmul::new(x, params, z, dims)));
                    replaces.push(Box::new(AddBias {
                        params,
                        bias_off,
                        z,
                        rows,
                        cols: units,
                        points: Points::default(),
                    }));
                    replaces.push(Box::new(ActForward {
                        kind,
                        z,
                        h,
                        n: rows * units,
                    }));
                    vec![Box::new(FusedMatmul {
                        first: Product {
                            a: x,
                            b: params,
                            out: z,
                            dims,
                            gathered,
                            b_gathered: false,
                            bias: Some(bias_off),
                            epilogue: Epilogue::Activate { kind, h },
                            ones: None,
                        },
                        second: None,
                        buffers: FusedBuffers {
                            indices,
                            data,
                            packed,
                            unused_f32: unused[0],
                            unused_u32: unused[1],
                            unused_aux: unused[2],
                            unused_out: unused[3],
                        },
                        replaces,
                        parallel,
                        tiles: Some(tiles),
                        fetch_ahead: false,
                        block: false,
                        quads: false,
                    })]
                };
                let outs = run_multi(ctx, t, inits, kernels, StepScalars::default(), &[z, h, x]);
                let what = format!("forward {rows}x{units}x{inputs} {kind:?} packed {packed} gathered {gathered} cap {parallel} tiles {tiles:?}");
                let tol = 1e-5 * (inputs as f32).sqrt();
                for (name, (g, c)) in ["Z", "H", "batch"].iter().zip(&outs) {
                    // Without the gather, X is the input as written.
                    assert_close(&format!("{what}: {name}"), g, c, tol, 1e-5);
                }
            }
        }
    }
}

/// A dense layer's backward in one dispatch: [dW | db] = dZᵀ·[X | 1] beside
/// dZ_below = (dZ·W) ⊙ act'(Z_below), at odd sizes.
#[test]
fn fused_backward_matches_its_twin() {
    for ctx in [gpu(), gpu_as_real()] {
        fused_backward_on(&ctx);
    }
}

fn fused_backward_on(ctx: &std::rc::Rc<engine::gpu::GpuContext>) {
    ctx.specialize.set(true);
    for (rows, units, inputs) in [
        (17usize, 3usize, 1000usize),
        (33, 65, 17),
        (130, 70, 9),
        (64, 10, 128),
    ] {
        for kind in [Activation::Relu, Activation::Tanh] {
            for (parallel, tiles) in caps_and_tiles() {
                let mut t = BufferTable::default();
                let n_params = units * inputs + units;
                let d_out = t.add("dZ", Elem::F32, rows * units);
                let x = t.add("X", Elem::F32, rows * inputs);
                let z_below = t.add("Z below", Elem::F32, rows * inputs);
                let params = t.add("params", Elem::F32, n_params);
                let grads = t.add("grads", Elem::F32, n_params);
                let dh = t.add("dH", Elem::F32, rows * inputs);
                let dz = t.add("dZ below", Elem::F32, rows * inputs);
                let unused = [
                    t.add("u1", Elem::F32, 1),
                    t.add("u2", Elem::U32, 1),
                    t.add("u3", Elem::F32, 1),
                    t.add("u4", Elem::F32, 1),
                ];
                let inits = vec![
                    Init::F32(random(rows * units, 11)),
                    Init::F32(random(rows * inputs, 12)),
                    Init::F32(random(rows * inputs, 13)),
                    Init::F32(random(n_params, 14)),
                ];
                let dw = MatmulDims {
                    m: units,
                    n: inputs,
                    k: rows,
                    a_rs: 1,
                    a_cs: units,
                    b_rs: inputs,
                    b_cs: 1,
                    ..Default::default()
                };
                let dx = MatmulDims {
                    m: rows,
                    n: inputs,
                    k: units,
                    a_rs: units,
                    a_cs: 1,
                    b_rs: inputs,
                    b_cs: 1,
                    ..Default::default()
                };
                let bias_off = units * inputs;
                let kernels = || -> Vec<Box<dyn Kernel>> {
                    let replaces: Vec<Box<dyn Kernel>> = vec![
                        Box::new(Matmul::new(d_out, x, grads, dw)),
                        Box::new(BiasGrad {
                            dz: d_out,
                            grads,
                            bias_off,
                            rows,
                            cols: units,
                        }),
                        Box::new(Matmul::new(d_out, params, dh, dx)),
                        Box::new(ActBackward {
                            kind,
                            z: z_below,
                            dh,
                            dz,
                            n: rows * inputs,
                        }),
                    ];
                    let product = |b, out, dims| Product {
                        a: d_out,
                        b,
                        out,
                        dims,
                        gathered: false,
                        b_gathered: false,
                        bias: None,
                        epilogue: Epilogue::None,
                        ones: None,
                    };
                    vec![Box::new(FusedMatmul {
                        first: Product {
                            ones: Some(bias_off),
                            ..product(x, grads, dw)
                        },
                        second: Some(Product {
                            epilogue: Epilogue::ActivationGradient { kind, z: z_below },
                            ..product(params, dz, dx)
                        }),
                        buffers: FusedBuffers {
                            indices: unused[1],
                            data: unused[0],
                            packed: false,
                            unused_f32: unused[0],
                            unused_u32: unused[1],
                            unused_aux: unused[2],
                            unused_out: unused[3],
                        },
                        replaces,
                        parallel,
                        tiles: Some(tiles),
                        fetch_ahead: false,
                        block: false,
                        quads: false,
                    })]
                };
                let outs = run_multi(ctx, t, inits, kernels, StepScalars::default(), &[grads, dz]);
                let what =
                    format!("backward {rows}x{units}x{inputs} {kind:?} cap {parallel} tiles {tiles:?}");
                let tol = 1e-5 * (rows.max(units) as f32).sqrt();
                assert_close(&format!("{what}: [dW | db]"), &outs[0].0, &outs[0].1, tol, 1e-5);
                assert_close(&format!("{what}: dZ below"), &outs[1].0, &outs[1].1, tol, 1e-5);
            }
        }
    }
}
