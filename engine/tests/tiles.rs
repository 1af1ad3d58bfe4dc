//! The tile autotune: every candidate timed on this device for small, medium and gathered
//! products (and large ones on a real GPU), the fastest of each kept by the context and used by
//! the kernels by their size; the tile plans' words round-trip (the browser caches the choice by
//! its code).

use crate::common;

use common::{gpu, gpu_as_real};
use engine::autotune::{autotune, time_conv_chunks, time_conv_tiles, TileTiming};
use engine::kernel::{BufId, DeviceFit, Kernel};
use engine::ops::matmul::{Matmul, MatmulDims};
use engine::tiles::{TilePlan, TileShape, CONV_CHUNK_CAPS, DEFAULT_CONV_CHUNKS, LARGE_FLOPS, MEDIUM_FLOPS};
use engine::workloads::native_now_ms;

fn fastest(timings: &[TileTiming]) -> TileShape {
    timings.iter().min_by(|a, b| a.ms.total_cmp(&b.ms)).unwrap().tiles
}

#[test]
fn autotune_times_every_candidate_and_keeps_the_fastest_of_each_class() {
    let ctx = gpu();
    let tuning = pollster::block_on(autotune(&ctx, &native_now_ms)).unwrap();
    eprintln!("{}: {}", ctx.adapter.label(), tuning.summary());
    for class in [&tuning.small, &tuning.medium, &tuning.gathered] {
        let timed: Vec<TileShape> = class.iter().map(|t| t.tiles).collect();
        assert_eq!(timed, TileShape::ALL.to_vec());
        assert!(class.iter().all(|t| t.ms.is_finite() && t.ms > 0.0));
    }
    assert_eq!(tuning.best.small, fastest(&tuning.small));
    assert_eq!(tuning.best.medium, fastest(&tuning.medium));
    assert_eq!(tuning.best.gathered, fastest(&tuning.gathered));
    // lavapipe is emulated: a 2048 square would take seconds a pass, so large products take the
    // medium products' shape untimed.
    assert!(ctx.emulated() && tuning.large.is_empty());
    // Nor are the convolutions' chunks timed there: an emulated GPU sums fixed chunks.
    assert!(tuning.conv.is_empty());
    assert_eq!(tuning.best.conv_chunks, DEFAULT_CONV_CHUNKS);
    // Nor their tiles: an emulated GPU runs blocks without workgroup memory.
    assert!(tuning.conv_tiles.is_empty() && !tuning.best.conv_narrow);
    assert_eq!(tuning.best.large, tuning.best.medium);
    assert_eq!(ctx.tiles.get(), tuning.best);
    let summary = tuning.summary();
    assert!(summary.starts_with(&format!("small products {} (", tuning.best.small.label())));
    assert!(summary.contains(&format!(", medium {} (", tuning.best.medium.label())));
    assert!(summary.contains(&format!(
        ", large {} (as medium: untimed on an emulated GPU), gathered {} (",
        tuning.best.large.label(),
        tuning.best.gathered.label()
    )));
}

/// A product takes its size class's shape by its FLOPs, unless it names its own.
#[test]
fn products_take_their_size_class_shape() {
    let plan = TilePlan {
        small: TileShape::Small,
        medium: TileShape::Medium,
        large: TileShape::Large,
        gathered: TileShape::Split,
        ..TilePlan::default()
    };
    let fit = DeviceFit {
        parallel_workgroups: 0,
        tiles: plan,
        subgroups: false,
    };
    let product = |n: usize| Matmul::new(BufId(0), BufId(1), BufId(2), MatmulDims::row_major(n, n, n));
    let (mut small, mut medium) = (product(256), product(1024));
    let (mut large, mut own) = (product(2048), product(2048));
    assert!(small.flops() < MEDIUM_FLOPS);
    assert!(medium.flops() >= MEDIUM_FLOPS && medium.flops() < LARGE_FLOPS);
    assert!(large.flops() >= LARGE_FLOPS);
    own.tiles = Some(TileShape::Small);
    for k in [&mut small, &mut medium, &mut large, &mut own] {
        k.fit_device(fit);
    }
    assert_eq!(small.tiles, Some(TileShape::Small));
    assert_eq!(medium.tiles, Some(TileShape::Medium));
    assert_eq!(large.tiles, Some(TileShape::Large));
    assert_eq!(own.tiles, Some(TileShape::Small));
    // A product gathering its rows from the data set takes the gathered shape while it is small.
    assert_eq!(plan.for_product(small.flops(), true), TileShape::Split);
    assert_eq!(plan.for_product(medium.flops(), true), TileShape::Medium);
    assert_eq!(plan.for_product(small.flops(), false), TileShape::Small);
    // Each shape compiles its own module: the shader's name tells them apart.
    assert_eq!(large.name(), "matmul_large");
}

