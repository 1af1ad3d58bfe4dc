//! Analytic 2-D loss surfaces for the optimizer lab (docs/theory.md §3), and races of optimizers on
//! them: each optimizer starts from the same point and steps with the same update rules the
//! training kernels use (their CPU twins), on exact gradients or on gradients with seeded noise.

use serde::{Deserialize, Serialize};

use engine::optim::{step_cpu, Optimizer};
use engine::rng::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Surface {
    /// ½(x² + κ y²): condition number κ, minimum at the origin.
    Quadratic { kappa: f32 },
    /// (1 − x)² + 100 (y − x²)², minimum at (1, 1) at the end of a curved valley.
    Rosenbrock,
    /// (1.5 − x + xy)² + (2.25 − x + xy²)² + (2.625 − x + xy³)², minimum at (3, 0.5).
    Beale,
    /// (x² + y − 11)² + (x + y² − 7)²: four minima of value 0.
    Himmelblau,
    /// (xy − 1)²: a deep linear network of two weights; a saddle at the origin, no bad minima.
    DeepLinear,
    /// x³ − 3xy²: a monkey saddle (three valleys down, flat at the origin); unbounded below.
    MonkeySaddle,
}

impl Surface {
    pub const ALL: [Surface; 6] = [
        Surface::Quadratic { kappa: 10.0 },
        Surface::Rosenbrock,
        Surface::Beale,
        Surface::Himmelblau,
        Surface::DeepLinear,
        Surface::MonkeySaddle,
    ];

    pub fn label(&self) -> &'static str {
        match self {
            Surface::Quadratic { .. } => "ill-conditioned quadratic",
            Surface::Rosenbrock => "Rosenbrock",
            Surface::Beale => "Beale",
            Surface::Himmelblau => "Himmelblau",
            Surface::DeepLinear => "deep-linear saddle (xy − 1)²",
            Surface::MonkeySaddle => "monkey saddle",
        }
    }

    pub fn value(&self, x: f32, y: f32) -> f32 {
        let (x, y) = (x as f64, y as f64);
        (match *self {
            Surface::Quadratic { kappa } => 0.5 * (x * x + kappa as f64 * y * y),
            Surface::Rosenbrock => (1.0 - x).powi(2) + 100.0 * (y - x * x).powi(2),
            Surface::Beale => {
                (1.5 - x + x * y).powi(2)
                    + (2.25 - x + x * y * y).powi(2)
                    + (2.625 - x + x * y.powi(3)).powi(2)
            }
            Surface::Himmelblau => (x * x + y - 11.0).powi(2) + (x + y * y - 7.0).powi(2),
            Surface::DeepLinear => (x * y - 1.0).powi(2),
            Surface::MonkeySaddle => x.powi(3) - 3.0 * x * y * y,
        }) as f32
    }

    /// The exact gradient (derived by hand; tested against finite differences).
    pub fn gradient(&self, x: f32, y: f32) -> [f32; 2] {
        let (x, y) = (x as f64, y as f64);
        let g = match *self {
            Surface::Quadratic { kappa } => [x, kappa as f64 * y],
            Surface::Rosenbrock => [-2.0 * (1.0 - x) - 400.0 * x * (y - x * x), 200.0 * (y - x * x)],
            Surface::Beale => {
                let (a, b, c) = (1.5 - x + x * y, 2.25 - x + x * y * y, 2.625 - x + x * y.powi(3));
                [
                    2.0 * a * (y - 1.0) + 2.0 * b * (y * y - 1.0) + 2.0 * c * (y.powi(3) - 1.0),
                    2.0 * a * x + 2.0 * b * 2.0 * x * y + 2.0 * c * 3.0 * x * y * y,
                ]
            }
            Surface::Himmelblau => {
                let (a, b) = (x * x + y - 11.0, x + y * y - 7.0);
                [4.0 * a * x + 2.0 * b, 2.0 * a + 4.0 * b * y]
            }
            Surface::DeepLinear => [2.0 * (x * y - 1.0) * y, 2.0 * (x * y - 1.0) * x],
            Surface::MonkeySaddle => [3.0 * x * x - 3.0 * y * y, -6.0 * x * y],
        };
        [g[0] as f32, g[1] as f32]
    }

    /// The square the lab shows: (x_min, x_max, y_min, y_max).
    pub fn view(&self) -> [f32; 4] {
        match self {
            Surface::Quadratic { .. } => [-2.0, 2.0, -2.0, 2.0],
            Surface::Rosenbrock => [-2.0, 2.0, -1.0, 3.0],
            Surface::Beale => [-4.5, 4.5, -4.5, 4.5],
            Surface::Himmelblau => [-5.0, 5.0, -5.0, 5.0],
            Surface::DeepLinear => [-2.0, 2.0, -2.0, 2.0],
            Surface::MonkeySaddle => [-1.5, 1.5, -1.5, 1.5],
        }
    }

    /// Where the surface is lowest: its global minima as points (Himmelblau's four from
    /// Himmelblau (1972), rounded to six decimals), or, for the deep-linear saddle, `None` with the
    /// whole hyperbola xy = 1 at value 0 (`minimum_valley`); the monkey saddle has none.
    pub fn minima(&self) -> Vec<[f32; 2]> {
        match self {
            Surface::Quadratic { .. } => vec![[0.0, 0.0]],
            Surface::Rosenbrock => vec![[1.0, 1.0]],
            Surface::Beale => vec![[3.0, 0.5]],
            Surface::Himmelblau => vec![
                [3.0, 2.0],
                [-2.805118, 3.131312],
                [-3.77931, -3.283186],
                [3.584428, -1.848126],
            ],
            Surface::DeepLinear | Surface::MonkeySaddle => Vec::new(),
        }
    }

    /// A valley of minima, where there is one: y = 1/x for the deep-linear saddle.
    pub fn minimum_valley(&self) -> Option<fn(f32) -> f32> {
        match self {
            Surface::DeepLinear => Some(|x| 1.0 / x),
            _ => None,
        }
    }

    /// A start that shows the surface's character.
    pub fn default_start(&self) -> [f32; 2] {
        match self {
            Surface::Quadratic { .. } => [-1.8, 1.2],
            Surface::Rosenbrock => [-1.5, 2.5],
            Surface::Beale => [1.0, 1.5],
            Surface::Himmelblau => [0.0, 0.0],
            Surface::DeepLinear => [0.05, -0.04],
            Surface::MonkeySaddle => [0.2, 0.05],
        }
    }
}

