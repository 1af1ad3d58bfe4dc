//! Tiling a matrix product (docs/theory.md §11.2): a workgroup computes a T × T tile of C, reading
//! its panel of A (T rows × k) and of B (k × T columns) from global memory into workgroup memory
//! and reusing each value T times there. A is read once per column tile and B once per row tile,
//! so larger tiles move fewer bytes — until a tile no longer fits, or there are too few to keep
//! the GPU's cores busy.

use serde::{Deserialize, Serialize};

use engine::autotune::{Tuning, LARGE_PROBES, MEDIUM_PROBES, SMALL_PROBES};
use engine::tile_probes::GATHERED_PROBE;
use engine::tiles::TileShape;

/// Bytes a product C = A·B (A m × k, B k × n) moves from and to global memory in T × T tiles:
/// 4 · (m·k·⌈n/T⌉ + k·n·⌈m/T⌉ + m·n). In 64 bits: on 32-bit wasm a `usize` product wraps at
/// 4·10⁹, and the lab accepts sides of 10⁵.
pub fn tile_bytes(m: usize, n: usize, k: usize, edge: usize) -> f64 {
    let (m, n, k, edge) = (m as u64, n as u64, k as u64, edge.max(1) as u64);
    4.0 * (m * k * n.div_ceil(edge) + k * n * m.div_ceil(edge) + m * n) as f64
}

/// Tiles of C (workgroups): ⌈m/T⌉ · ⌈n/T⌉.
pub fn tile_count(m: usize, n: usize, edge: usize) -> u64 {
    let edge = edge.max(1) as u64;
    (m as u64).div_ceil(edge) * (n as u64).div_ceil(edge)
}

/// FLOPs of the product: 2·m·n·k (exact in f64 up to 2⁵³, past the largest the lab accepts).
pub fn product_flops(m: usize, n: usize, k: usize) -> f64 {
    2.0 * m as f64 * n as f64 * k as f64
}

/// The most floats a matrix of the timed tile sweep may hold (64 MB): a larger product is
/// counted, not timed.
pub const SWEEP_FLOATS: u64 = 1 << 24;

/// Whether every matrix of the product fits the sweep's buffers (`SWEEP_FLOATS` each).
pub fn sweep_fits(m: usize, n: usize, k: usize) -> bool {
    let (m, n, k) = (m as u64, n as u64, k as u64);
    [m * k, k * n, m * n].iter().all(|f| *f <= SWEEP_FLOATS)
}

/// The product in each of the engine's tile shapes: its tiles and bytes counted, and its time
/// where `times` has one.
pub fn tile_rows(m: usize, n: usize, k: usize, times: &[(TileShape, f64)]) -> Vec<TileRow> {
    TileShape::ALL
        .iter()
        .map(|&shape| {
            let edge = shape.edge() as usize;
            TileRow {
                code: shape.code().to_string(),
                edge,
                tiles: tile_count(m, n, edge),
                bytes: tile_bytes(m, n, k, edge),
                ms: times.iter().find(|(t, _)| *t == shape).map(|(_, ms)| *ms),
            }
        })
        .collect()
}

/// One tile shape: its code ("64", "32k4"), edge, workgroups (tiles of C), the bytes it moves,
/// and its time on this device (None: not timed, the CPU path has no tiles).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TileRow {
    pub code: String,
    pub edge: usize,
    pub tiles: u64,
    pub bytes: f64,
    pub ms: Option<f64>,
}

/// A tile shape the autotune timed for a class of products: milliseconds for one pass over the
/// class's probe products, the rate that is, and whether the autotune chose it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TunedRow {
    /// "small", "medium", "large", "gathered".
    pub class: String,
    pub code: String,
    pub ms: f64,
    pub gflops: f64,
    pub chosen: bool,
}

/// FLOPs of one pass over some products (m, n, k): 2·m·n·k each.
fn flops_of(products: &[(usize, usize, usize)]) -> f64 {
    products.iter().map(|&(m, n, k)| product_flops(m, n, k)).sum()
}

