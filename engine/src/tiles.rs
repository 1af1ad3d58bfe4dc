//! The matrix products' tile shapes, chosen per adapter by timing. The best tiles for an emulated
//! GPU, an integrated laptop GPU and a data-centre GPU differ, and on one GPU they differ with
//! the product's size: large tiles reuse every loaded value more, small tiles make more
//! workgroups, which a GPU with many cores needs for the skinny products of a small network
//! (W1's first forward product is two 64 × 64 tiles), and big workgroups hide memory latency on a
//! big product, once it has enough tiles to fill every core. So `autotune` times each candidate
//! on this device for three classes of products: small (the workloads' own and a 256 square),
//! medium (a 512 square) and, on a real GPU, large (a 2048 square), and for the first layer's
//! forward product as a training step runs it, gathering its rows from the data set
//! (`tile_probes`); the context keeps the fastest of each (`GpuContext::tiles`, a `TilePlan`).
//! Every candidate but one sums each value of C over k in the same order, so they give the same
//! numbers; the split shape (32 × 32 k÷4) sums k in four partial sums, so its values differ from
//! theirs by rounding.

use std::rc::Rc;

use serde::Serialize;

use crate::backend::{Backend, GpuBackend, Pass};
use crate::error::Error;
use crate::gpu::GpuContext;
use crate::kernel::{BufId, StepScalars};
use crate::tile_probes::Probes;

/// A product kernel's tiling (`shaders/matmul_tile.wgsl` with `tiles_64.wgsl` or
/// `tiles_128.wgsl`, or `shaders/matmul_tile_small.wgsl` with `tiles_32.wgsl`; every shape copies
/// into workgroup memory with `matmul_tile_copy.wgsl`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum TileShape {
    /// 64 × 64 tiles of C per workgroup of 8 × 8 invocations, each an 8 × 8 block.
    #[default]
    Medium,
    /// 32 × 32 tiles per workgroup of 8 × 8 invocations, each a 4 × 4 block.
    Small,
    /// 128 × 128 tiles per workgroup of 16 × 16 invocations, each an 8 × 8 block.
    Large,
    /// 32 × 32 tiles per workgroup of 16 × 16 invocations in four groups of 8 × 8, each group
    /// summing a quarter of k into 4 × 4 blocks (`matmul_tile_split.wgsl`): for small products
    /// with a long k on a GPU with many cores.
    Split,
}

impl TileShape {
    pub const ALL: [TileShape; 4] = [
        TileShape::Medium,
        TileShape::Small,
        TileShape::Large,
        TileShape::Split,
    ];

    /// Rows and columns of C per workgroup.
    pub fn edge(self) -> u32 {
        match self {
            TileShape::Medium => 64,
            TileShape::Small | TileShape::Split => 32,
            TileShape::Large => 128,
        }
    }

    /// "64×64", or "32×32 k÷4" (k split four ways): what the pages show.
    pub fn label(self) -> String {
        let split = if self == TileShape::Split { " k÷4" } else { "" };
        format!("{0}×{0}{split}", self.edge())
    }

    /// "64", "32", "128" or "32k4": the word in URLs, on the command line and in the browser's
    /// cache.
    pub fn code(self) -> &'static str {
        match self {
            TileShape::Medium => "64",
            TileShape::Small => "32",
            TileShape::Large => "128",
            TileShape::Split => "32k4",
        }
    }

    pub fn parse(code: &str) -> Option<TileShape> {
        TileShape::ALL.into_iter().find(|t| t.code() == code)
    }
}

/// Products of at least this many FLOPs (2·m·n·k) are medium: a 512 square is, W1's products
/// and a 256 square are not.
pub const MEDIUM_FLOPS: f64 = 1e8;
/// Products of at least this many FLOPs are large: a 2048 square is, a 1024 square is not (on an
/// H100 the 128 × 128 tiles won from 2048 on, where a product has two tiles per multiprocessor).
pub const LARGE_FLOPS: f64 = 1e10;

/// The tiles a device uses by a product's size: small, medium (`MEDIUM_FLOPS`) and large
/// (`LARGE_FLOPS`) products, and small products that gather their rows from the data set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TilePlan {
    pub small: TileShape,
    pub medium: TileShape,
    pub large: TileShape,
    pub gathered: TileShape,
}

