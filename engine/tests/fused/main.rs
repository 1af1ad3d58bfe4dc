//! The fused training step (`plan::fuse`, `ops::fused`) against the teaching kernels it
//! replaces: the same run step for step (bit for bit on the CPU, where a fused kernel's twin is
//! those kernels; within float rounding on the GPU), W1 in at most 6 dispatches, and each fused
//! GPU kernel against its CPU twin at odd sizes, with every workgroup cap.

use crate::common;

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

/// The config whose fusions differ from the others' only in their epilogues (the same quads
/// with other activations, and a dropout between them): SwiftShader's child process skips it,
/// as each epilogue costs a compile of seconds there and lavapipe runs it.
const SIGMOID_AND_DROPOUT: &str = "dropout, layer norm, sigmoid and leaky ReLU";

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
                ..engine::workloads::w1()
            },
        ),
        (
            // An odd batch: the quads' loops over k end on steps of their own, and the rows of
            // the batch's last quad run past it.
            "W1's layers on a batch of 27 (bytes gathered)",
            TrainConfig {
                data: images.clone(),
                batch: 27,
                ..engine::workloads::w1()
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
            SIGMOID_AND_DROPOUT,
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
                regularization: Regularization {
                    l1: 1e-3,
                    l2: 1e-3,
                    group: 0.0,
                },
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
/// shared pipelines, forward and backward (an emulated GPU's). On SwiftShader (the child process
/// of `the_quads_match_on_swiftshader`) only the shared ones: the quads run only on an emulated
/// GPU, which never specializes (`FusedMatmul::fit_device`, `GpuContext::specialize`), against
/// the teaching step on the CPU path; and there not `SIGMOID_AND_DROPOUT`.
#[test]
fn the_fused_step_matches_the_teaching_step_on_the_gpu() {
    let ctx = gpu();
    let child = std::env::var_os("LAB_FUSED_CHILD").is_some();
    let ways: &[bool] = if child { &[false] } else { &[true, false] };
    for &specialize in ways {
        ctx.specialize.set(specialize);
        for (name, config) in configs() {
            if child && name == SIGMOID_AND_DROPOUT {
                continue;
            }
            let (fl, fp, _) = run(&config, Some(ctx.clone()), true);
            // On SwiftShader, where each pipeline compiles for seconds, the reference is the
            // CPU path's teaching step (the same kernels' twins) instead of its GPU kernels.
            let (ul, up, _) = run(&config, (!child).then(|| ctx.clone()), false);
            let what = format!("{name} (specialized {specialize})");
            // Against the CPU path the sums run in another order (its convolutions'): within
            // the GPU-against-CPU tests' tolerance instead of the GPU pair's float rounding.
            let (atol, rtol) = if child { (1e-5, 1e-3) } else { (1e-6, 1e-5) };
            assert_close(&format!("{what}: losses"), &fl, &ul, atol, rtol);
            assert_close(&format!("{what}: weights"), &fp, &up, atol, rtol);
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
    let (emulated, real) = (gpu(), gpu_as_real());
    let shapes = [
        (&emulated, TileShape::Small),
        (&emulated, TileShape::Large),
        (&emulated, TileShape::Split),
        (&real, TileShape::Split),
    ];
    // The teaching step on the default tiles, once per context and model.
    let mut references = std::collections::HashMap::new();
    for (ctx, tiles) in shapes {
        for (name, config) in configs() {
            ctx.tiles.set(TilePlan::uniform(tiles));
            let (sl, sp, _) = run(&config, Some(ctx.clone()), true);
            ctx.tiles.set(TilePlan::default());
            let (ll, lp) = references
                .entry((std::rc::Rc::as_ptr(ctx), name))
                .or_insert_with(|| {
                    let (l, p, _) = run(&config, Some(ctx.clone()), false);
                    (l, p)
                })
                .clone();
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
        ..engine::workloads::w1()
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

mod twins;

/// SwiftShader's Vulkan driver (Chromium's), where every subgroup has 4 lanes: the only place
/// the products run as quads (`shaders/matmul_fused_quad.wgsl`; lavapipe runs the blocks).
const SWIFTSHADER_ICD: &str = "/usr/lib/chromium/vk_swiftshader_icd.json";

/// The fused step against the teaching step (every config but `SIGMOID_AND_DROPOUT`: W1's
/// gathered bytes, floats, odd sizes, both ways of building the pipelines), run again in a child
/// process of this binary on SwiftShader (a process picks its Vulkan driver once).
#[test]
fn the_quads_match_on_swiftshader() {
    if std::env::var_os("LAB_FUSED_CHILD").is_some() {
        return;
    }
    assert!(
        std::path::Path::new(SWIFTSHADER_ICD).exists(),
        "{SWIFTSHADER_ICD} is missing: install chromium (see the README)"
    );
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .env("VK_ICD_FILENAMES", SWIFTSHADER_ICD)
        .env("LAB_FUSED_CHILD", "1")
        .args([
            "--exact",
            "--test-threads=1",
            "--nocapture",
            "fused::the_quads_run_here",
            "fused::the_fused_step_matches_the_teaching_step_on_the_gpu",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "on SwiftShader:\n{text}");
    assert!(
        text.contains("2 passed"),
        "on SwiftShader, not every test ran:\n{text}"
    );
}

/// The device of this process offers 4-lane subgroups when it is SwiftShader (the child above).
#[test]
fn the_quads_run_here() {
    if std::env::var_os("LAB_FUSED_CHILD").is_none() {
        return;
    }
    let ctx = gpu();
    assert!(ctx.adapter.name.contains("SwiftShader"), "{}", ctx.adapter.name);
    assert!(ctx.fit().subgroups, "SwiftShader did not give subgroups");
}
