//! The matrix products' tile shape, chosen per adapter by timing. The best tiles for an emulated
//! GPU, an integrated laptop GPU and a data-centre GPU differ: large tiles reuse every loaded
//! value more, small tiles make more workgroups, which a GPU with many cores needs for the
//! skinny products of a small network (W1's first forward product is two 64 × 64 tiles). So
//! `autotune` times each candidate on the workloads' own products and a square one, on this
//! device, and the context keeps the faster (`GpuContext::tiles`). Both candidates compute every
//! value of C in the same order (k ascending), so they give the same numbers; only time differs.

use std::rc::Rc;

use serde::Serialize;

use crate::backend::{Backend, GpuBackend, Pass};
use crate::error::Error;
use crate::gpu::GpuContext;
use crate::kernel::{BufId, BufferTable, Elem, Kernel, StepScalars};
use crate::ops::matmul::{Matmul, MatmulDims};
use crate::plan::Plan;

/// A product kernel's tiling (`shaders/matmul_tile.wgsl`, `shaders/matmul_tile_small.wgsl`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum TileShape {
    /// 64 × 64 tiles of C per workgroup of 8 × 8 invocations, each an 8 × 8 block.
    #[default]
    Large,
    /// 32 × 32 tiles per workgroup of 8 × 8 invocations, each a 4 × 4 block.
    Small,
}

impl TileShape {
    pub const ALL: [TileShape; 2] = [TileShape::Large, TileShape::Small];

    /// Rows and columns of C per workgroup.
    pub fn edge(self) -> u32 {
        match self {
            TileShape::Large => 64,
            TileShape::Small => 32,
        }
    }

    /// "64×64": what the pages show.
    pub fn label(self) -> String {
        format!("{0}×{0}", self.edge())
    }

    /// "64" or "32": the word in URLs, on the command line and in the browser's cache.
    pub fn code(self) -> &'static str {
        match self {
            TileShape::Large => "64",
            TileShape::Small => "32",
        }
    }

    pub fn parse(code: &str) -> Option<TileShape> {
        TileShape::ALL.into_iter().find(|t| t.code() == code)
    }
}

/// One candidate's time for the probe products.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TileTiming {
    pub tiles: TileShape,
    /// Milliseconds for one pass over the probes (the fastest of the rounds).
    pub ms: f64,
}

/// What `autotune` measured on this device, and the faster candidate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Tuning {
    pub best: TileShape,
    pub timings: Vec<TileTiming>,
}

impl Tuning {
    /// "64×64 tiles (4.10 ms), against 32×32 (5.30 ms)": the figures behind the choice.
    pub fn summary(&self) -> String {
        let ms = |t: &TileTiming| format!("({:.2} ms)", t.ms);
        let best = self
            .timings
            .iter()
            .find(|t| t.tiles == self.best)
            .map_or(String::new(), ms);
        let others: Vec<String> = self
            .timings
            .iter()
            .filter(|t| t.tiles != self.best)
            .map(|t| format!("{} {}", t.tiles.label(), ms(t)))
            .collect();
        format!(
            "{} tiles {best}, against {}",
            self.best.label(),
            others.join(", ")
        )
    }
}

/// (m, n, k) of the products timed: W1's three (batch 64, 784-128-10: the first layer's forward
/// and weight gradient, the second layer's forward) and a 256 square.
pub const PROBES: [(usize, usize, usize); 4] =
    [(64, 128, 784), (784, 128, 64), (64, 10, 128), (256, 256, 256)];

/// Timed rounds per candidate, taken in turns so that a slow moment of the machine falls on
/// both alike; each candidate's fastest round counts.
const ROUNDS: usize = 5;

/// Times every candidate on `PROBES` on this device (each product `repeats` times in a pass: a
/// real GPU runs these small products in microseconds, so one pass there would be mostly the
/// wait for its result), sets the faster on the context and returns the figures. `now_ms` is the
/// clock (`bench::native_now_ms`, or the browser's `performance.now`).
pub async fn autotune(ctx: &Rc<GpuContext>, now_ms: &dyn Fn() -> f64) -> Result<Tuning, Error> {
    let repeats = if ctx.parallel_workgroups == 0 { 16 } else { 1 };
    let mut backends = Vec::new();
    for tiles in TileShape::ALL {
        let mut b = Backend::Gpu(GpuBackend::new(ctx.clone(), probe_plan(tiles, repeats)).await?);
        for (i, &(m, n, k)) in PROBES.iter().enumerate() {
            b.write_f32(BufId(3 * i), &vec![0.5; m * k]);
            b.write_f32(BufId(3 * i + 1), &vec![0.25; k * n]);
        }
        // The untimed first pass compiles the pipeline and warms the caches.
        pass(&mut b).await?;
        backends.push((tiles, b, f64::INFINITY));
    }
    for _ in 0..ROUNDS {
        for (_, b, best) in &mut backends {
            let t0 = now_ms();
            pass(b).await?;
            *best = best.min(now_ms() - t0);
        }
    }
    let timings: Vec<TileTiming> = backends
        .iter()
        .map(|(tiles, _, ms)| TileTiming {
            tiles: *tiles,
            ms: *ms,
        })
        .collect();
    let best = timings
        .iter()
        .min_by(|a, b| a.ms.total_cmp(&b.ms))
        .map_or(TileShape::Large, |t| t.tiles);
    ctx.tiles.set(best);
    Ok(Tuning { best, timings })
}

/// One pass over the probes, awaited (reading one value back waits for the device).
async fn pass(b: &mut Backend) -> Result<(), Error> {
    b.run(Pass::Train, &StepScalars::default());
    b.read_f32(BufId(2), 1).await.map(|_| ())
}

/// The probes as one plan: A, B and C of probe i at buffers 3i, 3i + 1, 3i + 2.
fn probe_plan(tiles: TileShape, repeats: usize) -> Plan {
    let mut t = BufferTable::default();
    let mut kernels: Vec<Box<dyn Kernel>> = Vec::new();
    for &(m, n, k) in &PROBES {
        let (a, b, c) = (
            t.add("a", Elem::F32, m * k),
            t.add("b", Elem::F32, k * n),
            t.add("c", Elem::F32, m * n),
        );
        let dims = MatmulDims {
            m,
            n,
            k,
            a_rs: k,
            a_cs: 1,
            b_rs: n,
            b_cs: 1,
            ..Default::default()
        };
        for _ in 0..repeats {
            let mut product = Matmul::new(a, b, c, dims);
            product.tiles = Some(tiles);
            kernels.push(Box::new(product));
        }
    }
    Plan::of_kernels(t, kernels)
}