impl TilePlan {
    /// The same shape for every product.
    pub fn uniform(tiles: TileShape) -> Self {
        TilePlan {
            small: tiles,
            medium: tiles,
            large: tiles,
            gathered: tiles,
        }
    }

    /// The shape for a product of `flops` (2·m·n·k), gathering its rows or not.
    pub fn for_product(&self, flops: f64, gathered: bool) -> TileShape {
        if gathered && flops < MEDIUM_FLOPS {
            self.gathered
        } else {
            self.for_flops(flops)
        }
    }

    /// The shape for a plain product of `flops` (2·m·n·k).
    pub fn for_flops(&self, flops: f64) -> TileShape {
        if flops >= LARGE_FLOPS {
            self.large
        } else if flops >= MEDIUM_FLOPS {
            self.medium
        } else {
            self.small
        }
    }

    /// "64"; "64/128" (small products' shape / the larger ones'); "32/64/128" (small / medium /
    /// large); or "32/64/128/32k4" (… / gathered, where it is not the small products'): URLs, the
    /// CLI, the cache.
    pub fn code(&self) -> String {
        let [s, m, l, g] = [self.small, self.medium, self.large, self.gathered].map(TileShape::code);
        if g != s {
            format!("{s}/{m}/{l}/{g}")
        } else if s == m && m == l {
            s.to_string()
        } else if m == l {
            format!("{s}/{m}")
        } else {
            format!("{s}/{m}/{l}")
        }
    }

    pub fn parse(code: &str) -> Option<TilePlan> {
        let shapes: Option<Vec<TileShape>> = code.split('/').map(TileShape::parse).collect();
        let (small, medium, large, gathered) = match shapes?[..] {
            [t] => (t, t, t, t),
            [s, rest] => (s, rest, rest, s),
            [s, m, l] => (s, m, l, s),
            [s, m, l, g] => (s, m, l, g),
            _ => return None,
        };
        Some(TilePlan {
            small,
            medium,
            large,
            gathered,
        })
    }

    /// "64×64", "64×64 (larger products 128×128)" or "32×32 (medium products 64×64, large
    /// 128×128)", then "; gathered 32×32 k÷4" where that differs.
    pub fn label(&self) -> String {
        let [s, m, l, g] = [self.small, self.medium, self.large, self.gathered].map(TileShape::label);
        let gathered = if g != s {
            format!("; gathered {g}")
        } else {
            String::new()
        };
        if s == m && m == l {
            if gathered.is_empty() {
                s
            } else {
                format!("{s} ({})", &gathered[2..])
            }
        } else if m == l {
            format!("{s} (larger products {m}{gathered})")
        } else {
            format!("{s} (medium products {m}, large {l}{gathered})")
        }
    }
}

/// One candidate's time for a class of probe products.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TileTiming {
    pub tiles: TileShape,
    /// Milliseconds for one pass over the class's probes (the fastest of the rounds).
    pub ms: f64,
}

/// What `autotune` measured on this device, and the fastest candidate of each class.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Tuning {
    pub best: TilePlan,
    /// Every candidate on the small probes (`SMALL_PROBES`), the medium (`MEDIUM_PROBES`) and the
    /// large (`LARGE_PROBES`; none on an emulated GPU, which takes the medium shape for them).
    pub small: Vec<TileTiming>,
    pub medium: Vec<TileTiming>,
    pub large: Vec<TileTiming>,
    /// Every candidate on the gathered probe (`tile_probes::GATHERED_PROBE`).
    pub gathered: Vec<TileTiming>,
}

impl Tuning {
    /// "small products 64×64 (4.10 ms; 32×32 5.30, 128×128 9.00), medium 128×128 (…), large …":
    /// the figures behind the choice, the chosen shape first.
    pub fn summary(&self) -> String {
        let class = |best: TileShape, timings: &[TileTiming]| {
            let ms = |t: &TileTiming| format!("{:.2}", t.ms);
            let chosen = timings.iter().find(|t| t.tiles == best).map_or(String::new(), ms);
            let others: Vec<String> = timings
                .iter()
                .filter(|t| t.tiles != best)
                .map(|t| format!("{} {}", t.tiles.label(), ms(t)))
                .collect();
            format!("{} ({chosen} ms; {})", best.label(), others.join(", "))
        };
        let large = if self.large.is_empty() {
            format!(
                "{} (as medium: untimed on an emulated GPU)",
                self.best.large.label()
            )
        } else {
            class(self.best.large, &self.large)
        };
        format!(
            "small products {}, medium {}, large {large}, gathered {}",
            class(self.best.small, &self.small),
            class(self.best.medium, &self.medium),
            class(self.best.gathered, &self.gathered),
        )
    }
}

