//! The optimizer lab's surfaces and races: gradients against finite differences, every
//! optimizer's path on the quadratic against its closed-form (linear) or formula iteration in
//! f64, and Goh's predicted convergence rates against measured ones.

use engine::optim::Optimizer;
use lab_sims::surfaces::{measured_rate, momentum_theory, predicted_rate, race, Racer, Surface};

#[test]
fn gradients_match_finite_differences() {
    for s in Surface::ALL {
        for &(x, y) in &[(0.3f32, -0.7f32), (-1.1, 0.4), (0.9, 1.3)] {
            let g = s.gradient(x, y);
            let h = 1e-3f32;
            let fd = [
                (s.value(x + h, y) as f64 - s.value(x - h, y) as f64) / (2.0 * h as f64),
                (s.value(x, y + h) as f64 - s.value(x, y - h) as f64) / (2.0 * h as f64),
            ];
            for k in 0..2 {
                let tol = 2e-2 * (1.0 + fd[k].abs());
                assert!(
                    (g[k] as f64 - fd[k]).abs() < tol,
                    "{s:?} at ({x}, {y}): {g:?} vs {fd:?}"
                );
            }
        }
    }
}

/// [x; v]ₜ = Mᵗ [x₀; 0] for one eigen-direction λ of the quadratic.
fn linear(m: [[f64; 2]; 2], x0: f64, t: usize) -> f64 {
    let (mut x, mut v) = (x0, 0.0);
    for _ in 0..t {
        (x, v) = (m[0][0] * x + m[0][1] * v, m[1][0] * x + m[1][1] * v);
    }
    x
}

#[test]
fn paths_on_the_quadratic_follow_the_update_rules() {
    let kappa = 8.0f32;
    let surface = Surface::Quadratic { kappa };
    let start = [-1.5f32, 1.0f32];
    let (eta, mu) = (0.05f64, 0.9f64);
    let steps = 60;
    let racers: Vec<Racer> = [
        Optimizer::Sgd,
        Optimizer::Momentum { momentum: mu as f32 },
        Optimizer::Nesterov { momentum: mu as f32 },
        Optimizer::AdaGrad { eps: 1e-8 },
        Optimizer::RmsProp { beta: 0.9, eps: 1e-7 },
        Optimizer::adam(),
    ]
    .iter()
    .map(|&optimizer| Racer {
        optimizer,
        learning_rate: eta as f32,
    })
    .collect();
    let paths = race(surface, start, &racers, steps, 0.0, 1);
    let lambdas = [1.0f64, kappa as f64];
    for (r, path) in racers.iter().zip(&paths) {
        assert_eq!(path.points.len(), steps + 1);
        for (k, &lambda) in lambdas.iter().enumerate() {
            let x0 = start[k] as f64;
            let want: Vec<f64> = match r.optimizer {
                // Linear iterations: closed forms by matrix powers.
                Optimizer::Sgd => (0..=steps)
                    .map(|t| x0 * (1.0 - eta * lambda).powi(t as i32))
                    .collect(),
                Optimizer::Momentum { .. } => {
                    let m = [[1.0 - eta * lambda, mu], [-eta * lambda, mu]];
                    (0..=steps).map(|t| linear(m, x0, t)).collect()
                }
                Optimizer::Nesterov { .. } => {
                    let m = [[1.0 - eta * lambda * (1.0 + mu), mu * mu], [-eta * lambda, mu]];
                    (0..=steps).map(|t| linear(m, x0, t)).collect()
                }
                // Adaptive methods: docs/theory.md §2's formulas iterated in f64.
                opt => {
                    let (mut x, mut a, mut b) = (x0, 0.0f64, 0.0f64);
                    let mut out = vec![x];
                    for t in 1..=steps {
                        let g = lambda * x;
                        match opt {
                            Optimizer::AdaGrad { eps } => {
                                a += g * g;
                                x -= eta * g / (a + eps as f64).sqrt();
                            }
                            Optimizer::RmsProp { beta, eps } => {
                                a = beta as f64 * a + (1.0 - beta as f64) * g * g;
                                x -= eta * g / (a.sqrt() + eps as f64);
                            }
                            Optimizer::Adam { beta1, beta2, eps } => {
                                let (b1, b2) = (beta1 as f64, beta2 as f64);
                                a = b1 * a + (1.0 - b1) * g;
                                b = b2 * b + (1.0 - b2) * g * g;
                                let (mh, vh) = (a / (1.0 - b1.powi(t as i32)), b / (1.0 - b2.powi(t as i32)));
                                x -= eta * mh / (vh.sqrt() + eps as f64);
                            }
                            _ => unreachable!(),
                        }
                        out.push(x);
                    }
                    out
                }
            };
            for (t, (p, w)) in path.points.iter().zip(&want).enumerate() {
                assert!(
                    (p[k] as f64 - w).abs() < 1e-4 * (1.0 + w.abs()),
                    "{:?} coordinate {k} step {t}: {} vs {w}",
                    r.optimizer,
                    p[k]
                );
            }
        }
    }
}

