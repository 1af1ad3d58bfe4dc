//! The whole step an outside optimizer can check (docs/theory.md §2, §2.9): `lab export-step
//! --steps N` is step N of the same run — its weights after equal a plain run's after N steps,
//! dropout and a warmup schedule included — and Adam's update written out in f64 from the exported
//! state before, gradients and rate gives the exported state and weights after. A saved model
//! keeps the optimizer state: stopping, saving, loading and resuming trains exactly as one run.

use engine::export::{export_model, export_nth_step, ModelExport, StepExport, Tensor};
use engine::model::Layer;
use engine::ops::activation::Activation;
use engine::optim::{Decay, Optimizer, Schedule};
use engine::train::{ModelConfig, TrainConfig, Trainer};

fn config() -> TrainConfig {
    TrainConfig {
        model: ModelConfig::Layers {
            layers: vec![
                Layer::Dense { units: 9 },
                Layer::Activation {
                    kind: Activation::Tanh,
                },
                Layer::Dropout { rate: 0.25 },
                Layer::Dense { units: 3 },
            ],
        },
        optimizer: Optimizer::adam(),
        learning_rate: 0.01,
        schedule: Schedule {
            warmup_steps: 4,
            warmup_start: 0.1,
            decay: Decay::Constant,
        },
        batch: 8,
        ..Default::default()
    }
}

fn flat(tensors: &[Tensor]) -> Vec<f32> {
    let n = tensors
        .iter()
        .map(|t| t.offset + t.values.len())
        .max()
        .unwrap_or(0);
    let mut out = vec![0.0; n];
    for t in tensors {
        out[t.offset..t.offset + t.values.len()].copy_from_slice(&t.values);
    }
    out
}

#[test]
fn step_n_is_the_runs_step_and_adam_rechecks_in_f64() {
    let n = 3;
    let e = pollster::block_on(export_nth_step(config(), None, n)).unwrap();
    let e: StepExport = serde_json::from_str(&serde_json::to_string(&e).unwrap()).unwrap();
    assert_eq!(e.step, n);
    // The warmup's rate at step 3 of 4: 0.1η + (η − 0.1η)·3/4.
    assert!((e.learning_rate as f64 - (0.001 + 0.009 * 0.75)).abs() < 1e-9);

    let mut plain = pollster::block_on(Trainer::new(config(), None, 1)).unwrap();
    pollster::block_on(plain.train(n as usize)).unwrap();
    assert_eq!(
        flat(&e.parameters_after),
        pollster::block_on(plain.params()).unwrap(),
        "export of step {n} = {n} plain steps (dropout masks of that step)"
    );

    // Adam (docs/theory.md §2.6) in f64 from what the file gives.
    let (before, after) = (e.optimizer_before.unwrap(), e.optimizer_after.unwrap());
    assert_eq!((before.step, after.step), (n - 1, n));
    let (w, g) = (flat(&e.parameters), flat(&e.gradients));
    let (b1, b2, eps, t) = (0.9f64, 0.999f64, 1e-8f64, n as i32);
    for i in 0..w.len() {
        let m = b1 * before.a[i] as f64 + (1.0 - b1) * g[i] as f64;
        let v = b2 * before.b[i] as f64 + (1.0 - b2) * (g[i] as f64).powi(2);
        let step =
            e.learning_rate as f64 * (m / (1.0 - b1.powi(t))) / ((v / (1.0 - b2.powi(t))).sqrt() + eps);
        let close = |a: f64, b: f32, what: &str| {
            assert!(
                (a - b as f64).abs() <= 1e-6 + 1e-4 * a.abs(),
                "{what}[{i}]: {a} vs {b}"
            );
        };
        close(m, after.a[i], "m");
        close(v, after.b[i], "v");
        close(w[i] as f64 - step, flat(&e.parameters_after)[i], "w");
    }
}

#[test]
fn a_saved_model_resumes_exactly() {
    let mut whole = pollster::block_on(Trainer::new(config(), None, 1)).unwrap();
    pollster::block_on(whole.train(7)).unwrap();

    let mut first = pollster::block_on(Trainer::new(config(), None, 1)).unwrap();
    pollster::block_on(first.train(3)).unwrap();
    let text = serde_json::to_string(&pollster::block_on(export_model(&first)).unwrap()).unwrap();
    let saved = ModelExport::from_json(&text).unwrap();
    let mut resumed = pollster::block_on(Trainer::new(config(), None, 1)).unwrap();
    saved.resume(&mut resumed).unwrap();
    assert_eq!(resumed.step(), 3);
    pollster::block_on(resumed.train(4)).unwrap();
    assert_eq!(
        pollster::block_on(resumed.params()).unwrap(),
        pollster::block_on(whole.params()).unwrap(),
        "3 steps, save, load, 4 steps = 7 steps"
    );
    // A file without optimizer state is refused with a reason rather than resumed wrongly.
    let old = ModelExport {
        optimizer: None,
        ..saved
    };
    let mut t = pollster::block_on(Trainer::new(config(), None, 1)).unwrap();
    let refused = old.resume(&mut t).unwrap_err();
    assert!(
        matches!(&refused, engine::error::Error::Mismatch(m) if m.contains("no optimizer state")),
        "{refused:?}"
    );
}

