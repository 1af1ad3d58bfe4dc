//! The tile autotune: every candidate timed on this device, the faster kept by the context, and
//! the tile shapes' words round-trip (the browser caches the choice by its code).

mod common;

use common::gpu;
use engine::bench::native_now_ms;
use engine::tiles::{autotune, TileShape};

#[test]
fn autotune_times_every_candidate_and_keeps_the_fastest() {
    let ctx = gpu();
    let tuning = pollster::block_on(autotune(&ctx, &native_now_ms)).unwrap();
    eprintln!("{}: {}", ctx.adapter.label(), tuning.summary());
    let timed: Vec<TileShape> = tuning.timings.iter().map(|t| t.tiles).collect();
    assert_eq!(timed, TileShape::ALL.to_vec());
    assert!(tuning.timings.iter().all(|t| t.ms.is_finite() && t.ms > 0.0));
    let fastest = tuning
        .timings
        .iter()
        .min_by(|a, b| a.ms.total_cmp(&b.ms))
        .unwrap();
    assert_eq!(tuning.best, fastest.tiles);
    assert_eq!(ctx.tiles.get(), tuning.best);
    assert!(tuning.summary().starts_with(&tuning.best.label()));
}

#[test]
fn tile_shapes_parse_their_own_codes_only() {
    for t in TileShape::ALL {
        assert_eq!(TileShape::parse(t.code()), Some(t));
        assert_eq!(t.label(), format!("{0}×{0}", t.edge()));
    }
    assert_eq!(TileShape::parse("48"), None);
    assert_eq!(TileShape::default(), TileShape::Large);
}
