//! Shared by the GPU tests: one device per test binary (lavapipe in CI), and a way to run any
//! single kernel on both backends.

#![allow(dead_code)]

use std::rc::Rc;

use engine::backend::{Backend, CpuBackend, GpuBackend, Pass};
use engine::gpu::GpuContext;
use engine::kernel::{BufId, BufferTable, Kernel, StepScalars};
use engine::model::Layer;
use engine::ops::activation::Activation;
use engine::ops::pool::PoolKind;
use engine::plan::Plan;

pub fn gpu() -> Rc<GpuContext> {
    let ctx = pollster::block_on(GpuContext::new())
        .expect("no GPU adapter: install mesa-vulkan-drivers and libvulkan1 (see the README)");
    eprintln!("GPU tests run on {} ({})", ctx.adapter.name, ctx.adapter.api);
    Rc::new(ctx)
}

/// The same device, with the kernels sized as for a real GPU (one workgroup per tile, the
/// convolutions' small gradient chunks), so lavapipe checks those shapes too.
pub fn gpu_as_real() -> Rc<GpuContext> {
    let mut ctx = pollster::block_on(GpuContext::new()).expect("no GPU adapter");
    ctx.parallel_workgroups = 0;
    Rc::new(ctx)
}

/// Initial contents of a buffer.
pub enum Init {
    F32(Vec<f32>),
    U32(Vec<u32>),
}

/// Runs `kernel` once over buffers filled from `inits` (in table order) on the GPU and on the CPU,
/// and returns the contents of `outputs` from both.
pub fn run_both(
    ctx: &Rc<GpuContext>,
    table: BufferTable,
    inits: Vec<Init>,
    kernel: impl Fn() -> Box<dyn Kernel>,
    step: StepScalars,
    outputs: &[BufId],
) -> Vec<(Vec<f32>, Vec<f32>)> {
    run_multi(ctx, table, inits, || vec![kernel()], step, outputs)
}

/// Like `run_both` for a list of kernels run in order.
pub fn run_multi(
    ctx: &Rc<GpuContext>,
    table: BufferTable,
    inits: Vec<Init>,
    kernels: impl Fn() -> Vec<Box<dyn Kernel>>,
    step: StepScalars,
    outputs: &[BufId],
) -> Vec<(Vec<f32>, Vec<f32>)> {
    let make_plan = || Plan::of_kernels(table.clone(), kernels());
    let mut gpu =
        Backend::Gpu(pollster::block_on(GpuBackend::new(ctx.clone(), make_plan())).expect("GPU plan"));
    let mut cpu = Backend::Cpu(CpuBackend::new(make_plan()));
    for backend in [&mut gpu, &mut cpu] {
        for (i, init) in inits.iter().enumerate() {
            match init {
                Init::F32(v) => backend.write_f32(BufId(i), v),
                Init::U32(v) => backend.write_u32(BufId(i), v),
            }
        }
        backend.run(Pass::Train, &step);
    }
    outputs
        .iter()
        .map(|&id| {
            let len = table.len_of(id);
            (
                pollster::block_on(gpu.read_f32(id, len)).unwrap(),
                pollster::block_on(cpu.read_f32(id, len)).unwrap(),
            )
        })
        .collect()
}

/// Asserts |a − b| ≤ atol + rtol·|b| element-wise.
pub fn assert_close(what: &str, gpu: &[f32], cpu: &[f32], atol: f32, rtol: f32) {
    assert_eq!(gpu.len(), cpu.len(), "{what}: lengths differ");
    for (i, (g, c)) in gpu.iter().zip(cpu).enumerate() {
        assert!(
            (g - c).abs() <= atol + rtol * c.abs(),
            "{what}[{i}]: {g} against {c} (atol {atol}, rtol {rtol})"
        );
    }
}

pub fn random(n: usize, seed: u64) -> Vec<f32> {
    let mut r = engine::rng::Rng::new(seed);
    (0..n).map(|_| r.range(-1.0, 1.0)).collect()
}

/// A conv → ReLU → 2×2 pool block, as the CNN tests build their networks.
pub fn conv_relu_pool(
    filters: usize,
    kernel: usize,
    stride: usize,
    padding: usize,
    pool: PoolKind,
) -> [Layer; 3] {
    [
        Layer::Conv2d {
            filters,
            kernel,
            stride,
            padding,
        },
        Layer::Activation {
            kind: Activation::Relu,
        },
        Layer::Pool {
            kind: pool,
            size: 2,
            stride: 2,
        },
    ]
}

// Small enough that ReLU kinks are rarely straddled, large enough for f32 losses.
const H: f32 = 1e-3;

