//! Seeded 2-D data sets in the square [-1, 1]², as in TensorFlow Playground: five classification
//! sets and two regression sets (a plane and two gaussian bumps).

use serde::{Deserialize, Serialize};

use super::Dataset;
use crate::rng::Rng;

/// Half-width of the square the points (and the decision-boundary heatmap) live in.
pub const EXTENT: f32 = 1.0;
/// Most classes a generated set has.
pub const MAX_CLASSES: usize = 5;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ToyKind {
    #[default]
    Spiral,
    Circle,
    Xor,
    Gaussians,
    Moons,
    /// Regression: target (x + y) / 2.
    Plane,
    /// Regression: a positive bump around (0.4, 0.4) and a negative one around (−0.4, −0.4).
    RegGaussian,
}

impl ToyKind {
    /// The classification sets.
    pub const ALL: [ToyKind; 5] = [
        ToyKind::Spiral,
        ToyKind::Circle,
        ToyKind::Xor,
        ToyKind::Gaussians,
        ToyKind::Moons,
    ];
    pub const REGRESSION: [ToyKind; 2] = [ToyKind::Plane, ToyKind::RegGaussian];

    pub fn is_regression(self) -> bool {
        Self::REGRESSION.contains(&self)
    }

    /// Most classes the set can have: spirals, rings and blobs take up to five; xor and moons two;
    /// regression sets one output.
    pub fn max_classes(self) -> usize {
        match self {
            ToyKind::Spiral | ToyKind::Circle | ToyKind::Gaussians => MAX_CLASSES,
            ToyKind::Xor | ToyKind::Moons => 2,
            ToyKind::Plane | ToyKind::RegGaussian => 1,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            ToyKind::Spiral => "spiral",
            ToyKind::Circle => "circle",
            ToyKind::Xor => "xor",
            ToyKind::Gaussians => "two gaussians",
            ToyKind::Moons => "moons",
            ToyKind::Plane => "plane (regression)",
            ToyKind::RegGaussian => "gaussian (regression)",
        }
    }

    pub fn key(self) -> &'static str {
        match self {
            ToyKind::Spiral => "spiral",
            ToyKind::Circle => "circle",
            ToyKind::Xor => "xor",
            ToyKind::Gaussians => "gaussians",
            ToyKind::Moons => "moons",
            ToyKind::Plane => "plane",
            ToyKind::RegGaussian => "reg_gaussian",
        }
    }

    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .chain(Self::REGRESSION)
            .find(|k| k.key() == key)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToyConfig {
    pub kind: ToyKind,
    pub points: usize,
    /// Standard deviation of the Gaussian noise added to each coordinate (classification) or to
    /// the target (regression).
    pub noise: f32,
    pub seed: u64,
    /// Share of the points held out as a test set (0: none).
    #[serde(default)]
    pub test_fraction: f32,
    /// Classes, 2 up to the set's `max_classes` (clamped); ignored by regression sets.
    #[serde(default = "two")]
    pub classes: usize,
}

fn two() -> usize {
    2
}

impl Default for ToyConfig {
    fn default() -> Self {
        Self {
            kind: ToyKind::Spiral,
            points: 400,
            noise: 0.05,
            seed: 1,
            test_fraction: 0.0,
            classes: 2,
        }
    }
}

impl ToyConfig {
    pub fn generate(&self) -> Dataset {
        if self.kind.is_regression() {
            return self.generate_regression();
        }
        let mut rng = Rng::new(self.seed);
        let k = self.classes.clamp(2, self.kind.max_classes());
        let n = self.points.max(k);
        let mut x = Vec::with_capacity(n * 2);
        let mut y = Vec::with_capacity(n);
        for i in 0..n {
            let class = (i % k) as u32;
            let (px, py) = match self.kind {
                ToyKind::Spiral => spiral(i / k, n.div_ceil(k), class, k),
                ToyKind::Circle => circle(&mut rng, class, k),
                ToyKind::Xor => xor(&mut rng, class),
                ToyKind::Gaussians => gaussians(&mut rng, class, k),
                _ => moons(&mut rng, class),
            };
            x.push((px + self.noise * rng.normal()).clamp(-EXTENT, EXTENT));
            x.push((py + self.noise * rng.normal()).clamp(-EXTENT, EXTENT));
            y.push(class);
        }
        Dataset {
            x,
            y,
            dim: 2,
            classes: k,
            targets: Vec::new(),
        }
    }

