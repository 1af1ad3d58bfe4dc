//! Many points in one pass against each point alone, the points a pass holds, and the trajectory's PCA against an eigendecomposition.

use super::*;

/// on its own weights: every point's loss and accuracy must equal those of the same weights
/// evaluated alone (set as the trainer's parameters, through the prediction pass), on both
/// backends, for an MLP on the data as it is and a CNN whose first layer reads shared images.
#[test]
fn a_pass_of_many_points_matches_each_point_alone() {
    let ctx = common::gpu();
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
    let moons = TrainConfig {
        data: DataConfig::Toy(ToyConfig {
            kind: ToyKind::Moons,
            points: 150,
            noise: 0.1,
            seed: 5,
            test_fraction: 0.0,
            classes: 2,
        }),
        model: ModelConfig::Mlp {
            hidden: vec![8, 6],
            activation: Activation::Tanh,
        },
        batch: 16,
        ..Default::default()
    };
    let cnn = TrainConfig {
        data: DataConfig::Images(engine::train::ImageConfig {
            set: "mnist".into(),
            train_limit: 120,
            test_limit: 10,
        }),
        model: ModelConfig::Layers {
            layers: [
                conv_relu_pool(4, 3, 2, 1, PoolKind::Max).as_slice(),
                &[
                    Layer::Flatten,
                    Layer::Dense { units: 12 },
                    Layer::Activation {
                        kind: Activation::Relu,
                    },
                    Layer::Dense { units: 10 },
                ],
            ]
            .concat(),
        },
        batch: 16,
        ..Default::default()
    };
    // Residual blocks (one on the shared input itself), a projection and layer norm: the
    // points' copies of every new kernel.
    let conv = common::conv3x3;
    let resnet = TrainConfig {
        model: ModelConfig::Layers {
            layers: vec![
                Layer::Residual {
                    layers: vec![conv(1, 1)],
                    projection: false,
                },
                Layer::Residual {
                    layers: vec![conv(3, 2), Layer::LayerNorm],
                    projection: true,
                },
                Layer::Activation {
                    kind: Activation::Relu,
                },
                Layer::Flatten,
                Layer::Dense { units: 10 },
            ],
        },
        ..cnn.clone()
    };
    for config in [resnet, cnn, moons] {
        let read = |name: &str| std::fs::read(dir.join(name)).map_err(|e| format!("{name}: {e}"));
        let (data, _) = config.data.load(read).unwrap();
        let rows = 100;
        let eval_set = data.head(rows);
        for gpu in [Some(ctx.clone()), None] {
            let mut t = pollster::block_on(Trainer::with_evaluation(
                config.clone(),
                data.clone(),
                gpu,
                rows,
                rows,
            ))
            .unwrap();
            pollster::block_on(t.train(20)).unwrap();
            // The CPU path runs a point per pass (no dispatches to save): the same numbers.
            let per_pass = t.eval_points_per_pass();
            assert_eq!(
                per_pass > 1,
                t.is_gpu(),
                "{}: {per_pass} per pass",
                t.backend_name()
            );
            let w = pollster::block_on(t.params()).unwrap();
            let d1 = filter_normalized_direction(&t.compiled, &w, 1);
            let d2 = filter_normalized_direction(&t.compiled, &w, 2);
            // Not a whole number of passes: the last pass is padded.
            let points: Vec<[f32; 2]> = (0..per_pass + 3)
                .map(|i| [(i as f32 * 0.37).sin(), (i as f32 * 0.61).cos() - 0.5])
                .collect();
            t.set_eval_data(&eval_set).unwrap();
            let batched = pollster::block_on(t.plane_losses(&w, &d1, &d2, &points)).unwrap();
            assert_eq!(batched.len(), points.len());
            for (p, (loss, acc)) in points.iter().zip(&batched) {
                t.set_params(&offset(&w, &d1, p[0], &d2, p[1])).unwrap();
                let (l, a) = pollster::block_on(t.evaluate(&eval_set)).unwrap();
                assert!(
                    (loss - l).abs() <= 1e-5 * (1.0 + l) && (acc - a).abs() < 1e-6,
                    "{} on {}, point {p:?}: batched ({loss}, {acc}) vs alone ({l}, {a})",
                    config.model_label(),
                    t.backend_name()
                );
            }
            eprintln!(
                "{} points, {per_pass} per pass, on {}: batched = alone",
                points.len(),
                t.backend_name()
            );
        }
    }
}