#[test]
fn goh_rates_are_what_gd_and_momentum_achieve() {
    for kappa in [10.0f32, 100.0] {
        let th = momentum_theory(kappa);
        let surface = Surface::Quadratic { kappa };
        let racers = [
            Racer {
                optimizer: Optimizer::Sgd,
                learning_rate: th.gd_step,
            },
            Racer {
                optimizer: Optimizer::Momentum { momentum: th.beta },
                learning_rate: th.alpha,
            },
        ];
        let paths = race(surface, [1.0, 1.0], &racers, 300, 0.0, 1);
        let (gd, mom) = (measured_rate(&paths[0].points), measured_rate(&paths[1].points));
        eprintln!(
            "κ = {kappa}: GD rate {gd:.4} (predicted {:.4}), momentum {mom:.4} (predicted {:.4}; α = {:.4}, β = {:.4})",
            th.gd_rate, th.rate, th.alpha, th.beta
        );
        assert!((gd - th.gd_rate).abs() < 0.01, "GD {gd} vs {}", th.gd_rate);
        assert!((mom - th.rate).abs() < 0.03, "momentum {mom} vs {}", th.rate);
        assert!(mom < gd, "momentum converges faster");
    }
}

#[test]
fn noise_is_shared_and_divergence_is_reported() {
    let s = Surface::Quadratic { kappa: 4.0 };
    let r = Racer {
        optimizer: Optimizer::Sgd,
        learning_rate: 0.1,
    };
    let a = race(s, [1.0, 1.0], &[r, r], 50, 0.5, 7);
    assert_eq!(a[0].points, a[1].points, "the same noise for every racer");
    assert_ne!(a[0].points, race(s, [1.0, 1.0], &[r], 50, 0.0, 7)[0].points);
    let wild = Racer {
        optimizer: Optimizer::Sgd,
        learning_rate: 1.0,
    };
    let p = &race(s, [1.0, 1.0], &[wild], 200, 0.0, 1)[0];
    assert!(p.diverged && p.points.len() < 201, "η·κ = 4 > 2 diverges");
}

#[test]
fn predicted_rates_are_what_gd_and_momentum_achieve_at_any_step_and_momentum() {
    for kappa in [4.0f32, 10.0, 50.0] {
        for (optimizer, lr) in [
            (Optimizer::Sgd, 0.03),
            (Optimizer::Sgd, 0.1 / kappa),
            (Optimizer::Sgd, 1.9 / kappa),
            (Optimizer::Momentum { momentum: 0.5 }, 0.3 / kappa),
            (Optimizer::Momentum { momentum: 0.8 }, 1.0 / kappa),
            (Optimizer::Momentum { momentum: 0.9 }, 0.05),
        ] {
            let predicted = predicted_rate(optimizer, lr, kappa).unwrap();
            let surface = Surface::Quadratic { kappa };
            let path = &race(
                surface,
                surface.default_start(),
                &[Racer {
                    optimizer,
                    learning_rate: lr,
                }],
                3000,
                0.0,
                1,
            )[0];
            let measured = measured_rate(&path.points);
            assert!(
                (measured - predicted).abs() < 0.01,
                "κ={kappa} {optimizer:?} η={lr}: measured {measured}, predicted {predicted}"
            );
        }
    }
    assert_eq!(predicted_rate(Optimizer::adam(), 0.1, 10.0), None);
    // Goh's optimum is the rate the formula gives at Goh's step and momentum.
    let th = momentum_theory(10.0);
    let at_optimum = predicted_rate(Optimizer::Momentum { momentum: th.beta }, th.alpha, 10.0).unwrap();
    assert!((at_optimum - th.rate).abs() < 1e-3, "{at_optimum} vs {}", th.rate);
}

/// The minima the map marks are where each surface is 0 (its lowest value: every surface but the
/// monkey saddle is a sum of squares) with zero gradient, in the view the lab shows.
#[test]
fn the_marked_minima_are_zeros_of_the_surface_with_zero_gradient() {
    for s in Surface::ALL {
        let [x0, x1, y0, y1] = s.view();
        for [x, y] in s.minima() {
            assert!((x0..=x1).contains(&x) && (y0..=y1).contains(&y), "{s:?}");
            let v = s.value(x, y);
            let g = s.gradient(x, y);
            assert!(v.abs() < 1e-8, "{s:?} at ({x}, {y}): {v}");
            assert!(g[0].abs() < 1e-3 && g[1].abs() < 1e-3, "{s:?}: {g:?}");
        }
        if let Some(valley) = s.minimum_valley() {
            for x in [-1.5f32, -0.7, 0.6, 1.9] {
                assert!(s.value(x, valley(x)).abs() < 1e-10, "{s:?} at x {x}");
            }
        }
    }
    assert_eq!(Surface::Himmelblau.minima().len(), 4);
    assert!(Surface::MonkeySaddle.minima().is_empty() && Surface::MonkeySaddle.minimum_valley().is_none());
}