/// One racer: an optimizer and its learning rate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Racer {
    pub optimizer: Optimizer,
    pub learning_rate: f32,
}

/// Each racer's path: `steps + 1` points from the start, and the loss at each. A path stops early
/// where it leaves any sensible range (|w| > 1e6 or not finite): divergence is shown, not hidden.
pub struct Path {
    pub points: Vec<[f32; 2]>,
    pub losses: Vec<f32>,
    pub diverged: bool,
}

/// Runs every racer from `start` for `steps` steps; `noise` adds N(0, noise²) to each gradient
/// component (the same draws for every racer, so they face the same "mini-batches").
pub fn race(
    surface: Surface,
    start: [f32; 2],
    racers: &[Racer],
    steps: usize,
    noise: f32,
    seed: u64,
) -> Vec<Path> {
    let mut rng = Rng::new(seed);
    let draws: Vec<[f32; 2]> = (0..steps)
        .map(|_| [rng.normal() * noise, rng.normal() * noise])
        .collect();
    racers
        .iter()
        .map(|r| {
            let mut w = start;
            let (mut a, mut b) = ([0.0f32; 2], [0.0f32; 2]);
            let mut path = Path {
                points: vec![w],
                losses: vec![surface.value(w[0], w[1])],
                diverged: false,
            };
            for (t, d) in draws.iter().enumerate() {
                let g = surface.gradient(w[0], w[1]);
                let g = [g[0] + d[0], g[1] + d[1]];
                step_cpu(
                    r.optimizer,
                    &g,
                    &mut w,
                    &mut a,
                    &mut b,
                    r.learning_rate,
                    t as u32 + 1,
                );
                if !(w[0].is_finite() && w[1].is_finite()) || w[0].abs() > 1e6 || w[1].abs() > 1e6 {
                    path.diverged = true;
                    break;
                }
                path.points.push(w);
                path.losses.push(surface.value(w[0], w[1]));
            }
            path
        })
        .collect()
}

