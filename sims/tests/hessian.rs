//! The top Hessian eigenvalue (docs/theory.md §4.5): power iteration against a matrix whose
//! eigenvalues are chosen, then through the trainer's gradients on a loss that is exactly
//! quadratic in the weights, whose Hessian is known in closed form.

use crate::common;

use engine::data::Dataset;
use engine::model::Layer;
use engine::plan::Loss;
use engine::train::{ModelConfig, TrainConfig, Trainer};
use lab_sims::hessian::{top_eigenvalue, PowerIteration};

/// A symmetric matrix Q·diag(λ)·Qᵀ with Q a product of plane rotations (orthogonal).
fn matrix_with_eigenvalues(lambda: &[f64]) -> Vec<Vec<f64>> {
    let n = lambda.len();
    let mut q: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| (i == j) as u8 as f64).collect())
        .collect();
    for (i, j, angle) in [(0, 1, 0.7), (1, 2, -0.4), (0, 3, 1.1), (2, 3, 0.3)] {
        let (c, s) = (f64::cos(angle), f64::sin(angle));
        for row in q.iter_mut() {
            let (a, b) = (row[i], row[j]);
            row[i] = c * a - s * b;
            row[j] = s * a + c * b;
        }
    }
    (0..n)
        .map(|r| {
            (0..n)
                .map(|c| (0..n).map(|k| q[r][k] * lambda[k] * q[c][k]).sum())
                .collect()
        })
        .collect()
}

#[test]
fn power_iteration_finds_the_largest_eigenvalue() {
    let a = matrix_with_eigenvalues(&[5.0, -1.0, 3.0, 0.5]);
    let mut p = PowerIteration::new(4, 3, 200, 1e-7);
    loop {
        let v = p.vector().to_vec();
        let av: Vec<f32> = a
            .iter()
            .map(|row| row.iter().zip(&v).map(|(x, y)| x * *y as f64).sum::<f64>() as f32)
            .collect();
        if p.feed(&av) {
            break;
        }
    }
    assert!((p.estimate - 5.0).abs() < 1e-4, "λ_max {}", p.estimate);
    assert!(p.iterations < 200, "converged in {} products", p.iterations);
}

/// A dense layer with one output on the mean squared error, L = (1/n) Σ (w·x + b − t)², has the
/// Hessian (2/n) Σ [x; 1][x; 1]ᵀ whatever the weights and targets. On the points (±3, 0) and
/// (0, ±1) the cross terms vanish and it is diag(2·9/2, 2·1/2, 2) = diag(9, 1, 2): λ_max = 9.
#[test]
fn the_top_eigenvalue_of_a_quadratic_loss_is_its_closed_form() {
    let data = Dataset {
        x: vec![3.0, 0.0, -3.0, 0.0, 0.0, 1.0, 0.0, -1.0],
        y: vec![0; 4],
        dim: 2,
        classes: 1,
        targets: vec![0.5, -1.0, 2.0, 0.0],
    };
    // The CPU path with two batch sizes, and the GPU (lavapipe in CI).
    for (batch, gpu) in [(4, None), (2, None), (4, Some(common::gpu()))] {
        let config = TrainConfig {
            model: ModelConfig::Layers {
                layers: vec![Layer::Dense { units: 1 }],
            },
            loss: Loss::Mse,
            batch,
            ..Default::default()
        };
        let mut t = pollster::block_on(Trainer::with_data(config, data.clone(), gpu, 4)).unwrap();
        pollster::block_on(t.train(5)).unwrap();
        let before = pollster::block_on(t.params()).unwrap();
        let top = pollster::block_on(top_eigenvalue(&mut t, 4, 1, (100, 1e-6), || async {})).unwrap();
        assert!(
            (top.eigenvalue - 9.0).abs() < 1e-3,
            "batch {batch}: λ_max {}",
            top.eigenvalue
        );
        assert_eq!(top.samples, 4);
        assert_eq!(
            pollster::block_on(t.params()).unwrap(),
            before,
            "the weights are left as they were"
        );
    }
}