/// Every candidate of every class the autotune timed, as rates.
pub fn tuned_rows(t: &Tuning) -> Vec<TunedRow> {
    let classes = [
        ("small", &t.small, t.best.small, flops_of(&SMALL_PROBES)),
        ("medium", &t.medium, t.best.medium, flops_of(&MEDIUM_PROBES)),
        ("large", &t.large, t.best.large, flops_of(&LARGE_PROBES)),
        (
            "gathered",
            &t.gathered,
            t.best.gathered,
            flops_of(&[GATHERED_PROBE]),
        ),
    ];
    classes
        .into_iter()
        .flat_map(|(class, timings, best, flops)| {
            timings.iter().map(move |c| TunedRow {
                class: class.into(),
                code: c.tiles.code().into(),
                ms: c.ms,
                gflops: flops / (c.ms.max(1e-9) * 1e6),
                chosen: c.tiles == best,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_move_fewer_bytes_as_they_grow_by_hand() {
        // W1's first layer, 64 × 784 by 784 × 128. 32 × 32 tiles: A read 4 times, B twice.
        assert_eq!(
            tile_bytes(64, 128, 784, 32),
            4.0 * (4.0 * 50_176.0 + 2.0 * 100_352.0 + 8_192.0)
        );
        // 64 × 64: A twice, B once.
        assert_eq!(
            tile_bytes(64, 128, 784, 64),
            4.0 * (2.0 * 50_176.0 + 100_352.0 + 8_192.0)
        );
        // 128 × 128: each read once, the least any kernel moves (the product's `Kernel::bytes`).
        assert_eq!(
            tile_bytes(64, 128, 784, 128),
            4.0 * (50_176.0 + 100_352.0 + 8_192.0)
        );
    }

    /// The largest product the lab accepts (sides of 10⁵), which a 32-bit count wraps (issue 80):
    /// 8 × 8 tiles read A and B 12,500 times each.
    #[test]
    fn the_largest_product_is_counted_in_64_bits_by_hand() {
        let side = 100_000;
        assert_eq!(tile_count(side, side, 8), 12_500 * 12_500);
        assert_eq!(
            tile_bytes(side, side, side, 8),
            4.0 * (2.0 * 1e10 * 12_500.0 + 1e10)
        );
        assert_eq!(product_flops(side, side, side), 2e15);
        // The timed sweep holds 2²⁴ floats a matrix: 4096 × 4096 fits, 4097 rows do not.
        assert!(sweep_fits(4096, 4096, 4096));
        assert!(!sweep_fits(4097, 4096, 4096));
        assert!(!sweep_fits(side, 1, side));
        let rows = tile_rows(side, side, side, &[]);
        assert_eq!(rows.len(), TileShape::ALL.len());
        assert!(rows.iter().all(|r| r.ms.is_none() && r.tiles >= 781 * 781));
    }

    #[test]
    fn the_autotunes_timings_as_rates_by_hand() {
        use engine::autotune::TileTiming;
        use engine::tiles::{TilePlan, TileShape};
        let timing = |tiles, ms| TileTiming { tiles, ms };
        let t = Tuning {
            best: TilePlan::uniform(TileShape::Small),
            small: vec![timing(TileShape::Medium, 2.0), timing(TileShape::Small, 1.0)],
            medium: vec![timing(TileShape::Small, 4.0)],
            large: vec![],
            gathered: vec![timing(TileShape::Split, 0.5)],
            conv: vec![],
            conv_tiles: vec![],
        };
        let rows = tuned_rows(&t);
        assert_eq!(rows.len(), 4);
        // Small: 2 · (64·128·784 + 784·128·64 + 64·10·128 + 256³) = 59,408,384 FLOPs a pass.
        assert_eq!(rows[0].gflops, 59_408_384.0 / 2e6);
        assert_eq!((rows[0].chosen, rows[1].chosen), (false, true));
        // Medium: 2 · 512³ in 4 ms; gathered: 2 · 64 · 128 · 784 in 0.5 ms, not the chosen shape.
        assert_eq!(rows[2].gflops, 2.0 * 512f64.powi(3) / 4e6);
        assert_eq!(
            (rows[3].class.as_str(), rows[3].gflops, rows[3].chosen),
            ("gathered", 12_845_056.0 / 0.5e6, false)
        );
    }
}
