//! `lab bench-matmul`: the matrix product kernel alone, square sizes 64 to 4096 and the W1
//! workload's own products, on the GPU or the CPU twin, as GFLOP/s (JSON lines). Each timing
//! queues `repeats` products in one pass, runs the pass `passes` times and waits for the last
//! result, after one untimed pass that compiles and warms up.

use std::time::Instant;

use engine::backend::{Backend, CpuBackend, GpuBackend, Pass};
use engine::kernel::{BufferTable, Elem, Kernel, StepScalars};
use engine::ops::matmul::{Matmul, MatmulDims};
use engine::plan::Plan;

use crate::io::{gpu_of, tiles_on};

#[derive(clap::Args)]
pub struct MatmulArgs {
    #[arg(long, value_enum, default_value = "gpu")]
    backend: crate::Backend,
    /// The largest square size (powers of two from 64)
    #[arg(long, default_value_t = 4096, value_name = "N")]
    max: usize,
    /// Seconds to aim each size's timing at
    #[arg(long, default_value_t = 0.5)]
    seconds: f64,
    /// The product tiles: timed per device (auto), or 64×64, 32×32, 128×128, 32×32 k÷4 (32k4), or one shape per size class:
    /// small/larger (64/128) or small/medium/large (32/64/128), then gathered
    /// products (32/32/128/32k4)
    #[arg(
        long,
        default_value = "auto",
        value_name = "auto|64|32|128|32k4|SMALL/MEDIUM/LARGE[/GATHERED]"
    )]
    tiles: String,
}

/// (label, m, n, k): squares, then W1's (batch 64, 784-128-10) forward and weight-gradient
/// products.
fn shapes(max: usize) -> Vec<(String, usize, usize, usize)> {
    let mut out: Vec<(String, usize, usize, usize)> = std::iter::successors(Some(64usize), |n| Some(n * 2))
        .take_while(|&n| n <= max)
        .map(|n| (format!("square {n}"), n, n, n))
        .collect();
    out.extend([
        ("W1 layer 1 forward".to_string(), 64, 128, 784),
        ("W1 layer 1 weight gradient".to_string(), 784, 128, 64),
        ("W1 layer 2 forward".to_string(), 64, 10, 128),
    ]);
    out
}

fn plan(m: usize, n: usize, k: usize, repeats: usize) -> Plan {
    let mut t = BufferTable::default();
    let (a, b, c) = (
        t.add("a", Elem::F32, m * k),
        t.add("b", Elem::F32, k * n),
        t.add("c", Elem::F32, m * n),
    );
    let dims = MatmulDims::row_major(m, n, k);
    let kernels: Vec<Box<dyn Kernel>> = (0..repeats)
        .map(|_| Box::new(Matmul::new(a, b, c, dims)) as Box<dyn Kernel>)
        .collect();
    Plan::of_kernels(t, kernels)
}

pub fn bench(a: &MatmulArgs) -> anyhow::Result<()> {
    let gpu = gpu_of(a.backend)?;
    if let Some(ctx) = &gpu {
        eprintln!("lab: on {} ({})", ctx.adapter.name, ctx.adapter.api);
    }
    tiles_on(&gpu, &a.tiles, None)?;
    let tiles = gpu.as_ref().map(|c| c.tiles.get().label());
    for (label, m, n, k) in shapes(a.max) {
        let flops = 2.0 * (m * n * k) as f64;
        // Enough products per pass that a pass is not all launch cost, at most 64.
        let repeats = ((2e9 / flops) as usize).clamp(1, 64);
        let p = plan(m, n, k, repeats);
        let mut backend = match &gpu {
            Some(ctx) => Backend::Gpu(pollster::block_on(GpuBackend::new(ctx.clone(), p))?),
            None => Backend::Cpu(CpuBackend::new(p)),
        };
        let (ida, idb) = (engine::kernel::BufId(0), engine::kernel::BufId(1));
        backend.write_f32(ida, &vec![0.5; m * k]);
        backend.write_f32(idb, &vec![0.25; k * n]);
        let step = StepScalars::default();
        let sync = |b: &Backend| pollster::block_on(b.read_f32(engine::kernel::BufId(2), 1));
        backend.run(Pass::Train, &step);
        let check = sync(&backend)?[0];
        let start = Instant::now();
        let mut passes = 0usize;
        while start.elapsed().as_secs_f64() < a.seconds || passes == 0 {
            backend.run(Pass::Train, &step);
            passes += 1;
            if passes.is_multiple_of(8) {
                sync(&backend)?;
            }
        }
        sync(&backend)?;
        let seconds = start.elapsed().as_secs_f64();
        let per = seconds / (passes * repeats) as f64;
        println!(
            "{}",
            serde_json::json!({
                "product": label, "m": m, "n": n, "k": k, "backend": backend.name(),
                "msPerProduct": per * 1e3, "gflops": flops / per / 1e9,
                "products": passes * repeats, "check": check, "expected": 0.125 * k as f64,
                "tiles": tiles,
            })
        );
    }
    Ok(())
}
