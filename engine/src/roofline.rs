//! The roofline of the device a page runs on, measured (docs/theory.md §11.1): the attainable
//! FLOP/s from a compute probe (or a compute-bound product, where it is faster) and bytes/s from
//! a copy probe (`ops::probe`), each timed over repeated dispatches on the GPU, or run by its CPU
//! twin on the CPU path. A kernel of intensity
//! I FLOPs per byte can reach at most min(peak, I · bandwidth).

use std::rc::Rc;

use serde::{Deserialize, Serialize};

use crate::backend::KernelTime;
use crate::backend::{Backend, Pass};
use crate::error::Error;
use crate::gpu::GpuContext;
use crate::kernel::{BufferTable, Elem, Kernel, StepScalars};
use crate::ops::matmul::{Matmul, MatmulDims};
use crate::ops::probe::{ProbeCopy, ProbeFlops};
use crate::plan::Plan;

/// A device's two roofs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Roofs {
    /// Attainable arithmetic, GFLOP/s.
    pub gflops: f64,
    /// Attainable memory bandwidth, GB/s.
    pub gbs: f64,
}

impl Roofs {
    /// The intensity (FLOPs per byte) where the two roofs meet: kernels below it are bound by
    /// memory, above it by arithmetic.
    pub fn ridge(&self) -> f64 {
        self.gflops / self.gbs
    }

    /// The GFLOP/s a kernel of this intensity can reach at most.
    pub fn attainable(&self, intensity: f64) -> f64 {
        self.gflops.min(intensity * self.gbs)
    }
}

/// The probes' sizes: invocations and rounds of the compute probe, floats of the copy probe.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProbeSizes {
    pub invocations: usize,
    pub rounds: usize,
    pub floats: usize,
}

impl ProbeSizes {
    /// Sized so each probe runs long enough to time on this device and briefly on an emulated
    /// one or the CPU path (`ctx.parallel_workgroups` is 0 on a real GPU).
    pub fn for_device(gpu: Option<&GpuContext>) -> Self {
        match gpu {
            Some(ctx) if ctx.parallel_workgroups == 0 => ProbeSizes {
                invocations: 1 << 20,
                rounds: 1024,
                floats: 1 << 24,
            },
            // The copy larger than a processor's caches, so it measures its memory.
            _ => ProbeSizes {
                invocations: 1 << 12,
                rounds: 256,
                floats: 1 << 23,
            },
        }
    }
}

/// The side of the square product timed beside the compute probe.
pub const PRODUCT_SIDE: usize = 512;

/// The probes' plan: the compute probe, the copy probe, then a 512 × 512 product (intensity
/// 512/6: compute-bound on any device, and the sweep's largest), whose rate the compute roof
/// takes where it beats the probe's — on the CPU path the twins' tuned product outruns a plain
/// loop of multiply-adds.
pub fn probe_plan(sizes: ProbeSizes) -> Plan {
    let mut table = BufferTable::default();
    let out = table.add("probe_out", Elem::F32, sizes.invocations);
    let src = table.add("probe_src", Elem::F32, sizes.floats);
    let dst = table.add("probe_dst", Elem::F32, sizes.floats);
    let side = PRODUCT_SIDE;
    let [a, b, c] = ["probe_a", "probe_b", "probe_c"].map(|name| table.add(name, Elem::F32, side * side));
    let kernels: Vec<Box<dyn Kernel>> = vec![
        Box::new(ProbeFlops {
            out,
            n: sizes.invocations,
            iters: sizes.rounds,
        }),
        Box::new(ProbeCopy {
            src,
            dst,
            n: sizes.floats,
            groups: (sizes.floats as u32).div_ceil(256 * 16).clamp(1, 65_535),
        }),
        Box::new(Matmul::new(a, b, c, MatmulDims::row_major(side, side, side))),
    ];
    Plan::of_kernels(table, kernels)
}

