//! The fused training step (`plan::fuse`, `ops::fused`) against the teaching kernels it
//! replaces: the same run step for step (bit for bit on the CPU, where a fused kernel's twin is
//! those kernels; within float rounding on the GPU), W1 in at most 6 dispatches, and each fused
//! GPU kernel against its CPU twin at odd sizes, with every workgroup cap.

mod common;

use common::{assert_close, gpu, gpu_as_real, mnist, random, run_multi, Init};
use engine::data::toy::{ToyConfig, ToyKind};
use engine::kernel::{BufferTable, Elem, Kernel, Points, StepScalars};
use engine::model::Layer;
use engine::ops::activation::{ActBackward, ActForward, Activation};
use engine::ops::bias::{AddBias, BiasGrad};
use engine::ops::fused::{Epilogue, FusedBuffers, FusedMatmul, Product};
use engine::ops::gather::Gather;
use engine::ops::matmul::{Matmul, MatmulDims};
use engine::optim::Optimizer;
use engine::plan::{Loss, Regularization};
use engine::precision::Preset;
use engine::tiles::{TilePlan, TileShape};
use engine::train::{DataConfig, ModelConfig, TrainConfig, Trainer};

fn toy(kind: ToyKind) -> DataConfig {
    DataConfig::Toy(ToyConfig {
        kind,
        points: 200,
        ..ToyConfig::default()
    })
}

/// Models that between them meet every fusion and every reason not to fuse.
fn configs() -> Vec<(&'static str, TrainConfig)> {
    let (images, _, _) = mnist(256, 0);
    let dense = |units| Layer::Dense { units };
    let act = |kind| Layer::Activation { kind };
    vec![
        (
            "W1 (bytes gathered)",
            TrainConfig {
                data: images.clone(),
                batch: 64,
                ..engine::bench::w1()
            },
        ),
        (
            "tanh MLP, Adam, f32 data",
            TrainConfig {
                data: toy(ToyKind::Spiral),
                model: ModelConfig::Mlp {
                    hidden: vec![16, 8],
                    activation: Activation::Tanh,
                },
                optimizer: Optimizer::adam(),
                learning_rate: 0.01,
                batch: 25,
                ..Default::default()
            },
        ),
        (
            "dropout, layer norm, sigmoid and leaky ReLU",
            TrainConfig {
                data: toy(ToyKind::Circle),
                model: ModelConfig::Layers {
                    layers: vec![
                        dense(12),
                        act(Activation::Sigmoid),
                        Layer::Dropout { rate: 0.2 },
                        dense(12),
                        Layer::LayerNorm,
                        act(Activation::LeakyRelu),
                        dense(2),
                    ],
                },
                batch: 20,
                ..Default::default()
            },
        ),
        (
            "CNN",
            TrainConfig {
                data: images,
                model: ModelConfig::Layers {
                    layers: vec![
                        Layer::Conv2d {
                            filters: 2,
                            kernel: 3,
                            stride: 1,
                            padding: 1,
                        },
                        act(Activation::Relu),
                        Layer::Flatten,
                        dense(16),
                        act(Activation::Relu),
                        dense(10),
                    ],
                },
                batch: 16,
                ..Default::default()
            },
        ),
        (
            "MSE regression, L1 and L2",
            TrainConfig {
                loss: Loss::Mse,
                regularization: Regularization { l1: 1e-3, l2: 1e-3 },
                data: toy(ToyKind::Plane),
                batch: 20,
                ..Default::default()
            },
        ),
        (
            "mixed precision",
            TrainConfig {
                data: toy(ToyKind::Spiral),
                precision: Preset::MixedFp16.precision(),
                batch: 20,
                ..Default::default()
            },
        ),
    ]
}

/// A trainer on the config's data (the first 256 MNIST images for an image set).
fn trainer(config: &TrainConfig, gpu: Option<std::rc::Rc<engine::gpu::GpuContext>>) -> Trainer {
    match &config.data {
        DataConfig::Images(_) => {
            pollster::block_on(Trainer::with_data(config.clone(), mnist(256, 0).1, gpu, 1))
        }
        _ => pollster::block_on(Trainer::new(config.clone(), gpu, 1)),
    }
    .unwrap()
}

