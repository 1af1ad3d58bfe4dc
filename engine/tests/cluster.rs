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
    let work = engine::timeline::Work::of(&t.compiled);
    let iteration = config.iteration(&work, 8);
    let mut c = new_cluster(config.clone(), &t);
    let mut last = None;
    for _ in 0..3 {
        last = Some(pollster::block_on(c.step(&mut t)).unwrap());
    }
    let last = last.unwrap();
    assert!((last.time - 3.0 * iteration.seconds).abs() < 1e-12);
    assert_eq!(last.samples, 32);
    // Compute is FLOPs over speed; without overlap the allreduce of everything follows it.
    let compute = work.flops_per_sample * 8.0 / 1e6;
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

/// Staleness of the first 200 updates of 4 asynchronous workers, the last 8× slower.
fn staleness(bound: Option<usize>) -> (Vec<usize>, f32, f32) {
    let mut t = pollster::block_on(Trainer::new(toy(8), None, 1)).unwrap();
    let mut c = new_cluster(
        ClusterConfig {
            consistency: Consistency::Asynchronous { bound },
            straggler: 8.0,
            // Compute-bound, so the straggler's slowness shows.
            flops_per_second: 1e6,
            ..cluster(4, Algorithm::Ring, Compression::None)
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

#[test]
fn overlap_hides_communication_and_the_curve_is_perfect_on_a_free_network() {
    let t = pollster::block_on(Trainer::new(toy(8), None, 1)).unwrap();
    let work = engine::timeline::Work::of(&t.compiled);
    assert_eq!(work.params(), t.compiled.n_params);
    assert!((work.buckets.iter().map(|b| b.share).sum::<f64>() - 1.0).abs() < 1e-9);
    // Bandwidth-bound (no latency): per-layer buckets cost no more than one allreduce, and
    // all but the first layer's hide behind backward.
    let slow = ClusterConfig {
        flops_per_second: 1e8,
        topology: Topology::flat(Link {
            alpha: 0.0,
            ..Link::preset("wifi").unwrap()
        }),
        ..cluster(8, Algorithm::Ring, Compression::None)
    };
    let plain = slow.iteration(&work, 64);
    let hidden = ClusterConfig {
        overlap: true,
        ..slow.clone()
    }
    .iteration(&work, 64);
    assert!(hidden.seconds < plain.seconds && hidden.seconds >= hidden.compute_seconds);
    // A straggler sets the pace.
    let straggling = ClusterConfig {
        straggler: 3.0,
        ..slow.clone()
    }
    .iteration(&work, 64);
    assert!((straggling.compute_seconds - 3.0 * plain.compute_seconds).abs() < 1e-12);

    let free = ClusterConfig {
        topology: Topology::flat(Link {
            alpha: 0.0,
            beta: 0.0,
            gamma: 0.0,
        }),
        ..slow.clone()
    };
    let workers = [1, 2, 4, 8, 16];
    for p in scaling_curve(&free, &work, 256, Scaling::Strong, &[Algorithm::Ring], &workers) {
        assert!((p.speedup - p.workers as f64).abs() < 1e-9, "{p:?}");
        assert!((p.efficiency - 1.0).abs() < 1e-9);
    }
    let real = scaling_curve(
        &slow,
        &work,
        256,
        Scaling::Strong,
        &[Algorithm::Ring, Algorithm::Tree],
        &workers,
    );
    assert!(real.iter().all(|p| p.efficiency <= 1.0 + 1e-12));
    assert_eq!(real[0].speedup, 1.0);
}

#[test]
fn a_run_reaches_its_target_and_its_record_round_trips() {
    use engine::cluster_run::*;
    use engine::scaling::Target;
    let mut t = pollster::block_on(Trainer::new(toy(8), None, 1)).unwrap();
    let mut c = new_cluster(cluster(4, Algorithm::Ring, Compression::None), &t);
    let target = Target::Accuracy(0.8);
    let run = pollster::block_on(train_to_target(
        "4 workers".into(),
        &mut c,
        &mut t,
        target,
        2000,
        None,
        |_, _| async { true },
    ))
    .unwrap();
    let reached = run.reached.expect("reaches 80 %");
    assert!(reached.accuracy >= 0.8);
    assert_eq!(reached.step, run.losses.len());
    assert_eq!(reached.samples, reached.step * 32);
    assert!((reached.time - run.times[reached.step - 1]).abs() < 1e-15);
    // Checks come about every 256 samples: every 8 steps of 4 × 8.
    assert!(run
        .checks
        .iter()
        .all(|c| c.step % 8 == 0 || c.step == run.losses.len()));
    let record = ClusterRecord::new(target, vec![run], Vec::new());
    let text = serde_json::to_string(&record).unwrap();
    // serde_json's f64 parsing may differ in the last bit; everything else comes back as it was.
    let back = ClusterRecord::from_json(&text).unwrap();
    let (a, b) = (&back.runs[0], &record.runs[0]);
    assert_eq!(
        (&a.label, &a.losses, a.checks.len()),
        (&b.label, &b.losses, b.checks.len())
    );
    assert_eq!(a.reached.map(|c| c.step), b.reached.map(|c| c.step));
    assert!((a.times[5] - b.times[5]).abs() < 1e-15);
    assert!(ClusterRecord::from_json("{\"format\": \"other\"}").is_err());
    let csv = record.csv();
    assert_eq!(csv.lines().count(), 2);
    assert_eq!(
        csv.lines().nth(1).unwrap().split(',').count(),
        CSV_HEADER.split(',').count()
    );
}