    /// Points uniform in the square, each with a target value plus noise.
    fn generate_regression(&self) -> Dataset {
        let mut rng = Rng::new(self.seed);
        let n = self.points.max(2);
        let (mut x, mut targets) = (Vec::with_capacity(2 * n), Vec::with_capacity(n));
        for _ in 0..n {
            let (px, py) = (rng.range(-EXTENT, EXTENT), rng.range(-EXTENT, EXTENT));
            x.extend([px, py]);
            targets.push(regression_target(self.kind, px, py) + self.noise * rng.normal());
        }
        Dataset {
            x,
            y: vec![0; n],
            dim: 2,
            classes: 1,
            targets,
        }
    }

    /// The generated set and its held-out test part (`None` when `test_fraction` is 0).
    pub fn generate_split(&self) -> (Dataset, Option<Dataset>) {
        let all = self.generate();
        if self.test_fraction <= 0.0 {
            return (all, None);
        }
        let (train, test) = all.split(self.test_fraction, self.seed ^ 0x5EED);
        (train, Some(test))
    }
}

/// The noiseless target of a regression set at (x, y).
pub fn regression_target(kind: ToyKind, x: f32, y: f32) -> f32 {
    let bump = |cx: f32, cy: f32| (-((x - cx).powi(2) + (y - cy).powi(2)) / (2.0 * 0.3 * 0.3)).exp();
    match kind {
        ToyKind::Plane => (x + y) / 2.0,
        ToyKind::RegGaussian => bump(0.4, 0.4) - bump(-0.4, -0.4),
        _ => 0.0,
    }
}

/// k interleaved arms: radius grows with the position along the arm, arm c is turned by 2πc/k.
fn spiral(i: usize, per_class: usize, class: u32, k: usize) -> (f32, f32) {
    let r = 0.05 + 0.9 * i as f32 / per_class as f32;
    let theta = 1.75 * std::f32::consts::TAU * r + std::f32::consts::TAU * class as f32 / k as f32;
    (r * theta.cos(), r * theta.sin())
}

/// Two classes: inside radius 0.4, and a ring from 0.6 to 0.95. More: k rings of equal width
/// with a gap between neighbours.
fn circle(rng: &mut Rng, class: u32, k: usize) -> (f32, f32) {
    let r = if k == 2 {
        if class == 0 {
            rng.range(0.0, 0.4)
        } else {
            rng.range(0.6, 0.95)
        }
    } else {
        let band = 0.95 / k as f32;
        rng.range(band * class as f32, band * (class as f32 + 0.7))
    };
    let a = rng.range(0.0, std::f32::consts::TAU);
    (r * a.cos(), r * a.sin())
}

/// Class 0 in the quadrants where x·y > 0, class 1 where x·y < 0, kept a little off the axes.
fn xor(rng: &mut Rng, class: u32) -> (f32, f32) {
    let mag = |rng: &mut Rng| rng.range(0.05, 0.95);
    let (sx, sy) = match (class, rng.below(2)) {
        (0, 0) => (1.0, 1.0),
        (0, _) => (-1.0, -1.0),
        (_, 0) => (1.0, -1.0),
        _ => (-1.0, 1.0),
    };
    (sx * mag(rng), sy * mag(rng))
}

/// Blobs on a circle of radius 0.45·√2 (two classes: at (0.45, 0.45) and (−0.45, −0.45)).
fn gaussians(rng: &mut Rng, class: u32, k: usize) -> (f32, f32) {
    let a = std::f32::consts::FRAC_PI_4 + std::f32::consts::TAU * class as f32 / k as f32;
    let radius = 0.45 * std::f32::consts::SQRT_2;
    let (cx, cy) = (radius * a.cos(), radius * a.sin());
    let spread = if k == 2 { 0.18 } else { 0.13 };
    (cx + spread * rng.normal(), cy + spread * rng.normal())
}

