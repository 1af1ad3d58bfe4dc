//! Batch-size and learning-rate scaling (docs/theory.md §5): the rules, warmup, steps-to-target, the
//! gradient noise scale on a synthetic problem with a known answer, and a sweep run.

use engine::data::toy::{ToyConfig, ToyKind};
use engine::rng::Rng;
use engine::train::{DataConfig, TrainConfig, Trainer};
use lab_sims::scaling::*;

#[test]
fn rules_scale_the_learning_rate() {
    assert_eq!(Rule::None.learning_rate(0.1, 16, 64), 0.1);
    assert!((Rule::Linear.learning_rate(0.1, 16, 64) - 0.4).abs() < 1e-7);
    assert!((Rule::Sqrt.learning_rate(0.1, 16, 64) - 0.2).abs() < 1e-7);
    assert!((Rule::Linear.learning_rate(0.1, 16, 4) - 0.025).abs() < 1e-7);
    let sweep = Sweep {
        batches: vec![16, 64],
        base_lr: 0.1,
        base_batch: 16,
        lr_factors: vec![0.5, 2.0],
        rule: Rule::Sqrt,
        ..Default::default()
    };
    let runs = sweep.runs();
    assert_eq!(runs.len(), 4);
    assert_eq!(runs[0], (16, 0.05));
    assert!((runs[3].1 - 0.4).abs() < 1e-6 && runs[3].0 == 64);
}

#[test]
fn warmup_ramps_linearly_over_the_given_epochs() {
    let sweep = Sweep {
        warmup_epochs: 1.0,
        ..Default::default()
    };
    let c = sweep.config(32, 0.4, 320);
    assert_eq!((c.batch, c.learning_rate, c.schedule.warmup_steps), (32, 0.4, 10));
    let ramp: Vec<f32> = (1..=12).map(|t| c.schedule.lr_at(0.4, t)).collect();
    for (t, lr) in ramp.iter().enumerate().take(10) {
        assert!(
            (lr - 0.4 * (t + 1) as f32 / 10.0).abs() < 1e-6,
            "step {}: {lr}",
            t + 1
        );
    }
    assert_eq!(&ramp[10..], &[0.4, 0.4]);
}

#[test]
fn steps_to_target_reads_the_smoothed_stream() {
    let losses = [1.0, 0.8, 0.5, 0.2, 0.1];
    assert_eq!(steps_to_target(&losses, Target::Loss(0.5), 1), Some(3));
    // Trailing means of two: 1, 0.9, 0.65, 0.35 → the fourth step.
    assert_eq!(steps_to_target(&losses, Target::Loss(0.5), 2), Some(4));
    assert_eq!(steps_to_target(&losses, Target::Loss(0.05), 1), None);
    assert_eq!(
        steps_to_target(&[0.2, 0.9, 0.95], Target::Accuracy(0.9), 1),
        Some(2)
    );
    assert_eq!(steps_to_target(&[], Target::Loss(1.0), 3), None);
}

/// Per-sample gradients G + noise with a known covariance: the estimator recovers tr Σ / |G|².
#[test]
fn the_noise_scale_estimator_recovers_a_known_value() {
    let dim = 20;
    let mut rng = Rng::new(7);
    let g: Vec<f64> = (0..dim)
        .map(|i| {
            if i == 0 {
                0.6
            } else if i == 1 {
                0.8
            } else {
                0.0
            }
        })
        .collect(); // |G|² = 1
    let sd: Vec<f64> = (0..dim).map(|i| 1.0 + i as f64 * 0.5).collect();
    let trace: f64 = sd.iter().map(|s| s * s).sum();
    let mut est = NoiseScale::new(3000);
    let mean_grad = |rng: &mut Rng, b: usize| -> f64 {
        let mut m = vec![0.0; dim];
        for _ in 0..b {
            for j in 0..dim {
                m[j] += g[j] + sd[j] * rng.normal() as f64;
            }
        }
        m.iter().map(|v| (v / b as f64).powi(2)).sum()
    };
    for _ in 0..3000 {
        let (small, big) = (mean_grad(&mut rng, 8), mean_grad(&mut rng, 128));
        est.add(0, 8, small, 128, big);
    }
    let b = est.b_simple().unwrap();
    eprintln!("B_simple {b:.1} (true {trace:.1})");
    assert!((b - trace).abs() < 0.15 * trace, "B_simple {b} vs {trace}");
}