/// Points per evaluation pass follow the 16 MB budget (the figures the README quotes).
#[test]
fn points_per_pass_follow_the_memory_budget() {
    use engine::plan::eval_points;
    let points_of = |config: TrainConfig, rows: usize| {
        let model = config.spec(10).compile().unwrap();
        eval_points(&model, rows)
    };
    let w = |name: &str| {
        let w = lab_sims::bench::WORKLOADS
            .iter()
            .find(|w| w.name == name)
            .unwrap();
        (w.config)()
    };
    let images = |layers: Vec<Layer>| TrainConfig {
        data: DataConfig::Images(engine::train::ImageConfig {
            set: "mnist".into(),
            train_limit: 2000,
            test_limit: 500,
        }),
        model: ModelConfig::Layers { layers },
        ..Default::default()
    };
    let toy = TrainConfig {
        model: ModelConfig::Mlp {
            hidden: vec![8, 8],
            activation: Activation::Tanh,
        },
        ..Default::default()
    };
    let mlp = images(vec![
        Layer::Flatten,
        Layer::Dense { units: 32 },
        Layer::Activation {
            kind: Activation::Relu,
        },
        Layer::Dense { units: 10 },
    ]);
    let cnn = images(
        [
            conv_relu_pool(4, 5, 1, 0, PoolKind::Max).as_slice(),
            &[Layer::Flatten, Layer::Dense { units: 10 }],
        ]
        .concat(),
    );
    let pool_first = images(vec![
        Layer::Pool {
            kind: PoolKind::Avg,
            size: 2,
            stride: 2,
        },
        Layer::Flatten,
        Layer::Dense { units: 10 },
    ]);
    let got = [
        points_of(toy, 400),
        points_of(mlp, 500),
        points_of(w("W1"), 1000),
        points_of(cnn, 500),
        points_of(w("W2"), 1000),
        points_of(pool_first, 500),
    ];
    assert_eq!(
        got,
        [32, 32, 8, 1, 1, 1],
        "toy, MLP 784-32-10, W1, CNN, W2, pool first"
    );
}

/// The trajectory plane is the PCA of the *centred* checkpoint offsets (Li et al.'s code): its
/// explained-variance ratios and directions equal the leading eigenpairs of the centred
/// covariance, found here independently by Jacobi rotations on a small problem.
#[test]
fn trajectory_pca_is_centred_and_matches_an_eigendecomposition() {
    let dim = 6;
    let mut rng = Rng::new(9);
    let fin: Vec<f32> = (0..dim).map(|_| rng.normal()).collect();
    // A curved path: the offsets' mean is far from zero, so uncentred PCA would differ.
    let checkpoints: Vec<Vec<f32>> = (0..15)
        .map(|i| {
            let t = i as f32 / 14.0;
            (0..dim)
                .map(|j| {
                    let curve = [3.0 * (1.0 - t), 2.0 * (t * 3.0).sin(), t * t, 0.3 * t, 0.0, 0.1];
                    fin[j] + curve[j] + 0.05 * rng.normal()
                })
                .collect()
        })
        .collect();
    let p = trajectory_plane(&checkpoints, &fin);
    // Centred covariance (dim × dim) in f64.
    let k = checkpoints.len() as f64;
    let x: Vec<Vec<f64>> = checkpoints
        .iter()
        .map(|c| c.iter().zip(&fin).map(|(a, b)| (a - b) as f64).collect())
        .collect();
    let mean: Vec<f64> = (0..dim)
        .map(|j| x.iter().map(|r| r[j]).sum::<f64>() / k)
        .collect();
    let mut a = vec![vec![0.0f64; dim]; dim];
    for r in &x {
        for i in 0..dim {
            for j in 0..dim {
                a[i][j] += (r[i] - mean[i]) * (r[j] - mean[j]);
            }
        }
    }
    let (values, vectors) = jacobi_eigen(a);
    let total: f64 = values.iter().sum();
    let mut order: Vec<usize> = (0..dim).collect();
    order.sort_by(|&i, &j| values[j].total_cmp(&values[i]));
    for (slot, d) in [&p.d1, &p.d2].into_iter().enumerate() {
        let i = order[slot];
        let want = values[i] / total;
        assert!(
            (p.explained[slot] as f64 - want).abs() < 1e-4,
            "component {slot}: {} vs {want}",
            p.explained[slot]
        );
        let cos: f64 = (0..dim).map(|j| d[j] as f64 * vectors[j][i]).sum();
        assert!(cos.abs() > 0.9999, "direction {slot}: |cos| = {}", cos.abs());
    }
    // Coordinates are the uncentred offsets projected, so the final weights sit at the origin.
    let c0: f64 = (0..dim).map(|j| x[0][j] * p.d1[j] as f64).sum();
    assert!((p.coords[0][0] as f64 - c0).abs() < 1e-4);
}