/// Goh (Distill 2017) for ½(λ₁x² + λ₂y²) with λ₁ = 1, λ₂ = κ: gradient descent's best step and
/// rate, and momentum's optimal step α, momentum β and rate (docs/theory.md §3).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MomentumTheory {
    pub gd_step: f32,
    pub gd_rate: f32,
    pub alpha: f32,
    pub beta: f32,
    pub rate: f32,
}

pub fn momentum_theory(kappa: f32) -> MomentumTheory {
    let (l1, ln) = (1.0f64, kappa as f64);
    let k = ln / l1;
    MomentumTheory {
        gd_step: (2.0 / (l1 + ln)) as f32,
        gd_rate: ((k - 1.0) / (k + 1.0)) as f32,
        alpha: (2.0 / (l1.sqrt() + ln.sqrt())).powi(2) as f32,
        beta: ((k.sqrt() - 1.0) / (k.sqrt() + 1.0)).powi(2) as f32,
        rate: ((k.sqrt() - 1.0) / (k.sqrt() + 1.0)) as f32,
    }
}

/// The measured convergence rate of a path to the origin: exp of the least-squares slope of
/// ln(distance) against the step over the second half of the path, cut where the distance
/// falls below 1e-12 of where it started (past that, f32 rounding, not the optimizer, sets the
/// pace). A fitted slope, not the ratio of two end points, so that the oscillation of momentum
/// (complex roots) averages out instead of biasing the rate by where the window ends.
pub fn measured_rate(points: &[[f32; 2]]) -> f32 {
    let dist = |p: &[f32; 2]| ((p[0] as f64).powi(2) + (p[1] as f64).powi(2)).sqrt();
    let Some(first) = points.first().map(dist) else {
        return f32::NAN;
    };
    let end = points.iter().rposition(|p| dist(p) > 1e-12 * first).unwrap_or(0);
    let from = end / 2;
    if end < from + 2 {
        return f32::NAN;
    }
    let samples: Vec<(f64, f64)> = (from..=end)
        .filter(|&k| dist(&points[k]) > 0.0)
        .map(|k| (k as f64, dist(&points[k]).ln()))
        .collect();
    let n = samples.len() as f64;
    let (mx, my) = samples
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x / n, b + y / n));
    let (sxy, sxx) = samples.iter().fold((0.0, 0.0), |(a, b), (x, y)| {
        (a + (x - mx) * (y - my), b + (x - mx) * (x - mx))
    });
    if sxx == 0.0 {
        return f32::NAN;
    }
    (sxy / sxx).exp() as f32
}

/// The rate theory predicts on ½(x² + κy²) for gradient descent or heavy-ball momentum at step η
/// and momentum μ (docs/theory.md §3): the larger, over the eigenvalues λ ∈ {1, κ}, of the
/// spectral radius of the iteration w ← w − ηλw + μ(w − w₋₁), whose roots solve
/// z² − (1 + μ − ηλ)z + μ = 0 (Goh 2017; for μ = 0 it is |1 − ηλ|). None for the other
/// optimizers, whose steps depend on the gradient's history in ways no single rate captures.
pub fn predicted_rate(optimizer: Optimizer, lr: f32, kappa: f32) -> Option<f32> {
    let mu = match optimizer {
        Optimizer::Sgd => 0.0,
        Optimizer::Momentum { momentum } => momentum as f64,
        _ => return None,
    };
    let radius = |lambda: f64| {
        let b = 1.0 + mu - lr as f64 * lambda;
        let disc = b * b - 4.0 * mu;
        if disc < 0.0 {
            mu.sqrt()
        } else {
            ((b.abs() + disc.sqrt()) / 2.0).max((b.abs() - disc.sqrt()).abs() / 2.0)
        }
    };
    Some(radius(1.0).max(radius(kappa as f64)) as f32)
}