/// The smoothed B_simple forgets early training: after a change of regime it is the ratio of the
/// last window's mean tr Σ to its mean |G|² exactly (McCandlish et al.: average, then divide),
/// whatever came before.
#[test]
fn the_noise_scale_is_a_window_mean_of_the_late_measurements() {
    let mut est = NoiseScale::new(4);
    // Early: |G|² = 1, tr Σ = 100 (B = 100), from exact big/small pairs at B 8 and 128.
    let pair = |g2: f64, trace: f64, b: f64| g2 + trace / b;
    for step in 0..10 {
        est.add(step, 8, pair(1.0, 100.0, 8.0), 128, pair(1.0, 100.0, 128.0));
    }
    assert!((est.b_simple().unwrap() - 100.0).abs() < 1e-6);
    // Late: |G|² shrinks to 0.1 and 0.3 alternately, tr Σ stays 100.
    for step in 10..14 {
        let g2 = if step % 2 == 0 { 0.1 } else { 0.3 };
        est.add(step, 8, pair(g2, 100.0, 8.0), 128, pair(g2, 100.0, 128.0));
    }
    let want = 100.0 / 0.2; // mean tr Σ / mean |G|², not the mean of the ratios (666.7)
    assert!((est.b_simple().unwrap() - want).abs() < 1e-6 * want);
    let raw: Vec<f64> = est.raw[10..].iter().filter_map(|r| raw_b_simple(*r)).collect();
    assert!((raw[0] - 1000.0).abs() < 1e-6 && (raw[1] - 333.333_333).abs() < 1e-3);
}

fn toy(batch: usize) -> (TrainConfig, engine::data::Dataset) {
    let config = TrainConfig {
        data: DataConfig::Toy(ToyConfig {
            kind: ToyKind::Gaussians,
            points: 400,
            noise: 0.3,
            seed: 2,
            test_fraction: 0.25,
            classes: 2,
        }),
        batch,
        ..Default::default()
    };
    let (train, _) = config.data.load(|_| Err("no files".into())).unwrap();
    (config, train)
}

#[test]
fn gradient_noise_is_measured_from_real_batches() {
    let (config, train) = toy(10);
    let mut t = pollster::block_on(Trainer::with_data(config, train, None, 1)).unwrap();
    let before = pollster::block_on(t.params()).unwrap();
    let (bs, small, bb, big) = pollster::block_on(measure_noise(&mut t, 4)).unwrap();
    assert_eq!((bs, bb), (10, 40));
    assert!(small > 0.0 && big > 0.0 && big <= small * 1.5, "{small} {big}");
    assert_eq!(
        before,
        pollster::block_on(t.params()).unwrap(),
        "measuring does not train"
    );
}

#[test]
fn a_sweep_run_stops_at_its_target_and_reports_it() {
    let (base, train) = toy(16);
    let sweep = Sweep {
        base,
        target: Target::Loss(0.35),
        max_steps: 3000,
        warmup_epochs: 0.5,
        noise_every: 5,
        noise_k: 4,
        ..Default::default()
    };
    let (b, lr) = sweep.runs()[0];
    let config = sweep.config(b, lr, train.len());
    let mut t = pollster::block_on(Trainer::with_data(config, train, None, 1)).unwrap();
    let r = pollster::block_on(run(&mut t, &sweep, None, |_, _| async { true })).unwrap();
    let s = r.steps_to_target.expect("reaches the target");
    eprintln!("batch {b}, lr {lr}: {s} steps to loss 0.35 (ran {})", r.steps);
    assert_eq!(r.steps, s, "stops at the check that reached it");
    assert_eq!(r.examples_to_target, Some(s * b));
    // Checked every 256 / 8 = 32 steps on a fixed set: the first check at or below the target.
    assert!(r.checks.iter().all(|c| c.0 % 32 == 0));
    let first = r.checks.iter().position(|c| c.1 <= 0.35).unwrap();
    assert_eq!((first + 1, r.checks[first].0), (r.checks.len(), s));
    let check_set = t.data.head(CHECK_SAMPLES);
    let loss_now = pollster::block_on(t.evaluate(&check_set)).unwrap().0;
    assert!(
        (loss_now - r.checks[first].1).abs() < 1e-6,
        "the check is the loss on the fixed set"
    );
    assert!(
        r.learning_rates[0] < r.learning_rates[r.learning_rates.len() - 1],
        "warmup visible"
    );
    assert!(!r.diverged && r.train_loss.is_finite());
    assert!(!r.noise_scale.is_empty() && r.noise_scale.iter().all(|(_, b)| b.is_finite()));
    assert!(r.noise_raw.len() >= r.noise_scale.len());
    let record = SweepRecord::new(sweep, vec![r.clone()]);
    let json = serde_json::to_string(&record).unwrap();
    let back = SweepRecord::from_json(&json).unwrap();
    // A finished sweep reloads without training (f64s may differ in their last bit).
    assert_eq!((&back.sweep, &back.runs[0].losses), (&record.sweep, &r.losses));
    for (a, b) in back.runs[0].noise_scale.iter().zip(&r.noise_scale) {
        assert!(a.0 == b.0 && (a.1 - b.1).abs() < 1e-12 * b.1.abs().max(1.0));
    }
    assert!(SweepRecord::from_json("{\"format\":\"x\"}").is_err());
    let csv = record.csv();
    assert!(csv.starts_with(CSV_HEADER) && csv.lines().nth(1).unwrap().starts_with(&format!("{b},")));
}