/// The baseline the landscape-trajectory lesson gives beside its measured share: a random walk
/// puts about 6/π² · (1 + ¼) ≈ 76 % of its variance in its first two principal components
/// (the k-th explains 6/(π²k²) in the limit of many steps and dimensions; Antognini &
/// Sohl-Dickstein 2018). Here walks of the lesson's length in the toy network's 114 weights,
/// kept as the lab keeps checkpoints, through the lab's own PCA.
#[test]
fn a_random_walk_puts_about_76_percent_in_its_pca_plane() {
    let (dim, steps, seeds) = (114, 704, 24);
    let mut shares = Vec::new();
    for seed in 0..seeds {
        let mut rng = Rng::new(1000 + seed);
        let mut w = vec![0.0f32; dim];
        let mut kept = Checkpoints::new(w.clone());
        for _ in 0..steps {
            w.iter_mut().for_each(|v| *v += rng.normal());
            kept.push(w.clone());
        }
        let p = trajectory_plane(&kept.kept, &w);
        shares.push(f64::from(p.explained[0] + p.explained[1]));
    }
    let mean = shares.iter().sum::<f64>() / shares.len() as f64;
    let limit = 6.0 / std::f64::consts::PI.powi(2) * 1.25;
    eprintln!("random walks: mean share in the PCA plane {mean:.3} (the limit {limit:.3}), {shares:.2?}");
    assert!((mean - limit).abs() < 0.04, "{mean} against {limit}");
}

/// Eigenvalues and eigenvectors (columns) of a symmetric matrix by cyclic Jacobi rotations.
fn jacobi_eigen(mut a: Vec<Vec<f64>>) -> (Vec<f64>, Vec<Vec<f64>>) {
    let n = a.len();
    let mut v: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| (i == j) as u8 as f64).collect())
        .collect();
    for _ in 0..100 {
        for p in 0..n {
            for q in p + 1..n {
                if a[p][q].abs() < 1e-15 {
                    continue;
                }
                let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let (c, s) = (1.0 / (t * t + 1.0).sqrt(), t / (t * t + 1.0).sqrt());
                for row in a.iter_mut() {
                    let (akp, akq) = (row[p], row[q]);
                    row[p] = c * akp - s * akq;
                    row[q] = s * akp + c * akq;
                }
                let (rp, rq) = (a[p].clone(), a[q].clone());
                for (k, (apk, aqk)) in rp.into_iter().zip(rq).enumerate() {
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
                for row in v.iter_mut() {
                    let (vp, vq) = (row[p], row[q]);
                    row[p] = c * vp - s * vq;
                    row[q] = s * vp + c * vq;
                }
            }
        }
    }
    ((0..n).map(|i| a[i][i]).collect(), v)
}
