//! The step export re-checked the way an outsider would: parse the JSON, run the network in f64
//! from the formulas in docs/theory.md §1 (no engine code), and compare the loss and, by central finite
//! differences in f64, every exported gradient.

use crate::common;

use engine::export::{export_first_step, StepExport};
use engine::model::Layer;
use engine::ops::activation::Activation;
use engine::train::{ModelConfig, TrainConfig};

fn act(kind: Activation, x: f64) -> f64 {
    match kind {
        Activation::Linear => x,
        Activation::Relu => x.max(0.0),
        Activation::Tanh => x.tanh(),
        Activation::Sigmoid => 1.0 / (1.0 + (-x).exp()),
        Activation::LeakyRelu => {
            if x > 0.0 {
                x
            } else {
                0.01 * x
            }
        }
        // The tanh form, in f64 from its formula.
        Activation::Gelu => {
            let u = (2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x.powi(3));
            0.5 * x * (1.0 + u.tanh())
        }
    }
}

/// Mean softmax cross-entropy of the batch for flat parameters `p` (in the export's layout),
/// walking the model's layers (dense and activation layers; this reference has no convolution).
fn loss(e: &StepExport, p: &[f64]) -> f64 {
    let mut total = 0.0;
    for (x, &y) in e.batch.inputs.iter().zip(&e.batch.labels) {
        let mut h: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        let mut tensors = e.parameters.iter();
        for layer in &e.model.layers {
            match layer {
                Layer::Dense { units } => {
                    let (w, b) = (tensors.next().unwrap(), tensors.next().unwrap());
                    let ins = w.shape[1];
                    h = (0..*units)
                        .map(|o| {
                            p[b.offset + o] + (0..ins).map(|i| p[w.offset + o * ins + i] * h[i]).sum::<f64>()
                        })
                        .collect();
                }
                Layer::Activation { kind } => h = h.iter().map(|&v| act(*kind, v)).collect(),
                Layer::Flatten => {}
                other => panic!("the f64 reference has no {other:?}"),
            }
        }
        let m = h.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let lse = m + h.iter().map(|v| (v - m).exp()).sum::<f64>().ln();
        total += lse - h[y as usize];
    }
    total / e.batch.labels.len() as f64
}

fn recheck(e: &StepExport) {
    assert_eq!(e.format, engine::export::FORMAT);
    let mut flat = vec![0.0f64; e.parameters.iter().map(|t| t.values.len()).sum()];
    for t in &e.parameters {
        assert_eq!(t.values.len(), t.shape.iter().product::<usize>(), "{}", t.name);
        for (i, &v) in t.values.iter().enumerate() {
            flat[t.offset + i] = v as f64;
        }
    }
    let l = loss(e, &flat);
    assert!(
        (l - e.loss as f64).abs() < 1e-5 * (1.0 + l),
        "loss: export {} vs f64 {l}",
        e.loss
    );
    let h = 1e-6;
    for g in &e.gradients {
        for (i, &value) in g.values.iter().enumerate() {
            let k = g.offset + i;
            let mut p = flat.clone();
            p[k] += h;
            let up = loss(e, &p);
            p[k] -= 2.0 * h;
            let numeric = (up - loss(e, &p)) / (2.0 * h);
            assert!(
                (numeric - value as f64).abs() < 1e-4 + 1e-3 * numeric.abs(),
                "{}[{i}]: exported {value} vs f64 finite difference {numeric}",
                g.name
            );
        }
    }
}

#[test]
fn exported_steps_recheck_in_f64_on_both_backends() {
    let ctx = common::gpu();
    for activation in [Activation::Tanh, Activation::Sigmoid] {
        let config = TrainConfig {
            model: ModelConfig::Mlp {
                hidden: vec![7, 5],
                activation,
            },
            batch: 12,
            ..Default::default()
        };
        for gpu in [None, Some(ctx.clone())] {
            let e = pollster::block_on(export_first_step(config.clone(), gpu)).unwrap();
            let json = serde_json::to_string(&e).unwrap();
            let parsed: StepExport = serde_json::from_str(&json).unwrap();
            assert_eq!(parsed.batch.inputs.len(), 12);
            assert_eq!(parsed.parameters.len(), 6);
            recheck(&parsed);
            assert!(parsed.forward.contains("−log softmax(logits)[label]"));
        }
    }
    // The text names the configured loss, and says the L1/L2 terms are not in it.
    let mse = TrainConfig {
        loss: engine::plan::Loss::Mse,
        regularization: engine::plan::Regularization {
            l1: 0.0,
            l2: 1e-3,
            group: 0.0,
        },
        batch: 4,
        ..Default::default()
    };
    let e = pollster::block_on(export_first_step(mse, None)).unwrap();
    assert!(!e.forward.contains("softmax"), "{}", e.forward);
    assert!(e
        .forward
        .contains("mean over the batch and the C outputs of (o − t)²"));
    assert!(e.forward.contains("exclude the L1/L2 terms"));
}
