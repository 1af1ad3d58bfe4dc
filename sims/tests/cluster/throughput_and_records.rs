//! Overlap, the parameter server's link, error feedback's memory, quantized all-gathers, and a run's target, record and stall.

use super::*;

#[test]
fn overlap_hides_communication_and_the_curve_is_perfect_on_a_free_network() {
    let t = pollster::block_on(Trainer::new(toy(8), None, 1)).unwrap();
    let work = lab_sims::timeline::Work::of(&t.compiled);
    assert_eq!(work.params(), t.compiled.n_params);
    assert!((work.buckets.iter().map(|b| b.share).sum::<f64>() - 1.0).abs() < 1e-9);
    // Bandwidth-bound (no latency): per-layer buckets cost no more than one allreduce, and
    // all but the first layer's hide behind backward.
    let slow = ClusterConfig {
        flops_per_second: 1e8,
        step_overhead_seconds: 0.0,
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

    // With a fixed step overhead o, strong scaling on a free network gives
    // (o + F·B/s) / (o + F·(B/p)/s), not p; worker counts above the batch are left out.
    let o = 1e-3;
    let overhead = ClusterConfig {
        step_overhead_seconds: o,
        ..free.clone()
    };
    let (f, s) = (work.flops_per_sample, overhead.flops_per_second);
    let curve = scaling_curve(&overhead, &work, 8, Scaling::Strong, &[Algorithm::Ring], &workers);
    assert_eq!(curve.iter().map(|p| p.workers).collect::<Vec<_>>(), [1, 2, 4, 8]);
    for p in curve {
        let want = (o + f * 8.0 / s) / (o + f * (8 / p.workers) as f64 / s);
        assert!((p.speedup - want).abs() < 1e-9 * want, "{p:?} vs {want}");
    }
    assert_eq!(Scaling::Strong.worker_batch(32, 64), None);
    assert_eq!(Scaling::Weak.worker_batch(32, 64), Some(32));
}

/// Asynchronous workers share the parameter server's link (docs/theory.md §6.3): p equal workers
/// computing for c seconds, each push and pull taking m, make min(p / (c + 2m), 1 / (2m))
/// updates per second — compute-bound below saturation, the server's link above it.
#[test]
fn async_throughput_is_bounded_by_the_server_link() {
    let t = pollster::block_on(Trainer::new(toy(8), None, 1)).unwrap();
    let base = ClusterConfig {
        consistency: Consistency::Asynchronous { bound: None },
        flops_per_second: 1e6,
        ..cluster(4, Algorithm::Ring, Compression::None)
    };
    let work = lab_sims::timeline::Work::of(&t.compiled);
    let c = base.compute_seconds(&work, 8)[0];
    for m in [c / 20.0, c / 2.0, 2.0 * c] {
        let config = ClusterConfig {
            topology: Topology::flat(Link {
                alpha: m,
                beta: 0.0,
                gamma: 0.0,
            }),
            ..base.clone()
        };
        let mut t = pollster::block_on(Trainer::new(toy(8), None, 1)).unwrap();
        let mut cl = new_cluster(config, &t);
        let times: Vec<f64> = (0..400)
            .map(|_| pollster::block_on(cl.step(&mut t)).unwrap().time)
            .collect();
        let measured = 300.0 / (times[399] - times[99]);
        let want = (4.0 / (c + 2.0 * m)).min(1.0 / (2.0 * m));
        assert!(
            (measured - want).abs() < 0.01 * want,
            "m = {m}: {measured} updates/s vs {want}"
        );
    }
}

/// Error feedback with the contractive forms keeps its memory bounded (docs/theory.md §6.4):
/// ‖e‖ ≤ √(1−δ)/(1 − √(1−δ)) · max‖g‖ < (2/δ) · max‖g‖, with δ = k/d for the sparsifiers and
/// δ = ‖x‖₁²/(d‖x‖²) (about 2/π for Gaussian vectors, ½ taken here) for the scaled sign. The
/// unbiased random-k (scaled by d/k) under error feedback grows without bound instead.
#[test]
fn error_feedback_memory_stays_bounded_with_contractive_compressors() {
    let d = 2000;
    let gradient = |rng: &mut Rng| -> Vec<f32> { (0..d).map(|_| rng.normal()).collect() };
    let norm = |v: &[f32]| v.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
    for (c, delta) in [
        (Compression::TopK { fraction: 0.01 }, 0.01),
        (Compression::RandomK { fraction: 0.01 }, 0.01),
        (Compression::Quantize { bits: 1 }, 0.5),
    ] {
        assert!(c.supports_error_feedback());
        let (mut rng, mut e) = (Rng::new(3), vec![0.0f32; d]);
        let (mut g_max, mut e_max) = (0.0f64, 0.0f64);
        for _ in 0..1000 {
            let g = gradient(&mut rng);
            g_max = g_max.max(norm(&g));
            with_error_feedback(c, &g, &mut e, &mut rng);
            e_max = e_max.max(norm(&e));
        }
        assert!(
            e_max <= 2.0 / delta * g_max,
            "{c:?}: ‖e‖ reached {e_max}, bound {}",
            2.0 / delta * g_max
        );
    }
    // The unbiased random-k fed its own remainder: e ← x − (d/k)·(kept part of x) multiplies the
    // kept coordinates by 1 − d/k each time they are drawn.
    let (mut rng, mut e) = (Rng::new(3), vec![0.0f32; d]);
    let c = Compression::RandomK { fraction: 0.01 };
    let mut g_max = 0.0f64;
    for _ in 0..300 {
        let g = gradient(&mut rng);
        g_max = g_max.max(norm(&g));
        let x: Vec<f32> = g.iter().zip(&e).map(|(g, e)| g + e).collect();
        let sent = c.apply(&x, &mut rng);
        e = x.iter().zip(&sent).map(|(x, s)| x - s).collect();
    }
    assert!(
        norm(&e) > 1e6 * g_max,
        "unbiased random-k under error feedback grows"
    );
    for c in [
        Compression::Quantize { bits: 4 },
        Compression::Ternary,
        Compression::None,
    ] {
        assert!(!c.supports_error_feedback(), "{c:?}");
    }
}

/// The scaled sign sends ‖x‖₁/d · sign(x); unscaled random-k sends x's own values.
#[test]
fn contractive_forms_are_the_scaled_sign_and_unscaled_random_k() {
    let x = [0.5f32, -1.5, 2.0, -0.0];
    let sign = Compression::Quantize { bits: 1 }.apply_contractive(&x, &mut Rng::new(1));
    assert_eq!(sign, vec![1.0, -1.0, 1.0, 1.0]);
    let kept = Compression::RandomK { fraction: 0.5 }.apply_contractive(&x, &mut Rng::new(1));
    assert_eq!(kept.iter().filter(|v| **v != 0.0).count(), 2);
    assert!(kept.iter().zip(&x).all(|(k, x)| *k == 0.0 || k == x));
}

/// Compressed vectors are allgathered (they do not sum in b bits): (p − 1)(α + b(β + γ)) with b a
/// worker's compressed bytes, p(p − 1)·b on the wire. At 64 workers 4-bit sends more than the
/// dense ring's 2(p − 1)·4n bytes — and at 8 workers less.
#[test]
fn quantized_gradients_are_allgathered_and_cost_so() {
    let link = Link::preset("10gbe").unwrap();
    let n = 25_450;
    for p in [8usize, 64] {
        let config = ClusterConfig {
            compression: Compression::Quantize { bits: 4 },
            ..ClusterConfig::new(p, Algorithm::Ring, link)
        };
        let (seconds, bytes) = config.allreduce(n);
        let b = n as f64 * 4.0 / 8.0 + 4.0;
        let pf = p as f64;
        assert!((bytes - pf * (pf - 1.0) * b).abs() < 1e-6);
        let want = (pf - 1.0) * (link.alpha + b * (link.beta + link.gamma));
        assert!((seconds - want).abs() < 1e-12 * want.max(1.0));
        let dense = ClusterConfig::new(p, Algorithm::Ring, link).allreduce(n);
        assert!((dense.1 - 2.0 * (pf - 1.0) * 4.0 * n as f64).abs() < 1e-6);
        if p == 64 {
            assert!(bytes > dense.1, "64 workers: 4-bit sends more");
            // Bandwidth-bound (a vector of 2M values), it also takes longer.
            let big = 2_000_000;
            assert!(config.allreduce(big).0 > ClusterConfig::new(p, Algorithm::Ring, link).allreduce(big).0);
        } else {
            assert!(bytes < dense.1, "8 workers: 4-bit saves");
        }
    }
}

#[test]
fn a_run_reaches_its_target_and_its_record_round_trips() {
    use lab_sims::cluster_run::*;
    use lab_sims::scaling::Target;
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
    // A label with commas and quotes stays one cell of the runs CSV.
    let mut record = record;
    record.runs[0].label = "8 × ring · sync, \"uncompressed\"".into();
    let rows = engine::table::read_rows(&record.csv()).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].len(), CSV_HEADER.split(',').count());
    assert_eq!(rows[0][0], record.runs[0].label);
}

/// A run that makes no progress on the check set stops as stalled instead of using its budget.
#[test]
fn a_cluster_run_without_progress_stops_as_stalled() {
    use lab_sims::cluster_run::train_to_target;
    use lab_sims::scaling::{Target, STALL_CHECKS};
    let config = TrainConfig {
        learning_rate: 1e-7,
        ..toy(8)
    };
    let mut t = pollster::block_on(Trainer::new(config, None, 1)).unwrap();
    let mut c = new_cluster(cluster(4, Algorithm::Ring, Compression::None), &t);
    let run = pollster::block_on(train_to_target(
        "stuck".into(),
        &mut c,
        &mut t,
        Target::Accuracy(0.99),
        100_000,
        None,
        |_, _| async { true },
    ))
    .unwrap();
    let at = run.stalled_at.expect("no progress at η = 1e-7");
    assert_eq!(at, run.losses.len());
    assert!(at < 100_000 && run.reached.is_none());
    assert!(run.checks.len() > STALL_CHECKS);
}
