//! Simulated data-parallel training and gradient compression (DOMAIN.md §6).

use engine::cluster::*;
use engine::collectives::{cost, Algorithm, Link, Schedule, Topology};
use engine::compress::*;
use engine::data::toy::{ToyConfig, ToyKind};
use engine::optim::Optimizer;
use engine::rng::Rng;
use engine::train::{DataConfig, TrainConfig, Trainer};

#[test]
fn stochastic_compressors_are_unbiased() {
    let x: Vec<f32> = vec![0.9, -0.35, 0.1, 0.0, -1.0, 0.55, 0.02, -0.7];
    for c in [
        Compression::Quantize { bits: 1 },
        Compression::Quantize { bits: 2 },
        Compression::Quantize { bits: 4 },
        Compression::Ternary,
        Compression::RandomK { fraction: 0.25 },
    ] {
        let mut rng = Rng::new(11);
        let draws = 20_000;
        let mut mean = vec![0.0f64; x.len()];
        for _ in 0..draws {
            for (m, v) in mean.iter_mut().zip(c.apply(&x, &mut rng)) {
                *m += v as f64 / draws as f64;
            }
        }
        for (m, v) in mean.iter().zip(&x) {
            assert!((m - *v as f64).abs() < 0.03, "{c:?}: E = {m} for {v}");
        }
    }
}

#[test]
fn top_k_keeps_the_largest_and_error_feedback_keeps_the_rest() {
    let g = vec![0.1, -3.0, 0.5, 2.0, -0.2, 0.0];
    let c = Compression::TopK { fraction: 0.34 }; // ⌈6 · 0.34⌉ = 3
    let kept = c.apply(&g, &mut Rng::new(1));
    assert_eq!(kept, vec![0.0, -3.0, 0.5, 2.0, 0.0, 0.0]);
    let mut e = vec![0.05; 6];
    let sent = with_error_feedback(c, &g, &mut e, &mut Rng::new(1));
    for i in 0..6 {
        assert!(
            (sent[i] + e[i] - (g[i] + 0.05)).abs() < 1e-6,
            "e' + C(e + g) = e + g"
        );
    }
    assert_eq!((c.bytes(6), Compression::None.bytes(6)), (24.0, 24.0));
    assert_eq!(Compression::Quantize { bits: 4 }.bytes(1000), 504.0);
    assert_eq!(Compression::Ternary.bytes(1000), 254.0);
}

fn toy(batch: usize) -> TrainConfig {
    TrainConfig {
        data: DataConfig::Toy(ToyConfig {
            kind: ToyKind::Gaussians,
            points: 256,
            noise: 0.3,
            seed: 4,
            test_fraction: 0.0,
            classes: 2,
        }),
        optimizer: Optimizer::Sgd,
        learning_rate: 0.2,
        batch,
        ..Default::default()
    }
}

/// Strong scaling is exact: the mean of 4 workers' gradients on quarters of a batch is the
/// gradient of the whole batch.
#[test]
fn the_mean_of_shard_gradients_is_the_global_gradient() {
    let mut whole = pollster::block_on(Trainer::new(toy(16), None, 1)).unwrap();
    let mut quarter = pollster::block_on(Trainer::new(toy(4), None, 1)).unwrap();
    let rows: Vec<u32> = (0..16).map(|i| (i * 7 % 256) as u32).collect();
    let (loss, g) = pollster::block_on(whole.loss_and_gradient(&rows)).unwrap();
    let mut mean = vec![0.0f32; g.len()];
    let mut mean_loss = 0.0;
    for shard in rows.chunks(4) {
        let (l, gs) = pollster::block_on(quarter.loss_and_gradient(shard)).unwrap();
        mean_loss += l / 4.0;
        mean.iter_mut().zip(gs).for_each(|(m, v)| *m += v / 4.0);
    }
    assert!((loss - mean_loss).abs() < 1e-5);
    for (a, b) in g.iter().zip(&mean) {
        assert!((a - b).abs() < 1e-5 * (1.0 + a.abs()), "{a} vs {b}");
    }
}

fn cluster(workers: usize, algorithm: Algorithm, compression: Compression) -> ClusterConfig {
    ClusterConfig {
        workers,
        algorithm,
        topology: Topology::flat(Link::preset("10gbe").unwrap()),
        compression,
        error_feedback: false,
        seed: 1,
    }
}

#[test]
fn one_worker_is_plain_training_and_eight_workers_train_too() {
    let mut plain = pollster::block_on(Trainer::new(toy(8), None, 1)).unwrap();
    let mut single = pollster::block_on(Trainer::new(toy(8), None, 1)).unwrap();
    let n = single.compiled.n_params;
    let mut c = Cluster::new(cluster(1, Algorithm::Ring, Compression::None), n);
    for _ in 0..5 {
        pollster::block_on(plain.train(1)).unwrap();
        pollster::block_on(c.step(&mut single)).unwrap();
    }
    assert_eq!(
        pollster::block_on(plain.params()).unwrap(),
        pollster::block_on(single.params()).unwrap(),
        "a one-worker cluster is the training step"
    );

    for alg in [
        Algorithm::Ring,
        Algorithm::Tree,
        Algorithm::ParameterServer { shards: 2 },
    ] {
        let mut t = pollster::block_on(Trainer::new(toy(8), None, 1)).unwrap();
        let mut c = Cluster::new(cluster(8, alg, Compression::None), n);
        let first = pollster::block_on(c.step(&mut t)).unwrap();
        let mut last = first.clone();
        for _ in 0..150 {
            last = pollster::block_on(c.step(&mut t)).unwrap();
        }
        let k = cost(&Schedule::new(alg, 8, n, 1), &c.config.topology, 4.0);
        assert!((last.comm_seconds - k.seconds).abs() < 1e-12 && last.bytes == k.bytes);
        assert!(
            last.loss < first.loss,
            "{}: {} → {}",
            alg.label(),
            first.loss,
            last.loss
        );
    }
}

#[test]
fn compression_saves_bytes_and_still_trains_with_error_feedback() {
    let n = pollster::block_on(Trainer::new(toy(8), None, 1))
        .unwrap()
        .compiled
        .n_params;
    for (c, ef) in [
        (Compression::TopK { fraction: 0.1 }, true),
        (Compression::Quantize { bits: 4 }, false),
        (Compression::Ternary, false),
    ] {
        let mut t = pollster::block_on(Trainer::new(toy(8), None, 1)).unwrap();
        let mut cl = Cluster::new(
            ClusterConfig {
                error_feedback: ef,
                ..cluster(8, Algorithm::Ring, c)
            },
            n,
        );
        let first = pollster::block_on(cl.step(&mut t)).unwrap();
        let mut last = first.clone();
        for _ in 0..150 {
            last = pollster::block_on(cl.step(&mut t)).unwrap();
        }
        assert!(last.bytes < last.dense_bytes, "{c:?} saves bytes");
        assert!(last.loss < first.loss, "{c:?}: {} → {}", first.loss, last.loss);
    }
}
