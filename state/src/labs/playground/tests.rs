use super::*;
use engine::data::toy::MAX_CLASSES;

fn custom() -> Playground {
    Playground {
        dataset: ToyKind::Gaussians,
        classes: 4,
        points: 300,
        noise: 0.2,
        test_ratio: 0.5,
        seed: 42,
        hidden: vec![6, 3, 2],
        activation: Activation::Relu,
        features: vec![Feature::XSquared, Feature::SinY],
        init: Init::He,
        loss: Loss::Mse,
        optimizer: "nesterov".into(),
        momentum: 0.8,
        learning_rate: 0.1,
        batch: 32,
        l1: 0.001,
        l2: 0.01,
        dropout: 0.25,
        warmup: 50,
        decay: "cosine".into(),
        decay_steps: 400,
        beta2: 0.99,
        eps: 1e-6,
        weight_decay: 0.05,
        backend: BackendChoice::Cpu,
        show_test: true,
        hide: ["dataset".to_string(), "lr".to_string()].into(),
        ..Default::default()
    }
}

#[test]
fn round_trips_through_the_url_and_json() {
    for state in [Playground::default(), custom()] {
        let (back, notices) = Playground::from_query(&state.to_query());
        assert_eq!(back, state, "query {}", state.to_query());
        assert!(notices.is_empty(), "{notices:?}");
        let json = serde_json::to_string(&state).unwrap();
        assert_eq!(Playground::from_json(&json).unwrap(), state);
    }
    assert_eq!(
        Playground::default().to_query(),
        "",
        "defaults make an empty query"
    );
    assert!(custom().to_query().contains("dataset_hide=true"));
}

#[test]
fn bad_values_keep_the_default_and_out_of_range_ones_are_clamped_with_notices() {
    let (s, notices) = Playground::from_query(
        "?dataset=banana&lr=abc&noise=7&hidden=8,x&batch=0&classes=9&features=x,wobble&mystery=1&backend=gpu&show_test=maybe",
    );
    let d = Playground::default();
    assert_eq!(
        (s.dataset, s.learning_rate, s.hidden.clone()),
        (d.dataset, d.learning_rate, d.hidden.clone())
    );
    assert_eq!((s.noise, s.batch, s.classes), (0.5, 1, MAX_CLASSES));
    assert_eq!(s.features, d.features);
    assert_eq!(s.backend, d.backend);
    for needle in [
        "dataset=banana",
        "lr=abc",
        "noise=7",
        "hidden=8,x",
        "batch=0",
        "classes=9",
        "features=",
        "'mystery'",
        "backend=gpu",
        "show_test=maybe",
    ] {
        assert!(
            notices.iter().any(|n| n.contains(needle)),
            "no notice for {needle}: {notices:?}"
        );
    }
    let (s, notices) = Playground::from_query("hidden=100,0,1,1,1,1,1,1,1,1");
    assert_eq!(s.hidden, vec![64, 1, 1, 1, 1, 1, 1, 1]);
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert_eq!(Playground::from_query("hidden=").0.hidden, Vec::<usize>::new());
}