/// Every parameter's backprop gradient on the next batch against central finite differences of
/// the loss (parameters where a kink sits within ±2H are counted, at most two allowed).
pub fn fd_check(trainer: &mut engine::train::Trainer, what: &str) {
    let rows = trainer.next_batch_rows();
    let params = pollster::block_on(trainer.params()).unwrap();
    let (_, grads) = pollster::block_on(trainer.loss_and_gradient(&rows)).unwrap();
    let mut worst = 0.0f32;
    let mut kinks = 0;
    let mut loss_at = |i: usize, delta: f32| {
        let mut p = params.clone();
        p[i] += delta;
        trainer.set_params(&p).unwrap();
        pollster::block_on(trainer.loss_and_gradient(&rows)).unwrap().0
    };
    for (i, &backprop) in grads.iter().enumerate() {
        let numeric = (loss_at(i, H) - loss_at(i, -H)) / (2.0 * H);
        // Where a ReLU switches inside ±2H the loss has a kink, and central differences over H and
        // 2H disagree far more than their O(H²) error: such a parameter is counted, not checked.
        let wide = (loss_at(i, 2.0 * H) - loss_at(i, -2.0 * H)) / (4.0 * H);
        if (wide - numeric).abs() > 3e-4 + 1e-2 * numeric.abs() {
            kinks += 1;
            continue;
        }
        let err = (numeric - backprop).abs();
        worst = worst.max(err);
        assert!(
            err <= 5e-4 + 1e-2 * numeric.abs(),
            "{what}: dL/dθ[{i}] backprop {backprop} vs finite difference {numeric}"
        );
    }
    trainer.set_params(&params).unwrap();
    assert!(kinks <= 2, "{what}: {kinks} parameters sit on a kink");
    eprintln!(
        "{what}: {} parameters ({kinks} on a kink), worst |backprop − finite difference| = {worst:.2e}",
        params.len()
    );
}

/// The first `train` and `test` MNIST images (`data/`, which setup prepares).
pub fn mnist(
    train: usize,
    test: usize,
) -> (
    engine::train::DataConfig,
    engine::data::Dataset,
    Option<engine::data::Dataset>,
) {
    let config = engine::train::DataConfig::Images(engine::train::ImageConfig {
        set: "mnist".into(),
        train_limit: train,
        test_limit: test,
    });
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
    let (data, test) = config
        .load(|n| std::fs::read(dir.join(n)).map_err(|e| format!("{n}: {e} (run scripts/setup.sh)")))
        .unwrap();
    (config, data, test)
}

/// 64 two-moons points, all for training: the small set the gradient checks use.
pub fn moons64() -> engine::train::DataConfig {
    engine::train::DataConfig::Toy(engine::data::toy::ToyConfig {
        kind: engine::data::toy::ToyKind::Moons,
        points: 64,
        noise: 0.1,
        seed: 9,
        test_fraction: 0.0,
        classes: 2,
    })
}

/// A 3×3 convolution with padding 1 (the residual networks' building block).
pub fn conv3x3(filters: usize, stride: usize) -> Layer {
    Layer::Conv2d {
        filters,
        kernel: 3,
        stride,
        padding: 1,
    }
}

/// Losses and final weights of `steps` unsplit steps (`Trainer::train`): what the split steps'
/// tests compare against.
pub fn unsplit_run(t: &mut engine::train::Trainer, steps: usize) -> (Vec<f32>, Vec<f32>) {
    let losses = pollster::block_on(t.train(steps)).unwrap();
    let params = pollster::block_on(t.params()).unwrap();
    (losses.iter().map(|m| m.loss).collect(), params)
}

/// The small spiral run several tests train: 200 points, an MLP 6-6 (tanh), the given optimizer,
/// rate and batch (`carry_on`, `masked_training`).
pub fn spiral_config(
    optimizer: engine::optim::Optimizer,
    learning_rate: f32,
    batch: usize,
) -> engine::train::TrainConfig {
    use engine::data::toy::{ToyConfig, ToyKind};
    use engine::train::{DataConfig, ModelConfig, TrainConfig};
    TrainConfig {
        data: DataConfig::Toy(ToyConfig {
            kind: ToyKind::Spiral,
            points: 200,
            noise: 0.05,
            seed: 4,
            test_fraction: 0.0,
            classes: 2,
        }),
        model: ModelConfig::Mlp {
            hidden: vec![6, 6],
            activation: Activation::Tanh,
        },
        optimizer,
        learning_rate,
        batch,
        ..Default::default()
    }
}
