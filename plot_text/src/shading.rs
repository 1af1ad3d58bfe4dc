//! A loss-landscape slice drawn as a map: the loss between grid points, and the colour band a
//! log-loss falls in.

/// Colour bands of the contour map.
pub const BANDS: f32 = 12.0;

/// The grid's value at fractional grid coordinates (x along columns, y along rows), bilinear
/// between the four nearest points; NaN where any of them is not finite.
pub fn bilinear(grid: &[f32], res: usize, x: f32, y: f32) -> f32 {
    let max = (res - 1) as f32;
    let (x, y) = (x.clamp(0.0, max), y.clamp(0.0, max));
    let (c0, r0) = (x.floor() as usize, y.floor() as usize);
    let (c1, r1) = ((c0 + 1).min(res - 1), (r0 + 1).min(res - 1));
    let (tx, ty) = (x - c0 as f32, y - r0 as f32);
    let at = |r: usize, c: usize| grid[r * res + c];
    let top = at(r0, c0) * (1.0 - tx) + at(r0, c1) * tx;
    let bottom = at(r1, c0) * (1.0 - tx) + at(r1, c1) * tx;
    top * (1.0 - ty) + bottom * ty
}

/// The band (0 … BANDS − 1) a log-loss falls in on the colour scale `range`.
pub fn band(log_loss: f32, (lo, hi): (f32, f32)) -> i32 {
    if !log_loss.is_finite() {
        return -1;
    }
    let t = if hi > lo {
        ((log_loss - lo) / (hi - lo)).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (t * BANDS).floor().min(BANDS - 1.0) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bilinear_is_exact_at_grid_points_and_linear_between() {
        // f(r, c) = 2c + 3r is reproduced exactly by bilinear interpolation.
        let res = 4;
        let grid: Vec<f32> = (0..res * res)
            .map(|i| (2 * (i % res) + 3 * (i / res)) as f32)
            .collect();
        for (x, y) in [(0.0, 0.0), (3.0, 3.0), (1.5, 0.25), (2.75, 1.5)] {
            assert!(
                (bilinear(&grid, res, x, y) - (2.0 * x + 3.0 * y)).abs() < 1e-5,
                "{x},{y}"
            );
        }
        assert_eq!(band(f32::NAN, (0.0, 1.0)), -1);
        assert_eq!(band(1.0, (0.0, 1.0)), BANDS as i32 - 1);
        assert_eq!(band(0.0, (0.0, 1.0)), 0);
    }
}
