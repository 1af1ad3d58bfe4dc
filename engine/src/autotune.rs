//! The autotune: every tile shape (`tiles`) timed on this device for each class of products, and
//! on a real GPU every cap on the convolutions' weight gradient chunks, then
//! their GEMMs of at most 8 columns in wide and in narrow tiles.

use std::rc::Rc;

use serde::Serialize;

use crate::backend::{Backend, GpuBackend, Pass};
use crate::error::Error;
use crate::gpu::GpuContext;
use crate::kernel::{BufId, StepScalars};
use crate::tile_probes::Probes;
use crate::tiles::{TilePlan, TileShape, CONV_CHUNK_CAPS, DEFAULT_CONV_CHUNKS};

/// One candidate's time for a class of probe products.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TileTiming {
    pub tiles: TileShape,
    /// Milliseconds for one pass over the class's probes (the fastest of the rounds).
    pub ms: f64,
}

/// One cap's time on the convolutions' weight gradients (`tile_probes::CONV_PROBES`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConvTiming {
    /// The most chunks each weight gradient is split into (one of `CONV_CHUNK_CAPS`).
    pub chunks: u32,
    /// Milliseconds for one pass over the probes (the fastest of the rounds).
    pub ms: f64,
}

/// The convolutions' time in wide tiles everywhere or narrow ones where they fit
/// (`tile_probes::Probes::Convolutions`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConvTileTiming {
    /// `TilePlan::conv_narrow`.
    pub narrow: bool,
    /// Milliseconds for one pass over the probes (the fastest of the rounds).
    pub ms: f64,
}

impl ConvTileTiming {
    /// "128×8" or "64×16": the narrow GEMMs' tiles.
    fn label(&self) -> &'static str {
        if self.narrow {
            "128×8"
        } else {
            "64×16"
        }
    }
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
    /// Every cap on the convolutions' chunks (`CONV_CHUNK_CAPS`); none on an emulated GPU, which
    /// sums fixed chunks (`ops::conv2d::GRAD_CHUNK`).
    pub conv: Vec<ConvTiming>,
    /// The convolutions in wide and in narrow tiles (`time_conv_tiles`); none on an emulated GPU,
    /// which runs blocks without workgroup memory.
    pub conv_tiles: Vec<ConvTileTiming>,
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
        let products = format!(
            "small products {}, medium {}, large {large}, gathered {}",
            class(self.best.small, &self.small),
            class(self.best.medium, &self.medium),
            class(self.best.gathered, &self.gathered),
        );
        let best = self.best.conv_chunks;
        let Some(chosen) = self.conv.iter().find(|t| t.chunks == best) else {
            return products;
        };
        let others: Vec<String> = self
            .conv
            .iter()
            .filter(|t| t.chunks != best)
            .map(|t| format!("{} chunks {:.2}", t.chunks, t.ms))
            .collect();
        let chunks = format!(
            "{products}; convolutions' weight gradients in at most {best} chunks ({:.2} ms; {})",
            chosen.ms,
            others.join(", ")
        );
        let narrow = self.best.conv_narrow;
        let (Some(tiles), Some(other)) = (
            self.conv_tiles.iter().find(|t| t.narrow == narrow),
            self.conv_tiles.iter().find(|t| t.narrow != narrow),
        ) else {
            return chunks;
        };
        format!(
            "{chunks}; their GEMMs of ≤ 8 columns in {} tiles ({:.2} ms; {} {:.2})",
            tiles.label(),
            tiles.ms,
            other.label(),
            other.ms
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
/// The rounds on an emulated GPU, whose choice decides little (it runs on the processor, and
/// students' GPUs are real) and whose passes take a hundred times longer: enough to show the
/// timing at work.
const EMULATED_ROUNDS: usize = 2;

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
    let conv = if ctx.emulated() {
        Vec::new()
    } else {
        time_conv_chunks(ctx, repeats, now_ms).await?
    };
    let conv_chunks = quickest(&conv, |t| t.ms).map_or(DEFAULT_CONV_CHUNKS, |t| t.chunks);
    let conv_tiles = if ctx.emulated() {
        Vec::new()
    } else {
        time_conv_tiles(ctx, conv_chunks, repeats, now_ms).await?
    };
    let fastest = |timings: &[TileTiming]| quickest(timings, |t| t.ms).map_or(TileShape::Medium, |t| t.tiles);
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
        conv_chunks,
        conv_narrow: quickest(&conv_tiles, |t| t.ms).is_some_and(|t| t.narrow),
    };
    ctx.tiles.set(best);
    Ok(Tuning {
        best,
        small,
        medium,
        large,
        gathered,
        conv,
        conv_tiles,
    })
}

/// The candidate that took the fewest milliseconds, if any was timed.
fn quickest<T>(timings: &[T], ms: impl Fn(&T) -> f64) -> Option<&T> {
    timings.iter().min_by(|a, b| ms(a).total_cmp(&ms(b)))
}

