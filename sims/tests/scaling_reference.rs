//! The two ways the precision lab scales FP8 gradients, against an independent reference
//! (`scripts/scaling_reference.py`: NumPy and ml_dtypes, run with tools/pyenv's Python), on the
//! gradients a real run computed (docs/theory.md §7.3):
//! - per-tensor delayed scaling (Micikevicius et al. 2022): each step's scale exponents from
//!   each tensor's amax history, and the stored gradients bit for bit;
//! - one global dynamic loss scale, with E4M3's saturation counted as an overflow: each step's
//!   scale and whether it overflowed.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use super::precision_training::mnist_mlp;

use engine::optim::Optimizer;
use engine::precision::{Format, LossScaling, Precision, Preset};
use engine::train::Trainer;
use serde_json::{json, Value};

fn reference(job: &Value) -> Value {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let python = root.join("tools/pyenv/bin/python");
    assert!(python.exists(), "tools/pyenv is missing: run scripts/setup.sh");
    let mut child = Command::new(python)
        .arg(root.join("scripts/scaling_reference.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(job.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "scaling_reference.py failed");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The precision tests' MNIST MLP (32 hidden) under `precision`, Adam at 0.003.
fn trainer(precision: Precision, gpu: bool) -> Trainer {
    let (config, data) = mnist_mlp(precision, Optimizer::adam(), 0.003);
    super::precision_training::trainer(&config, &data, gpu)
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// The FP8 preset (E5M2 gradients, delayed scaling over 16 steps) for 30 steps, on both backends:
/// each weight-gradient tensor's scale and stored values are the reference's, to the bit.
#[test]
fn delayed_scaling_is_the_reference_recipe() {
    for gpu in [false, true] {
        let mut t = trainer(Preset::Fp8.precision(), gpu);
        let (mut steps, mut exponents, mut stored) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..30 {
            pollster::block_on(t.train(1)).unwrap();
            let unrounded = pollster::block_on(t.unrounded_gradients()).unwrap();
            let grads = pollster::block_on(t.last_gradients()).unwrap();
            let tensors: Vec<_> = t
                .tensor_scales()
                .into_iter()
                .filter(|(s, _)| s.weight_gradient)
                .collect();
            assert_eq!(tensors.len(), 4, "W1, b1, W2, b2");
            let range = |s: &engine::plan::ScaledTensor| s.params.clone().unwrap();
            steps.push(
                tensors
                    .iter()
                    .map(|(s, _)| bits(&unrounded[range(s)]))
                    .collect::<Vec<_>>(),
            );
            stored.push(
                tensors
                    .iter()
                    .map(|(s, _)| bits(&grads[range(s)]))
                    .collect::<Vec<_>>(),
            );
            exponents.push(tensors.iter().map(|(_, k)| *k).collect::<Vec<_>>());
        }
        let job = json!({"mode": "delayed", "format": "e5m2", "history": 16, "margin": 0, "steps": steps});
        let theirs = reference(&job);
        let mut moved = false;
        for (i, step) in theirs.as_array().unwrap().iter().enumerate() {
            let want: Vec<i32> = serde_json::from_value(step["exponents"].clone()).unwrap();
            assert_eq!(
                exponents[i],
                want,
                "{}: step {}: exponents",
                t.backend_name(),
                i + 1
            );
            let want: Vec<Vec<u32>> = serde_json::from_value(step["stored"].clone()).unwrap();
            assert!(
                stored[i] == want,
                "{}: step {}: stored gradients",
                t.backend_name(),
                i + 1
            );
            moved |= exponents[i].iter().any(|&k| k != exponents[i][0]);
        }
        // The tensors' scales part: what one global scale cannot do.
        assert!(moved, "every tensor had the same scale at every step");
        assert_eq!(exponents[0], vec![0; 4], "2^0 before any history");
    }
}

/// One global dynamic scale over E4M3 gradients, from 2^16 and doubling every 4 good steps, for
/// 40 steps on both backends: each step's scale and overflow are the reference's — a gradient
/// stored at ±448 is an overflow — and the scale both halved and grew.
#[test]
fn the_global_scale_is_the_reference_grad_scaler() {
    for gpu in [false, true] {
        let precision = Precision {
            weights: Format::E4m3,
            activations: Format::E4m3,
            gradients: Format::E4m3,
            loss_scaling: LossScaling::Dynamic {
                initial: 65536.0,
                interval: 4,
            },
            ..Default::default()
        };
        let mut t = trainer(precision, gpu);
        let mut steps = Vec::new();
        for _ in 0..40 {
            pollster::block_on(t.train(1)).unwrap();
            steps.push(bits(&pollster::block_on(t.unrounded_gradients()).unwrap()));
        }
        let job =
            json!({"mode": "global", "format": "e4m3", "initial": 65536.0, "interval": 4, "steps": steps});
        let theirs = reference(&job);
        let events = t.scale_events();
        assert_eq!(events.len(), 40);
        for (e, r) in events.iter().zip(theirs.as_array().unwrap()) {
            let scale = r["scale"].as_f64().unwrap() as f32;
            let overflow = r["overflow"].as_bool().unwrap();
            assert_eq!(
                (e.scale, e.overflow),
                (scale, overflow),
                "{}: step {}",
                t.backend_name(),
                e.step
            );
        }
        assert!(events.iter().any(|e| e.overflow), "no step overflowed");
        assert!(
            events.windows(2).any(|w| w[1].scale > w[0].scale),
            "the scale never grew"
        );
    }
}