/// Two interleaving half circles.
fn moons(rng: &mut Rng, class: u32) -> (f32, f32) {
    let a = rng.range(0.0, std::f32::consts::PI);
    if class == 0 {
        (0.6 * a.cos() - 0.25, 0.6 * a.sin() - 0.15)
    } else {
        (0.6 * -a.cos() + 0.25, 0.6 * -a.sin() + 0.15)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_set_is_balanced_in_range_and_seeded() {
        for kind in ToyKind::ALL {
            let cfg = ToyConfig {
                kind,
                points: 200,
                noise: 0.1,
                seed: 5,
                test_fraction: 0.0,
                classes: 2,
            };
            let d = cfg.generate();
            assert_eq!(d.len(), 200);
            assert_eq!(d.y.iter().filter(|&&c| c == 1).count(), 100, "{kind:?}");
            assert!(d.x.iter().all(|v| v.abs() <= EXTENT));
            assert_eq!(d, cfg.generate());
            assert_eq!(ToyKind::from_key(kind.key()), Some(kind));
        }
    }

    #[test]
    fn regression_sets_follow_their_formula_and_split_is_seeded_and_disjoint() {
        for kind in ToyKind::REGRESSION {
            let cfg = ToyConfig {
                kind,
                points: 300,
                noise: 0.0,
                seed: 3,
                test_fraction: 0.25,
                classes: 2,
            };
            let d = cfg.generate();
            assert!(d.is_regression() && d.classes == 1 && d.len() == 300);
            for i in 0..d.len() {
                let p = d.point(i);
                assert_eq!(d.targets[i], regression_target(kind, p[0], p[1]));
                assert!(d.targets[i].abs() <= 1.0);
            }
            let (train, test) = cfg.generate_split();
            let test = test.expect("a test part");
            assert_eq!((train.len(), test.len()), (225, 75));
            assert_eq!((train.clone(), Some(test.clone())), cfg.generate_split());
            // Every point lands in exactly one part.
            let mut all: Vec<[u32; 2]> = train
                .x
                .chunks(2)
                .chain(test.x.chunks(2))
                .map(|p| [p[0].to_bits(), p[1].to_bits()])
                .collect();
            all.sort_unstable();
            all.dedup();
            assert_eq!(all.len(), 300);
            assert_eq!(ToyKind::from_key(kind.key()), Some(kind));
        }
    }

    #[test]
    fn multi_class_sets_have_balanced_classes_and_clamp_to_what_the_set_allows() {
        for kind in ToyKind::ALL {
            for k in 2..=MAX_CLASSES {
                let d = ToyConfig {
                    kind,
                    points: 300,
                    classes: k,
                    ..Default::default()
                }
                .generate();
                let want = k.min(kind.max_classes());
                assert_eq!(d.classes, want, "{kind:?} asked {k}");
                for c in 0..want as u32 {
                    assert_eq!(
                        d.y.iter().filter(|&&y| y == c).count(),
                        300 / want,
                        "{kind:?} class {c}"
                    );
                }
            }
        }
    }

    #[test]
    fn circle_and_xor_follow_their_rules_without_noise() {
        let d = ToyConfig {
            kind: ToyKind::Circle,
            points: 100,
            noise: 0.0,
            seed: 2,
            test_fraction: 0.0,
            classes: 2,
        }
        .generate();
        for i in 0..d.len() {
            let p = d.point(i);
            let r = (p[0] * p[0] + p[1] * p[1]).sqrt();
            assert_eq!(d.y[i] == 0, r < 0.5);
        }
        let d = ToyConfig {
            kind: ToyKind::Xor,
            points: 100,
            noise: 0.0,
            seed: 2,
            test_fraction: 0.0,
            classes: 2,
        }
        .generate();
        for i in 0..d.len() {
            let p = d.point(i);
            assert_eq!(d.y[i] == 0, p[0] * p[1] > 0.0);
        }
    }
}