/// Losses of `steps` steps and the weights after them, fused or as the teaching kernels.
fn run(
    config: &TrainConfig,
    gpu: Option<std::rc::Rc<engine::gpu::GpuContext>>,
    fused: bool,
) -> (Vec<f32>, Vec<f32>, usize) {
    let mut t = trainer(config, gpu);
    t.set_fused(fused);
    let losses = pollster::block_on(t.train(12))
        .unwrap()
        .iter()
        .map(|m| m.loss)
        .collect();
    let params = pollster::block_on(t.params()).unwrap();
    (losses, params, t.dispatches_per_step())
}

#[test]
fn the_fused_step_is_the_teaching_step_bit_for_bit_on_the_cpu() {
    for (name, config) in configs() {
        let (fl, fp, fd) = run(&config, None, true);
        let (ul, up, ud) = run(&config, None, false);
        eprintln!("{name}: {ud} kernels → {fd} dispatches");
        assert!(fd <= ud, "{name}: fusing added dispatches ({ud} → {fd})");
        assert_eq!(fl, ul, "{name}: losses");
        assert!(
            fp.iter().zip(&up).all(|(a, b)| a.to_bits() == b.to_bits()),
            "{name}: weights"
        );
    }
}

/// Both ways the GPU builds the fused kernels: specialized per dispatch (a real GPU's) and two
/// shared pipelines, forward and backward (an emulated GPU's).
#[test]
fn the_fused_step_matches_the_teaching_step_on_the_gpu() {
    let ctx = gpu();
    for specialize in [true, false] {
        ctx.specialize.set(specialize);
        for (name, config) in configs() {
            let (fl, fp, _) = run(&config, Some(ctx.clone()), true);
            let (ul, up, _) = run(&config, Some(ctx.clone()), false);
            let what = format!("{name} (specialized {specialize})");
            assert_close(&format!("{what}: losses"), &fl, &ul, 1e-6, 1e-5);
            assert_close(&format!("{what}: weights"), &fp, &up, 1e-6, 1e-5);
        }
    }
}

/// Every tile shape trains to the same numbers as the default: the fused step on each other
/// shape against the teaching step on 64 × 64 tiles (every value of C summed over k in the same
/// order).
#[test]
fn every_tile_shape_trains_as_the_default() {
    // The split shape twice: copying each slice (an emulated GPU's loop) and fetching ahead (a
    // real GPU's, on a context sized as one).
    let shapes = [
        (gpu(), TileShape::Small),
        (gpu(), TileShape::Large),
        (gpu(), TileShape::Split),
        (gpu_as_real(), TileShape::Split),
    ];
    for (ctx, tiles) in shapes {
        for (name, config) in configs() {
            ctx.tiles.set(TilePlan::uniform(tiles));
            let (sl, sp, _) = run(&config, Some(ctx.clone()), true);
            ctx.tiles.set(TilePlan::default());
            let (ll, lp, _) = run(&config, Some(ctx.clone()), false);
            // The split shape's partial sums round differently: a looser bound for it.
            let (atol, rtol) = if tiles == TileShape::Split {
                (1e-5, 1e-4)
            } else {
                (1e-6, 1e-5)
            };
            assert_close(&format!("{name} {tiles:?} tiles: losses"), &sl, &ll, atol, rtol);
            assert_close(&format!("{name} {tiles:?} tiles: weights"), &sp, &lp, atol, rtol);
        }
    }
}

#[test]
fn w1_trains_in_six_dispatches_a_step() {
    let (images, _, _) = mnist(256, 0);
    let config = TrainConfig {
        data: images,
        ..engine::bench::w1()
    };
    let mut t = trainer(&config, None);
    assert_eq!(t.dispatches_per_step(), 6);
    t.set_fused(false);
    assert_eq!(t.dispatches_per_step(), 15);
}

/// Workgroup caps: the device's own (0), one workgroup looping over every tile, one per tile.
const CAPS: [u32; 3] = [0, 1, u32::MAX];

/// Every cap with every tile shape.
fn caps_and_tiles() -> impl Iterator<Item = (u32, TileShape)> {
    CAPS.into_iter().flat_map(|p| TileShape::ALL.map(|t| (p, t)))
}

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