#[test]
fn json_of_another_version_or_shape_is_refused_with_a_reason() {
    use crate::error::SettingsError;
    assert!(matches!(Playground::from_json("{"), Err(SettingsError::NotJson(_))));
    let newer = Playground::from_json(r#"{"version": 99}"#).unwrap_err();
    assert!(matches!(newer, SettingsError::Newer { version: 99, .. }));
    assert!(newer.to_string().contains("version 99"));
    let unnamed = Playground::from_json(r#"{"dataset": "circle"}"#).unwrap_err();
    assert!(unnamed.to_string().contains("no version"), "{unnamed}");
    assert!(
        Playground::from_json(r#"{"version": 1, "lr": 3}"#).is_ok(),
        "unknown fields are ignored"
    );
    let out = Playground::from_json(r#"{"version": 1, "noise": 9}"#).unwrap_err();
    assert!(matches!(&out, SettingsError::OutOfRange(n) if n.len() == 1));
    assert!(out.to_string().contains("noise"));
}

#[test]
fn the_config_trains_what_the_state_says() {
    let c = custom().to_config();
    assert_eq!(c.learning_rate, 0.1);
    assert_eq!(c.optimizer, Optimizer::Nesterov { momentum: 0.8 });
    assert_eq!(c.features, vec![Feature::XSquared, Feature::SinY]);
    assert_eq!(c.schedule.warmup_steps, 50);
    assert_eq!(
        c.schedule.decay,
        Decay::Cosine {
            total_steps: 400,
            min_factor: 0.0
        }
    );
    let halves = Playground {
        decay: "exponential".into(),
        decay_steps: 100,
        ..Default::default()
    }
    .schedule();
    assert!(
        (halves.lr_at(1.0, 101) - 0.5).abs() < 1e-4,
        "half-life of 100 steps"
    );
    let adamw = Playground {
        optimizer: "adamw".into(),
        ..custom()
    };
    assert_eq!(
        adamw.optimizer(),
        Optimizer::AdamW {
            beta1: 0.8,
            beta2: 0.99,
            eps: 1e-6,
            weight_decay: 0.05
        }
    );
    let ModelConfig::Layers { layers } = &c.model else {
        panic!("dropout needs a layer list")
    };
    assert_eq!(layers.len(), 3 * 3 + 1);
    assert_eq!(layers.last(), Some(&Layer::Dense { units: 4 }));
    assert!(c.validate().is_ok());
    let regression = Playground {
        dataset: ToyKind::Plane,
        ..Default::default()
    };
    assert_eq!(regression.to_config().loss, Loss::Mse);
    assert_eq!(regression.effective_classes(), 1);
}

#[test]
fn the_settings_table_drives_keys_hiding_and_checks() {
    // Every row's key is read back from what it writes, for a value other than the default.
    let changed = custom();
    for row in SETTINGS {
        let text = (row.write)(&changed);
        let mut s = Playground::default();
        let mut notices = Vec::new();
        (row.read)(&mut s, &text, &mut notices);
        assert_eq!((row.write)(&s), text, "{} reads back what it writes", row.key);
        assert!(notices.is_empty(), "{}: {notices:?}", row.key);
    }
    // What can be hidden: each setting's control (the schedule's pace goes with the schedule),
    // then the controls that are not settings.
    assert_eq!(CONTROLS.len(), 33);
    assert_eq!(&CONTROLS[CONTROLS.len() - 7..], table::OTHER_CONTROLS);
    assert!(CONTROLS.contains(&"upload") && CONTROLS.contains(&"seed"));
    assert!(!CONTROLS.contains(&"decay_steps") && CONTROLS.contains(&"decay"));
    // A value from a control is checked by the table, not by a trip through the URL.
    let (s, notices) = Playground {
        noise: 7.0,
        batch: 0,
        optimizer: "lbfgs".into(),
        features: Vec::new(),
        ..Default::default()
    }
    .checked();
    assert_eq!((s.noise, s.batch, s.optimizer.as_str()), (0.5, 1, "adam"));
    assert_eq!(s.features, vec![Feature::X, Feature::Y]);
    assert_eq!(notices.len(), 4, "{notices:?}");
}

#[test]
fn only_the_hyper_parameters_an_optimizer_reads_apply() {
    // Each optimizer built with one hyper-parameter changed differs exactly when it uses it.
    for name in OPTIMIZERS {
        let base = Playground {
            optimizer: name.to_string(),
            ..Default::default()
        };
        let changed = |f: fn(&mut Playground)| {
            let mut s = base.clone();
            f(&mut s);
            s.optimizer() != base.optimizer()
        };
        assert_eq!(
            changed(|s| s.momentum = 0.5),
            base.uses("momentum"),
            "{name}: momentum"
        );
        assert_eq!(changed(|s| s.beta2 = 0.5), base.uses("beta2"), "{name}: beta2");
        assert_eq!(changed(|s| s.eps = 0.5), base.uses("eps"), "{name}: eps");
        assert_eq!(
            changed(|s| s.weight_decay = 0.5),
            base.uses("weight_decay"),
            "{name}: weight decay"
        );
    }
}

#[test]
fn training_changes_apply_live_and_model_changes_reset() {
    let base = Playground::default();
    let live: [fn(&mut Playground); 8] = [
        |s| s.learning_rate = 0.3,
        |s| s.optimizer = "sgd".into(),
        |s| s.momentum = 0.5,
        |s| s.batch = 64,
        |s| s.l2 = 0.001,
        |s| s.warmup = 10,
        |s| s.decay = "cosine".into(),
        |s| s.show_test = !s.show_test,
    ];
    for change in live {
        let mut s = base.clone();
        change(&mut s);
        assert!(!s.resets_model(&base), "{s:?}");
    }
    let resets: [fn(&mut Playground); 8] = [
        |s| s.dataset = engine::data::toy::ToyKind::Xor,
        |s| s.noise = 0.3,
        |s| s.seed = 9,
        |s| s.hidden = vec![3],
        |s| s.activation = engine::ops::activation::Activation::Relu,
        |s| s.features.clear(),
        |s| s.dropout = 0.2,
        |s| s.points = 100,
    ];
    for change in resets {
        let mut s = base.clone();
        change(&mut s);
        assert!(s.resets_model(&base), "{s:?}");
    }
}