/// Every candidate's fastest pass over `probes`, each product `repeats` times a pass.
async fn time_class(
    ctx: &Rc<GpuContext>,
    probes: Probes,
    repeats: usize,
    now_ms: &dyn Fn() -> f64,
) -> Result<Vec<TileTiming>, Error> {
    let mut backends = Vec::new();
    for tiles in TileShape::ALL {
        backends.push(probe_backend(ctx, probes, repeats, tiles).await?);
    }
    let ms = fastest_passes(ctx, &mut backends, now_ms).await?;
    let timings = TileShape::ALL.into_iter().zip(ms);
    Ok(timings.map(|(tiles, ms)| TileTiming { tiles, ms }).collect())
}

/// Every cap on the convolutions' chunks timed on W2's weight gradients, each pass `repeats`
/// times over them; the context keeps its plan (see `time_plans`).
pub async fn time_conv_chunks(
    ctx: &Rc<GpuContext>,
    repeats: usize,
    now_ms: &dyn Fn() -> f64,
) -> Result<Vec<ConvTiming>, Error> {
    let before = ctx.tiles.get();
    let plans = CONV_CHUNK_CAPS.map(|conv_chunks| TilePlan {
        conv_chunks,
        ..before
    });
    let ms = time_plans(ctx, &plans, Probes::ConvGradients, repeats, now_ms).await?;
    let timings = CONV_CHUNK_CAPS.into_iter().zip(ms);
    Ok(timings.map(|(chunks, ms)| ConvTiming { chunks, ms }).collect())
}

/// W2's convolutions (every GEMM a training step runs) timed in wide tiles everywhere and in
/// narrow ones where they fit (`TilePlan::conv_narrow`), their weight gradients split into at
/// most `conv_chunks` chunks, each pass `repeats` times over them; the context keeps its plan,
/// as in `time_conv_chunks`.
pub async fn time_conv_tiles(
    ctx: &Rc<GpuContext>,
    conv_chunks: u32,
    repeats: usize,
    now_ms: &dyn Fn() -> f64,
) -> Result<Vec<ConvTileTiming>, Error> {
    let before = ctx.tiles.get();
    let narrow = [false, true];
    let plans = narrow.map(|conv_narrow| TilePlan {
        conv_chunks,
        conv_narrow,
        ..before
    });
    let ms = time_plans(ctx, &plans, Probes::Convolutions, repeats, now_ms).await?;
    let timings = narrow.into_iter().zip(ms);
    Ok(timings
        .map(|(narrow, ms)| ConvTileTiming { narrow, ms })
        .collect())
}

/// The fastest pass over `probes` under each plan. The kernels take their plan from the context
/// as their backend is built, so the context holds each plan while its backend is built, and
/// its own plan again after each.
async fn time_plans(
    ctx: &Rc<GpuContext>,
    plans: &[TilePlan],
    probes: Probes,
    repeats: usize,
    now_ms: &dyn Fn() -> f64,
) -> Result<Vec<f64>, Error> {
    let before = ctx.tiles.get();
    let mut backends = Vec::new();
    for &plan in plans {
        ctx.tiles.set(plan);
        let built = probe_backend(ctx, probes, repeats, TileShape::Medium).await;
        ctx.tiles.set(before);
        backends.push(built?);
    }
    fastest_passes(ctx, &mut backends, now_ms).await
}

/// The probes built on `tiles` with their inputs written, after an untimed first pass (it
/// compiles the pipelines and warms the caches).
async fn probe_backend(
    ctx: &Rc<GpuContext>,
    probes: Probes,
    repeats: usize,
    tiles: TileShape,
) -> Result<Backend, Error> {
    let mut b = Backend::Gpu(GpuBackend::new(ctx.clone(), probes.plan(tiles, repeats)).await?);
    probes.fill(&mut b);
    pass(&mut b).await?;
    Ok(b)
}

/// Each backend's fastest pass, `ROUNDS` rounds (`EMULATED_ROUNDS` on an emulated GPU) taken in
/// turns.
async fn fastest_passes(
    ctx: &GpuContext,
    backends: &mut [Backend],
    now_ms: &dyn Fn() -> f64,
) -> Result<Vec<f64>, Error> {
    let rounds = if ctx.emulated() { EMULATED_ROUNDS } else { ROUNDS };
    let mut fastest = vec![f64::INFINITY; backends.len()];
    for _ in 0..rounds {
        for (b, ms) in backends.iter_mut().zip(&mut fastest) {
            let t0 = now_ms();
            pass(b).await?;
            *ms = ms.min(now_ms() - t0);
        }
    }
    Ok(fastest)
}

/// One pass over the probes, awaited (reading one value back waits for the device).
async fn pass(b: &mut Backend) -> Result<(), Error> {
    b.run(Pass::Train, &StepScalars::default());
    b.read_f32(BufId(2), 1).await.map(|_| ())
}
