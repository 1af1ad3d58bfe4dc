//! Simulated data-parallel training and gradient compression (docs/theory.md §6).

use engine::collectives::{cost, Algorithm, Link, Schedule, Topology};
use engine::data::toy::{ToyConfig, ToyKind};
use engine::optim::Optimizer;
use engine::rng::Rng;
use engine::train::{DataConfig, TrainConfig, Trainer};
use lab_sims::cluster::*;
use lab_sims::compress::*;

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
        compression,
        ..ClusterConfig::new(workers, algorithm, Link::preset("10gbe").unwrap())
    }
}

fn new_cluster(config: ClusterConfig, t: &Trainer) -> Cluster {
    Cluster::new(config, &t.compiled, t.config.batch)
}

#[test]
fn one_worker_is_plain_training_and_eight_workers_train_too() {
    let mut plain = pollster::block_on(Trainer::new(toy(8), None, 1)).unwrap();
    let mut single = pollster::block_on(Trainer::new(toy(8), None, 1)).unwrap();
    let n = single.compiled.n_params;
    let mut c = new_cluster(cluster(1, Algorithm::Ring, Compression::None), &single);
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
        let mut c = new_cluster(cluster(8, alg, Compression::None), &t);
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
    for (c, ef) in [
        (Compression::TopK { fraction: 0.1 }, true),
        (Compression::Quantize { bits: 4 }, false),
        (Compression::Ternary, false),
    ] {
        let mut t = pollster::block_on(Trainer::new(toy(8), None, 1)).unwrap();
        let mut cl = new_cluster(
            ClusterConfig {
                error_feedback: ef,
                ..cluster(8, Algorithm::Ring, c)
            },
            &t,
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

#[test]
fn the_clock_advances_by_the_modelled_iteration() {
    let mut t = pollster::block_on(Trainer::new(toy(8), None, 1)).unwrap();
    let config = ClusterConfig {
        flops_per_second: 1e6,
        ..cluster(4, Algorithm::Ring, Compression::None)
    };
    let work = lab_sims::timeline::Work::of(&t.compiled);
    let iteration = config.iteration(&work, 8);
    let mut c = new_cluster(config.clone(), &t);
    let mut last = None;
    for _ in 0..3 {
        last = Some(pollster::block_on(c.step(&mut t)).unwrap());
    }
    let last = last.unwrap();
    assert!((last.time - 3.0 * iteration.seconds).abs() < 1e-12);
    assert_eq!(last.samples, 32);
    // Compute is the step's overhead plus FLOPs over speed; without overlap the allreduce of
    // everything follows it.
    let compute = config.step_overhead_seconds + work.flops_per_sample * 8.0 / 1e6;
    assert!((iteration.compute_seconds - compute).abs() < 1e-12);
    let (comm, _) = config.allreduce(t.compiled.n_params);
    assert!((iteration.seconds - (compute + comm)).abs() < 1e-12);
}

#[test]
fn async_sgd_with_one_worker_is_plain_training() {
    let mut plain = pollster::block_on(Trainer::new(toy(8), None, 1)).unwrap();
    let mut single = pollster::block_on(Trainer::new(toy(8), None, 1)).unwrap();
    let mut c = new_cluster(
        ClusterConfig {
            consistency: Consistency::Asynchronous { bound: None },
            ..cluster(1, Algorithm::Ring, Compression::None)
        },
        &single,
    );
    for _ in 0..5 {
        pollster::block_on(plain.train(1)).unwrap();
        let r = pollster::block_on(c.step(&mut single)).unwrap();
        assert_eq!(r.staleness, 0);
    }
    assert_eq!(
        pollster::block_on(plain.params()).unwrap(),
        pollster::block_on(single.params()).unwrap()
    );
}

/// Staleness of the first 200 updates of `workers` asynchronous workers, the last 8× slower.
fn staleness_of(workers: usize, bound: Option<usize>) -> (Vec<usize>, f32, f32) {
    let mut t = pollster::block_on(Trainer::new(toy(8), None, 1)).unwrap();
    let mut c = new_cluster(
        ClusterConfig {
            consistency: Consistency::Asynchronous { bound },
            straggler: 8.0,
            // Compute-bound, so the straggler's slowness shows.
            flops_per_second: 1e6,
            ..cluster(workers, Algorithm::Ring, Compression::None)
        },
        &t,
    );
    let reports: Vec<StepReport> = (0..200)
        .map(|_| pollster::block_on(c.step(&mut t)).unwrap())
        .collect();
    assert!(
        reports.windows(2).all(|w| w[1].time >= w[0].time),
        "time runs forward"
    );
    let early: f32 = reports[..20].iter().map(|r| r.loss).sum::<f32>() / 20.0;
    let late: f32 = reports[180..].iter().map(|r| r.loss).sum::<f32>() / 20.0;
    (reports.iter().map(|r| r.staleness).collect(), early, late)
}

fn staleness(bound: Option<usize>) -> (Vec<usize>, f32, f32) {
    staleness_of(4, bound)
}

/// Staleness counts updates from all workers, the bound iterations (docs/theory.md §6.3): with 8
/// workers and bound 2, staleness beyond the bound (7 and more) is within the rule, and never
/// above (p − 1)(2b + 1) = 35.
#[test]
fn staleness_counts_updates_and_stays_within_what_the_bound_allows() {
    let (p, b) = (8, 2);
    let (s, _, _) = staleness_of(p, Some(b));
    let max = *s.iter().max().unwrap();
    assert!(
        max >= p - 1,
        "updates from every other worker land meanwhile: {max}"
    );
    assert!(max <= (p - 1) * (2 * b + 1), "{max}");
}

#[test]
fn async_staleness_follows_the_bound_and_stragglers() {
    // Bound 0: no worker starts an iteration before the slowest has finished the previous one,
    // so at most the other three updates land while a gradient is computed.
    let (tight, early, late) = staleness(Some(0));
    assert!(tight.iter().all(|&s| s <= 3), "{tight:?}");
    assert!(late < early, "trains: {early} → {late}");
    // Bound 2: a fast worker runs up to 2 iterations ahead: at most 3 · 3 updates meanwhile.
    let (two, _, _) = staleness(Some(2));
    assert!(two.iter().all(|&s| s <= 9), "{two:?}");
    assert!(two.iter().max() > tight.iter().max(), "{two:?} {tight:?}");
    // Unbounded: the straggler's gradients come back after the three fast workers applied about
    // 3 · 8 updates each time.
    let (free, early, late) = staleness(None);
    let max = *free.iter().max().unwrap();
    assert!((20..=30).contains(&max), "max staleness {max}");
    assert!(late < early, "trains: {early} → {late}");
}

mod throughput_and_records;