/// The exported dropout mask is the one the step used: the loss written out in f64 from the
/// file — dense, tanh, the mask scaled by 1/keep, dense, softmax cross-entropy — is the exported
/// loss; with the mask ignored it is not.
#[test]
fn the_exported_dropout_mask_is_the_steps_own() {
    let e = pollster::block_on(export_nth_step(config(), None, 5)).unwrap();
    assert_eq!(e.dropout_masks.len(), 1);
    let m = &e.dropout_masks[0];
    assert_eq!((m.layer, m.shape.clone()), (2, vec![8, 9]));
    let kept = m.mask.iter().filter(|&&k| k == 1).count() as f64 / m.mask.len() as f64;
    assert!((kept - 0.75).abs() < 0.2, "kept {kept}");
    let p = &e.parameters;
    let (w1, b1, w2, b2) = (&p[0].values, &p[1].values, &p[2].values, &p[3].values);
    let loss = |use_mask: bool| -> f64 {
        let mut total = 0.0;
        for (r, x) in e.batch.inputs.iter().enumerate() {
            let h: Vec<f64> = (0..9)
                .map(|j| {
                    let z = b1[j] as f64
                        + (0..x.len())
                            .map(|k| w1[j * x.len() + k] as f64 * x[k] as f64)
                            .sum::<f64>();
                    let keep = if use_mask {
                        m.mask[r * 9 + j] as f64 / m.keep as f64
                    } else {
                        1.0
                    };
                    z.tanh() * keep
                })
                .collect();
            let o: Vec<f64> = (0..3)
                .map(|c| b2[c] as f64 + (0..9).map(|j| w2[c * 9 + j] as f64 * h[j]).sum::<f64>())
                .collect();
            let max = o.iter().cloned().fold(f64::MIN, f64::max);
            let lse = max + o.iter().map(|v| (v - max).exp()).sum::<f64>().ln();
            total += lse - o[e.batch.labels[r] as usize];
        }
        total / e.batch.inputs.len() as f64
    };
    assert!(
        (loss(true) - e.loss as f64).abs() < 1e-4,
        "{} vs {}",
        loss(true),
        e.loss
    );
    assert!((loss(false) - e.loss as f64).abs() > 1e-3, "the mask matters");
}

/// With batch norm and residual blocks: the export of step 3 is the run's step 3 (weights and
/// running statistics after it), it names the flattened layers its tensors are numbered by, and
/// the running statistics of a batch norm on the inputs recheck from the exported batch alone.
#[test]
fn a_normalized_residual_step_exports_its_running_statistics() {
    let n = 3;
    let config = TrainConfig {
        model: ModelConfig::Layers {
            layers: vec![
                Layer::BatchNorm { momentum: 0.3 },
                Layer::Dense { units: 6 },
                Layer::Residual {
                    layers: vec![Layer::Dense { units: 6 }, Layer::LayerNorm],
                    projection: false,
                },
                Layer::Dense { units: 3 },
            ],
        },
        ..config()
    };
    let e = pollster::block_on(export_nth_step(config.clone(), None, n)).unwrap();
    let e: StepExport = serde_json::from_str(&serde_json::to_string(&e).unwrap()).unwrap();
    let mut plain = pollster::block_on(Trainer::new(config, None, 1)).unwrap();
    pollster::block_on(plain.train(n as usize)).unwrap();
    assert_eq!(
        flat(&e.parameters_after),
        pollster::block_on(plain.params()).unwrap()
    );
    assert_eq!(
        e.running_after,
        pollster::block_on(plain.running_stats()).unwrap()
    );
    assert_eq!(e.flat_layers.len(), 7, "{:?}", e.flat_layers);
    assert!(e.flat_layers[2] == "residual start" && e.flat_layers[5].starts_with("residual end"));
    for f in 0..2 {
        let x: Vec<f64> = e.batch.inputs.iter().map(|row| row[f] as f64).collect();
        let mean = x.iter().sum::<f64>() / x.len() as f64;
        let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (x.len() - 1) as f64;
        let want = [
            0.7 * e.running_before[2 * f] as f64 + 0.3 * mean,
            0.7 * e.running_before[2 * f + 1] as f64 + 0.3 * var,
        ];
        for (k, w) in want.iter().enumerate() {
            let got = e.running_after[2 * f + k] as f64;
            assert!((got - w).abs() < 1e-5, "feature {f}: running {got} vs {w}");
        }
    }
}
