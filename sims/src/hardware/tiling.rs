//! Tiling a matrix product (docs/theory.md §11.2): a workgroup computes a T × T tile of C, reading
//! its panel of A (T rows × k) and of B (k × T columns) from global memory into workgroup memory
//! and reusing each value T times there. A is read once per column tile and B once per row tile,
//! so larger tiles move fewer bytes — until a tile no longer fits, or there are too few to keep
//! the GPU's cores busy.

use serde::{Deserialize, Serialize};

/// Bytes a product C = A·B (A m × k, B k × n) moves from and to global memory in T × T tiles:
/// 4 · (m·k·⌈n/T⌉ + k·n·⌈m/T⌉ + m·n).
pub fn tile_bytes(m: usize, n: usize, k: usize, edge: usize) -> f64 {
    let edge = edge.max(1);
    4.0 * (m * k * n.div_ceil(edge) + k * n * m.div_ceil(edge) + m * n) as f64
}

/// One tile shape: its code ("64", "32k4"), edge, workgroups (tiles of C), the bytes it moves,
/// and its time on this device (None: not timed, the CPU path has no tiles).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TileRow {
    pub code: String,
    pub edge: usize,
    pub tiles: usize,
    pub bytes: f64,
    pub ms: Option<f64>,
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
}