/// (m, n, k) of the small products timed: W1's three (batch 64, 784-128-10: the first layer's
/// forward and weight gradient, the second layer's forward) and a 256 square.
pub const SMALL_PROBES: [(usize, usize, usize); 4] =
    [(64, 128, 784), (784, 128, 64), (64, 10, 128), (256, 256, 256)];
/// The medium product timed: a 512 square.
pub const MEDIUM_PROBES: [(usize, usize, usize); 1] = [(512, 512, 512)];
/// The large product timed, on a real GPU only (on an emulated one a pass would take seconds): a
/// 2048 square.
pub const LARGE_PROBES: [(usize, usize, usize); 1] = [(2048, 2048, 2048)];

/// Timed rounds per candidate, taken in turns so that a slow moment of the machine falls on
/// all alike; each candidate's fastest round counts.
const ROUNDS: usize = 5;

/// Times every candidate on each class of probes on this device, sets the fastest of each on the
/// context and returns the figures. `now_ms` is the clock (`bench::native_now_ms`, or the
/// browser's `performance.now`).
pub async fn autotune(ctx: &Rc<GpuContext>, now_ms: &dyn Fn() -> f64) -> Result<Tuning, Error> {
    // A real GPU runs each small product in microseconds, so there a pass repeats each 16 times,
    // lest it be mostly the wait for its result; a large product takes long enough alone.
    let repeats = if ctx.emulated() { 1 } else { 16 };
    let small = time_class(ctx, Probes::Products(&SMALL_PROBES), repeats, now_ms).await?;
    let medium = time_class(ctx, Probes::Products(&MEDIUM_PROBES), repeats, now_ms).await?;
    let large = if ctx.emulated() {
        Vec::new()
    } else {
        time_class(ctx, Probes::Products(&LARGE_PROBES), 1, now_ms).await?
    };
    let gathered = time_class(ctx, Probes::Gathered, repeats, now_ms).await?;
    let fastest = |timings: &[TileTiming]| {
        timings
            .iter()
            .min_by(|a, b| a.ms.total_cmp(&b.ms))
            .map_or(TileShape::Medium, |t| t.tiles)
    };
    let medium_best = fastest(&medium);
    let best = TilePlan {
        small: fastest(&small),
        medium: medium_best,
        large: if large.is_empty() {
            medium_best
        } else {
            fastest(&large)
        },
        gathered: fastest(&gathered),
    };
    ctx.tiles.set(best);
    Ok(Tuning {
        best,
        small,
        medium,
        large,
        gathered,
    })
}

/// Every candidate's fastest pass over `probes`, each product `repeats` times a pass.
async fn time_class(
    ctx: &Rc<GpuContext>,
    probes: Probes,
    repeats: usize,
    now_ms: &dyn Fn() -> f64,
) -> Result<Vec<TileTiming>, Error> {
    let mut runs = Vec::new();
    for tiles in TileShape::ALL {
        let plan = probes.plan(tiles, repeats);
        let mut b = Backend::Gpu(GpuBackend::new(ctx.clone(), plan).await?);
        probes.fill(&mut b);
        // The untimed first pass compiles the pipeline and warms the caches.
        pass(&mut b).await?;
        runs.push((
            b,
            TileTiming {
                tiles,
                ms: f64::INFINITY,
            },
        ));
    }
    for _ in 0..ROUNDS {
        for (b, timing) in &mut runs {
            let t0 = now_ms();
            pass(b).await?;
            timing.ms = timing.ms.min(now_ms() - t0);
        }
    }
    Ok(runs.into_iter().map(|(_, t)| t).collect())
}

/// One pass over the probes, awaited (reading one value back waits for the device).
async fn pass(b: &mut Backend) -> Result<(), Error> {
    b.run(Pass::Train, &StepScalars::default());
    b.read_f32(BufId(2), 1).await.map(|_| ())
}