#[test]
fn tile_plans_parse_their_own_codes_only() {
    for t in TileShape::ALL {
        assert_eq!(TileShape::parse(t.code()), Some(t));
        let split = if t == TileShape::Split { " k÷4" } else { "" };
        assert_eq!(t.label(), format!("{0}×{0}{split}", t.edge()));
        assert_eq!(TilePlan::parse(t.code()), Some(TilePlan::uniform(t)));
    }
    let mixed = TilePlan {
        small: TileShape::Medium,
        medium: TileShape::Large,
        large: TileShape::Large,
        gathered: TileShape::Medium,
        ..TilePlan::default()
    };
    assert_eq!(mixed.code(), "64/128");
    assert_eq!(TilePlan::parse("64/128"), Some(mixed));
    assert_eq!(mixed.label(), "64×64 (larger products 128×128)");
    let three = TilePlan {
        small: TileShape::Small,
        medium: TileShape::Medium,
        large: TileShape::Large,
        gathered: TileShape::Small,
        ..TilePlan::default()
    };
    assert_eq!(three.code(), "32/64/128");
    assert_eq!(TilePlan::parse("32/64/128"), Some(three));
    assert_eq!(three.label(), "32×32 (medium products 64×64, large 128×128)");
    let four = TilePlan {
        gathered: TileShape::Split,
        ..three
    };
    assert_eq!(four.code(), "32/64/128/32k4");
    assert_eq!(TilePlan::parse("32/64/128/32k4"), Some(four));
    assert_eq!(
        four.label(),
        "32×32 (medium products 64×64, large 128×128; gathered 32×32 k÷4)"
    );
    let gathered_only = TilePlan {
        gathered: TileShape::Split,
        ..TilePlan::default()
    };
    assert_eq!(TilePlan::parse(&gathered_only.code()), Some(gathered_only));
    assert_eq!(gathered_only.label(), "64×64 (gathered 32×32 k÷4)");
    // A cap on the convolutions' chunks other than the default follows the shapes.
    let capped = TilePlan {
        conv_chunks: 32,
        ..four
    };
    assert_eq!(capped.code(), "32/64/128/32k4/c32");
    assert_eq!(TilePlan::parse("32/64/128/32k4/c32"), Some(capped));
    assert_eq!(
        capped.label(),
        "32×32 (medium products 64×64, large 128×128; gathered 32×32 k÷4), convolutions' weight \
         gradients in at most 32 chunks"
    );
    let plain_capped = TilePlan {
        conv_chunks: 8,
        ..TilePlan::default()
    };
    assert_eq!(plain_capped.code(), "64/c8");
    assert_eq!(TilePlan::parse("64/c8"), Some(plain_capped));
    assert_eq!(TilePlan::parse("64/c128"), Some(TilePlan::default()));
    let narrow = TilePlan {
        conv_narrow: true,
        ..plain_capped
    };
    assert_eq!(narrow.code(), "64/c8/n");
    assert_eq!(TilePlan::parse("64/c8/n"), Some(narrow));
    assert_eq!(
        narrow.label(),
        "64×64, convolutions' weight gradients in at most 8 chunks, convolutions' GEMMs of ≤ 8 \
         columns in 128×8 tiles"
    );
    let narrow_only = TilePlan {
        conv_narrow: true,
        ..TilePlan::default()
    };
    assert_eq!(narrow_only.code(), "64/n");
    assert_eq!(TilePlan::parse("64/n"), Some(narrow_only));
    for bad in [
        "48",
        "64/",
        "/128",
        "64/128/32/64/64",
        "64//128",
        "32k",
        "",
        "c32",
        "64/c",
        "64/c7",
        "64/c32/c8",
        "n",
        "64/n/c8",
        "64/n/n",
        "64/N",
    ] {
        assert_eq!(TilePlan::parse(bad), None, "{bad}");
    }
    assert_eq!(TilePlan::default(), TilePlan::uniform(TileShape::Medium));
    assert_eq!(TilePlan::default().conv_chunks, DEFAULT_CONV_CHUNKS);
}

/// On a real GPU the autotune times every cap on the convolutions' chunks on W2's weight
/// gradients (here lavapipe, told it is a real GPU); the context keeps its plan meanwhile.
#[test]
fn every_cap_on_the_convolutions_chunks_is_timed() {
    let ctx = gpu_as_real();
    let kept = TilePlan {
        small: TileShape::Small,
        ..TilePlan::default()
    };
    ctx.tiles.set(kept);
    let timings = pollster::block_on(time_conv_chunks(&ctx, 1, &native_now_ms)).unwrap();
    eprintln!("{timings:?}");
    let caps: Vec<u32> = timings.iter().map(|t| t.chunks).collect();
    assert_eq!(caps, CONV_CHUNK_CAPS.to_vec());
    assert!(timings.iter().all(|t| t.ms.is_finite() && t.ms > 0.0));
    assert_eq!(ctx.tiles.get(), kept);
}

/// On a real GPU the autotune times W2's convolutions in wide tiles and in narrow ones where they
/// fit (here lavapipe, told it is a real GPU); the context keeps its plan meanwhile.
#[test]
fn the_convolutions_are_timed_in_wide_and_in_narrow_tiles() {
    let ctx = gpu_as_real();
    let kept = TilePlan {
        conv_chunks: 32,
        ..TilePlan::default()
    };
    ctx.tiles.set(kept);
    // Timed on a cap other than the context's, which the context does not take.
    let timings = pollster::block_on(time_conv_tiles(&ctx, 8, 1, &native_now_ms)).unwrap();
    eprintln!("{timings:?}");
    let narrow: Vec<bool> = timings.iter().map(|t| t.narrow).collect();
    assert_eq!(narrow, [false, true]);
    assert!(timings.iter().all(|t| t.ms.is_finite() && t.ms > 0.0));
    assert_eq!(ctx.tiles.get(), kept);
}
