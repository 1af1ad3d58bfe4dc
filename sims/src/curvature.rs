//! How convex a loss slice is (docs/theory.md §4.6): the principal curvatures of a sampled 2-D
//! slice at each interior grid point, by central differences, summarized as Li et al.'s
//! eigenvalue maps are read: where the surface curves down along some direction, and how
//! strongly against its upward curvature.

/// The principal curvatures (λ_min, λ_max) of the surface `grid` (res × res losses, row by row,
/// on a square of side 2·`span`) at each interior point, row by row: the eigenvalues of
/// [[f_αα, f_αβ], [f_αβ, f_ββ]] from central differences (exact for a quadratic).
pub fn slice_curvatures(grid: &[f32], res: usize, span: f32) -> Vec<[f32; 2]> {
    if res < 3 || grid.len() < res * res {
        return Vec::new();
    }
    let h = 2.0 * span as f64 / (res - 1) as f64;
    let f = |i: usize, j: usize| grid[j * res + i] as f64;
    let mut out = Vec::with_capacity((res - 2) * (res - 2));
    for j in 1..res - 1 {
        for i in 1..res - 1 {
            let faa = (f(i + 1, j) - 2.0 * f(i, j) + f(i - 1, j)) / (h * h);
            let fbb = (f(i, j + 1) - 2.0 * f(i, j) + f(i, j - 1)) / (h * h);
            let fab = (f(i + 1, j + 1) - f(i + 1, j - 1) - f(i - 1, j + 1) + f(i - 1, j - 1)) / (4.0 * h * h);
            let (mid, radius) = (
                (faa + fbb) / 2.0,
                (((faa - fbb) / 2.0).powi(2) + fab * fab).sqrt(),
            );
            out.push([(mid - radius) as f32, (mid + radius) as f32]);
        }
    }
    out
}

/// A slice's convexity in two numbers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SliceConvexity {
    /// The mean over interior points of max(0, −λ_min) / max(|λ_min|, |λ_max|): 0 where the
    /// surface is convex, 1 where it curves down as much as up (a symmetric saddle) or only down.
    pub nonconvexity: f32,
    /// The share of interior points whose ratio above exceeds 0.1: visibly non-convex.
    pub nonconvex_share: f32,
}

pub fn slice_convexity(grid: &[f32], res: usize, span: f32) -> SliceConvexity {
    let k = slice_curvatures(grid, res, span);
    let ratios: Vec<f32> = k
        .iter()
        .map(|[lo, hi]| {
            let scale = lo.abs().max(hi.abs());
            if scale > 0.0 {
                (-lo).max(0.0) / scale
            } else {
                0.0
            }
        })
        .collect();
    let n = ratios.len().max(1) as f32;
    SliceConvexity {
        nonconvexity: ratios.iter().sum::<f32>() / n,
        nonconvex_share: ratios.iter().filter(|r| **r > 0.1).count() as f32 / n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(res: usize, span: f32, f: impl Fn(f32, f32) -> f32) -> Vec<f32> {
        let c = |i: usize| -span + 2.0 * span * i as f32 / (res - 1) as f32;
        (0..res * res).map(|k| f(c(k % res), c(k / res))).collect()
    }

    /// Quadratics have constant curvatures, which central differences give exactly: a bowl is
    /// convex everywhere, a symmetric saddle scores 1, a rotated one keeps its eigenvalues.
    #[test]
    fn quadratics_have_their_closed_form_curvatures() {
        let bowl = grid(9, 1.0, |a, b| a * a + 2.0 * b * b);
        for [lo, hi] in slice_curvatures(&bowl, 9, 1.0) {
            assert!((lo - 2.0).abs() < 1e-3 && (hi - 4.0).abs() < 1e-3, "{lo} {hi}");
        }
        assert_eq!(slice_convexity(&bowl, 9, 1.0).nonconvexity, 0.0);
        let saddle = grid(9, 1.0, |a, b| a * a - b * b);
        let s = slice_convexity(&saddle, 9, 1.0);
        assert!(
            (s.nonconvexity - 1.0).abs() < 1e-3 && s.nonconvex_share == 1.0,
            "{s:?}"
        );
        // 3a² + 2ab − b²... eigenvalues of [[6, 2], [2, −2]]: 2 ± √20.
        let tilted = grid(7, 0.5, |a, b| 3.0 * a * a + 2.0 * a * b - b * b);
        let (lo, hi) = (2.0 - 20f32.sqrt(), 2.0 + 20f32.sqrt());
        for k in slice_curvatures(&tilted, 7, 0.5) {
            assert!((k[0] - lo).abs() < 1e-2 && (k[1] - hi).abs() < 1e-2, "{k:?}");
        }
        let r = slice_convexity(&tilted, 7, 0.5).nonconvexity;
        assert!((r - (-lo / hi)).abs() < 1e-3, "{r}");
    }
}