/// Measures the roofs on the GPU `gpu` gives, else on the CPU path: each probe's time from
/// `reps` repeated runs (the backends' `profile`), `now_ms` the clock.
pub async fn measure(
    gpu: Option<Rc<GpuContext>>,
    reps: usize,
    now_ms: &dyn Fn() -> f64,
) -> Result<Roofs, Error> {
    let sizes = ProbeSizes::for_device(gpu.as_deref());
    let plan = probe_plan(sizes);
    let mut backend = Backend::on(gpu, plan).await?;
    // A first run compiles the pipelines and touches the buffers.
    backend.run(Pass::Train, &StepScalars::default());
    // The best of three profiles: a roof is what the device attains, not its average.
    let mut best = [f64::MAX; 3];
    for _ in 0..3 {
        let times = backend
            .profile(Pass::Train, &StepScalars::default(), reps, now_ms)
            .await?;
        for (b, t) in best.iter_mut().zip(&times) {
            *b = b.min(t.ms);
        }
    }
    let kernels = backend.plan().kernels(Pass::Train);
    let rate = |k: usize, amount: f64| amount / (best[k].max(1e-6) * 1e6);
    Ok(Roofs {
        gflops: rate(0, kernels[0].flops()).max(rate(2, kernels[2].flops())),
        gbs: rate(1, kernels[1].bytes()),
    })
}

/// Square products C = A·B of each size n: intensity 2n³ / (12n²) = n/6 FLOPs a byte, so the
/// sizes walk from the memory roof toward the compute roof. Each timed over `reps` runs; one
/// plan holds them all (the largest sets the memory it takes).
pub async fn matmul_sweep(
    gpu: Option<Rc<GpuContext>>,
    sizes: &[usize],
    reps: usize,
    now_ms: &dyn Fn() -> f64,
) -> Result<Vec<(usize, KernelTime)>, Error> {
    let largest = sizes.iter().copied().max().unwrap_or(1);
    let mut table = BufferTable::default();
    let [a, b, c] = ["a", "b", "c"].map(|name| table.add(name, Elem::F32, largest * largest));
    let kernels: Vec<Box<dyn Kernel>> = (sizes.iter())
        .map(|&n| Box::new(Matmul::new(a, b, c, MatmulDims::row_major(n, n, n))) as Box<dyn Kernel>)
        .collect();
    let plan = Plan::of_kernels(table, kernels);
    let mut backend = Backend::on(gpu, plan).await?;
    backend.write_f32(a, &vec![0.5; largest * largest]);
    backend.write_f32(b, &vec![0.25; largest * largest]);
    backend.run(Pass::Train, &StepScalars::default());
    let times = backend
        .profile(Pass::Train, &StepScalars::default(), reps, now_ms)
        .await?;
    Ok(sizes.iter().copied().zip(times).collect())
}

/// The product C = A·B (A m × k, B k × n) in each tile shape the GPU's product kernel knows, each
/// timed over `reps` runs (`Matmul::tiles` set, so the device's choice is overridden).
pub async fn tile_sweep(
    gpu: Rc<GpuContext>,
    (m, n, k): (usize, usize, usize),
    reps: usize,
    now_ms: &dyn Fn() -> f64,
) -> Result<Vec<(crate::tiles::TileShape, KernelTime)>, Error> {
    let shapes = crate::tiles::TileShape::ALL;
    let mut table = BufferTable::default();
    let a = table.add("a", Elem::F32, m * k);
    let b = table.add("b", Elem::F32, k * n);
    let c = table.add("c", Elem::F32, m * n);
    let kernels: Vec<Box<dyn Kernel>> = (shapes.iter())
        .map(|&shape| {
            let mut product = Matmul::new(a, b, c, MatmulDims::row_major(m, n, k));
            product.tiles = Some(shape);
            Box::new(product) as Box<dyn Kernel>
        })
        .collect();
    let mut backend = Backend::on(Some(gpu), Plan::of_kernels(table, kernels)).await?;
    backend.run(Pass::Train, &StepScalars::default());
    let times = backend
        .profile(Pass::Train, &StepScalars::default(), reps, now_ms)
        .await?;
    Ok(shapes.into_iter().zip(times).collect())
}
