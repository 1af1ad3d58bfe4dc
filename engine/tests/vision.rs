//! The vision lab's engine side: a trained CNN saved as a model file loads into a fresh trainer
//! and predicts exactly as before; a file for another model is refused; the evaluation details
//! (confusion matrix, per-class accuracy, misclassified samples) agree with `evaluate`, and the
//! first layer's filters are the weights. Needs `data/` (setup prepares it).

use std::path::PathBuf;

use engine::error::Error;
use engine::export::{export_model, ModelExport};
use engine::inspect::{evaluation, filter_smoothness, first_filters};
use engine::optim::Optimizer;
use engine::train::{DataConfig, ImageConfig, ModelConfig, TrainConfig, Trainer};

fn config(json: &str) -> TrainConfig {
    TrainConfig {
        data: DataConfig::Images(ImageConfig {
            set: "mnist".into(),
            train_limit: 512,
            test_limit: 300,
        }),
        model: ModelConfig::Layers { layers: layers(json) },
        optimizer: Optimizer::adam(),
        learning_rate: 0.003,
        batch: 32,
        ..Default::default()
    }
}

/// The layers as the engine's JSON (the state crate's mini-language is tested there).
fn layers(json: &str) -> Vec<engine::model::Layer> {
    serde_json::from_str(json).unwrap()
}

const CNN: &str = r#"[{"type":"conv2d","filters":4,"kernel":5,"stride":1,"padding":2},{"type":"activation","kind":"relu"},
{"type":"pool","kind":"max","size":2,"stride":2},{"type":"flatten"},{"type":"dense","units":10}]"#;

#[test]
fn a_saved_model_loads_and_predicts_the_same() {
    let cfg = config(CNN);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
    let (train, test) = cfg
        .data
        .load(|name| std::fs::read(dir.join(name)).map_err(|e| format!("{name}: {e} (run scripts/setup.sh)")))
        .unwrap();
    let test = test.unwrap();
    let mut trainer = pollster::block_on(Trainer::with_data(cfg.clone(), train.clone(), None, 100)).unwrap();
    pollster::block_on(trainer.train(40)).unwrap();
    let before = pollster::block_on(trainer.probabilities(&test)).unwrap();

    let text = serde_json::to_string(&pollster::block_on(export_model(&trainer)).unwrap()).unwrap();
    let saved = ModelExport::from_json(&text).unwrap();
    let mut loaded =
        pollster::block_on(Trainer::with_data(saved.config.clone(), train.clone(), None, 100)).unwrap();
    let flat = saved.flat_params(&loaded.compiled).unwrap();
    loaded.set_params(&flat).unwrap();
    assert_eq!(pollster::block_on(loaded.probabilities(&test)).unwrap(), before);

    // Details agree with evaluate; filters are the first conv's weights.
    let e = evaluation(&before, &test.y, 10);
    let (_, accuracy) = pollster::block_on(trainer.evaluate(&test)).unwrap();
    assert!((e.accuracy - accuracy).abs() < 1e-6);
    assert_eq!(e.confusion.iter().sum::<u32>() as usize, test.len());
    assert_eq!(
        e.misclassified.len(),
        test.len() - (0..10).map(|c| e.confusion[c * 11] as usize).sum::<usize>()
    );
    assert!(
        e.accuracy > 0.6,
        "40 steps of Adam learn something: {}",
        e.accuracy
    );
    let (f, c, k, w) =
        first_filters(&trainer.compiled, &pollster::block_on(trainer.params()).unwrap()).unwrap();
    assert_eq!((f, c, k, w.len()), (4, 1, 5, 100));
    assert_eq!(&w[..], &flat[..100]);

    // Another model's file, and broken ones, are refused with a reason.
    let other = pollster::block_on(Trainer::with_data(
        config(r#"[{"type":"dense","units":10}]"#),
        train,
        None,
        10,
    ))
    .unwrap();
    let refused = saved.flat_params(&other.compiled).unwrap_err();
    assert!(
        matches!(&refused, Error::Mismatch(m) if m.contains("tensors saved for a model that has")),
        "{refused:?}"
    );
    assert!(matches!(ModelExport::from_json("{}"), Err(Error::NotA { .. })));
    // A junk file declaring a huge layer and no weights is refused by its sizes alone, before a
    // model of that size is built; a real one passes.
    saved.check_sizes(10).unwrap();
    let mut junk = saved.clone();
    junk.config.model = engine::train::ModelConfig::Mlp {
        hidden: vec![20_000],
        activation: engine::ops::activation::Activation::Relu,
    };
    junk.parameters.clear();
    assert!(
        matches!(junk.check_sizes(10), Err(Error::Mismatch(m)) if m.contains("0 parameter values saved for a model of 15900010")),
    );
    assert!(matches!(
        ModelExport::from_json(&text.replace("training-lab model v1", "v0")),
        Err(Error::WrongFormat { .. })
    ));
}

/// Smoothness against closed forms: a checkerboard is −1; stripes are +1 along and −1 across, 0
/// pooled; a ramp r − 2 on 5 × 5 gives Σab / Σa² = (40 + 20) / (40 + 30) = 6/7; independent
/// random weights about 0; a constant kernel counts for nothing.
#[test]
fn filter_smoothness_matches_closed_forms() {
    let grid = |k: usize, f: &dyn Fn(usize, usize) -> f32| -> Vec<f32> {
        (0..k * k).map(|i| f(i / k, i % k)).collect()
    };
    let sign = |i: usize| if i.is_multiple_of(2) { 1.0 } else { -1.0 };
    let checker = grid(4, &|r, c| sign(r + c));
    assert!((filter_smoothness(4, &checker) + 1.0).abs() < 1e-6);
    let stripes = grid(4, &|r, _| sign(r));
    assert!(filter_smoothness(4, &stripes).abs() < 1e-6);
    let ramp = grid(5, &|r, _| r as f32);
    assert!((filter_smoothness(5, &ramp) - 6.0 / 7.0).abs() < 1e-6);
    // A constant kernel beside the ramp changes nothing.
    let with_constant: Vec<f32> = ramp.iter().copied().chain([3.0; 25]).collect();
    assert!((filter_smoothness(5, &with_constant) - 6.0 / 7.0).abs() < 1e-6);
    let mut rng = engine::rng::Rng::new(7);
    let noise: Vec<f32> = (0..400 * 25).map(|_| rng.range(-1.0, 1.0)).collect();
    assert!(filter_smoothness(5, &noise).abs() < 0.05);
}
