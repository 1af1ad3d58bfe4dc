//! Every lab's settings through the URL and a JSON file: defaults make an empty query, a changed
//! state comes back whole, hidden controls travel, bad values keep their defaults with a notice,
//! out-of-range ones are clamped, and files of another lab, of an unknown version or not JSON are
//! refused with a reason.

use std::fmt::Debug;

use lab_state::cluster::ClusterLab;
use lab_state::lab::LabState;
use lab_state::landscape::{Data, Landscape, Network};
use lab_state::optimizers::OptimizersLab;
use lab_state::scaling::ScalingLab;
use lab_state::vision::VisionLab;

/// What every lab of the registry must do, whatever its settings: defaults make an empty query,
/// every hideable control hidden comes back hidden through the URL and a file, and a file that
/// names another lab is refused with a reason.
struct Basics;

impl lab_state::EachLab for Basics {
    fn lab<S: LabState + Debug + 'static>(&mut self, id: &str) {
        assert_eq!(S::LAB, id, "the settings type calls itself by the registry's id");
        let hide_all: Vec<String> = S::controls()
            .iter()
            .map(|c| format!("{c}_hide=true"))
            .collect();
        let (hidden, notices) = S::from_query(&hide_all.join("&"));
        assert!(notices.is_empty(), "{id}: {notices:?}");
        assert_ne!(hidden, S::default(), "{id}: hiding shows in the state");
        round_trips(hidden);
        let mut file: serde_json::Value = serde_json::from_str(&S::default().to_json()).unwrap();
        file["lab"] = serde_json::Value::from(format!("not-{id}"));
        let refused = S::from_json(&file.to_string());
        assert!(
            matches!(&refused, Err(lab_state::error::SettingsError::OtherLab { .. })),
            "{id}: a file of another lab is refused, not {refused:?}"
        );
    }
}

#[test]
fn every_lab_of_the_registry_round_trips_and_refuses_another_labs_file() {
    lab_state::for_each_lab(&mut Basics);
}

fn round_trips<S: LabState + Debug>(changed: S) {
    assert_eq!(
        S::default().to_query(),
        "",
        "{}: defaults make an empty query",
        S::LAB
    );
    for state in [S::default(), changed] {
        let q = state.to_query();
        let (back, notices) = S::from_query(&q);
        assert!(notices.is_empty(), "{}: {notices:?} from {q}", S::LAB);
        assert_eq!(back, state, "{}: query {q}", S::LAB);
        let (back, notices) = S::from_json(&state.to_json()).unwrap();
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(back, state, "{}: JSON {}", S::LAB, state.to_json());
    }
}

fn optimizers() -> OptimizersLab {
    let mut s = OptimizersLab {
        surface: "rosenbrock".into(),
        kappa: 100.0,
        noise: 0.5,
        steps: 200,
        start: Some([-1.0, 2.0]),
        ..Default::default()
    };
    s.set_on(3, true);
    s.set_on(0, false);
    s.lr[5] = 0.02;
    s.momentum[1] = 0.5;
    s.hide.insert("surface".into());
    s
}

#[test]
fn every_lab_round_trips_through_the_url_and_json() {
    round_trips(optimizers());
    round_trips(ScalingLab {
        network: Network::Mlp,
        data: Data::Fashion,
        batches: "16, 64".into(),
        base_lr: 0.05,
        lr_factors: "0.5, 1, 2".into(),
        rule: lab_sims::scaling::Rule::Linear,
        target_accuracy: true,
        target: 0.8,
        hide: ["batches".to_string(), "base-batch".to_string()].into(),
        ..Default::default()
    });
    round_trips(lab_state::precision::PrecisionLab {
        net: lab_state::precision::Net::Cnn,
        data: "fashion".into(),
        runs: "fp32, custom".into(),
        gradients: engine::precision::Format::E5m2,
        rounding: engine::precision::Rounding::Stochastic,
        scaling: lab_state::precision::Scaling::Static,
        scale: 1024.0,
        hide: ["runs".to_string(), "master".to_string()].into(),
        ..Default::default()
    });
    round_trips(lab_state::parallelism::ParallelismLab {
        data: "fashion".into(),
        depth: 6,
        memory: 2.5,
        link: 4,
        schedule: lab_state::parallelism::PipeSchedule::GPipe,
        runs: "plain, best".into(),
        hide: ["memory".to_string(), "run".to_string()].into(),
        ..Default::default()
    });
    round_trips(ClusterLab {
        workers: 16,
        weak: true,
        chosen: [true, false, true, false, true, false, true],
        gflops: 12.5,
        straggler: 4.0,
        asynchronous: true,
        bound: "2".into(),
        compression: 1,
        percent: 0.5,
        study: "1, 4".into(),
        hide: ["workers".to_string(), "train".to_string()].into(),
        ..Default::default()
    });
    round_trips(VisionLab {
        set: "fashion".into(),
        train: 2000,
        preset: 0,
        layers: "dense 32, relu, dense 10".into(),
        lr: 0.01,
        epochs: 2,
        webgpu: lab_state::playground::BackendChoice::Cpu,
        hide: ["layers".to_string()].into(),
        ..Default::default()
    });
    round_trips(lab_state::playground::Playground {
        dataset: engine::data::toy::ToyKind::Xor,
        hidden: vec![4, 4],
        learning_rate: 0.1,
        hide: ["dataset".to_string()].into(),
        ..Default::default()
    });
    round_trips(lab_state::bench::BenchLab {
        workload: "W2".into(),
        backend: "cpu".into(),
        steps: Some(40),
        slice: Some(11),
        ..Default::default()
    });
    round_trips(Landscape {
        network: Network::Cnn,
        data: Data::Mnist,
        batch: 64,
        compare: 256,
        epochs: 3,
        hide: ["plane".to_string()].into(),
        ..Default::default()
    });
}

#[test]
fn text_cut_to_length_comes_back_as_cut() {
    // Found by the fuzzer: a long text cut to 200 characters may end in a space, which must survive.
    let long = "12, ".repeat(60);
    let (s, notices) = ClusterLab::from_query(&format!("study={}", long.replace(' ', "+")));
    assert_eq!(s.study, "12, ".repeat(50));
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert_eq!(ClusterLab::from_query(&s.to_query()), (s, vec![]));
}

#[test]
fn hidden_controls_travel_as_name_hide() {
    let q = optimizers().to_query();
    assert!(q.contains("surface_hide=true"), "{q}");
    let (s, notices) = OptimizersLab::from_query("racers_hide=true&bogus_hide=true");
    assert!(s.hide.contains("racers"));
    assert_eq!(notices, ["unknown setting 'bogus_hide': ignored"]);
}

#[test]
fn a_hundred_thousand_unknown_keys_make_one_short_notice() {
    let keys: Vec<String> = (0..100_000).map(|i| format!("k{i}=1")).collect();
    let (s, notices) = OptimizersLab::from_query(&keys.join("&"));
    assert_eq!(s, OptimizersLab::default());
    assert_eq!(notices.len(), 1, "{:?}", &notices[..notices.len().min(3)]);
    assert!(notices[0].starts_with("unknown settings 'k") && notices[0].ends_with(" and 99997 more: ignored"), "{}", notices[0]);
    let mut file: serde_json::Map<String, serde_json::Value> = (0..100_000).map(|i| (format!("k{i}"), 1.into())).collect();
    file.insert("lab".into(), "optimizers".into());
    file.insert("version".into(), OptimizersLab::VERSION.into());
    let (_, notices) = OptimizersLab::from_json(&serde_json::Value::Object(file).to_string()).expect("a settings file");
    assert_eq!(notices.len(), 1, "{:?}", &notices[..notices.len().min(3)]);
    assert_eq!(
        OptimizersLab::from_query("a=1&b=2").1,
        ["unknown settings 'a', 'b': ignored"]
    );
}

#[test]
fn bad_values_keep_their_defaults_and_out_of_range_ones_are_clamped() {
    let (s, notices) =
        VisionLab::from_query("set=cifar&lr=abc&epochs=1000&batch=-3&webgpu=maybe&mystery=1&embed=1");
    let d = VisionLab::default();
    assert_eq!((s.set.as_str(), s.lr, s.webgpu), (d.set.as_str(), d.lr, d.webgpu));
    // Numbers out of range are clamped, a negative batch to the smallest.
    assert_eq!((s.epochs, s.batch), (100, 1));
    for needle in [
        "set=cifar",
        "lr=abc",
        "epochs=1000",
        "batch=-3",
        "webgpu=maybe",
        "'mystery'",
    ] {
        assert!(
            notices.iter().any(|n| n.contains(needle)),
            "no notice for {needle}: {notices:?}"
        );
    }
    let (s, notices) = ClusterLab::from_query("data=imagenet&workers=1000&chosen=[true]&lr=NaN");
    assert_eq!(
        (s.data, s.workers, s.chosen),
        (Data::Mnist, 64, ClusterLab::default().chosen)
    );
    assert_eq!(notices.len(), 4, "{notices:?}");
    let (s, notices) = OptimizersLab::from_query("start=9,9&racers=sgd,lbfgs&lr=1,2");
    let [_, x1, _, y1] = s.surface().view();
    assert_eq!(s.start, Some([x1, y1]), "clamped into the map");
    assert_eq!(s.racers, ["sgd"]);
    assert_eq!(s.lr, OptimizersLab::default().lr, "seven rates or none");
    assert_eq!(notices.len(), 4, "x, y clamped; lbfgs; lr: {notices:?}");
    let (s, notices) = ScalingLab::from_query("network=playground");
    assert_eq!(s.network, Network::Toy);
    assert_eq!(notices.len(), 1);
}

#[test]
fn files_of_another_lab_version_or_shape_are_refused_with_a_reason() {
    let file = optimizers().to_json();
    use lab_state::error::SettingsError;
    let refused = |r: Result<(VisionLab, Vec<String>), SettingsError>| r.unwrap_err();
    let other = refused(VisionLab::from_json(&file));
    assert_eq!(other, SettingsError::OtherLab { found: "optimizers".into(), lab: "vision" });
    assert!(other.to_string().contains("optimizers lab's settings, not the vision lab's"));
    assert!(matches!(refused(VisionLab::from_json("{")), SettingsError::NotJson(_)));
    assert_eq!(refused(VisionLab::from_json("[1]")), SettingsError::NotAnObject);
    let unnamed = refused(VisionLab::from_json(r#"{"lab": "vision"}"#));
    assert_eq!(unnamed, SettingsError::Unnamed { lab: "vision", missing: "version" });
    assert!(unnamed.to_string().contains("no version"));
    let newer = refused(VisionLab::from_json(r#"{"lab": "vision", "version": 7}"#));
    assert!(matches!(newer, SettingsError::Newer { version: 7, lab: "vision", .. }));
    assert!(newer.to_string().contains("newer"));
    let old = refused(VisionLab::from_json(r#"{"lab": "vision", "version": 0}"#));
    assert_eq!(old, SettingsError::Older { version: 0, lab: "vision", reads: VisionLab::VERSION });
    let old = old.to_string();
    assert!(old.contains("version 0") && old.contains("cannot read"), "{old}");
    let (s, notices) =
        VisionLab::from_json(r#"{"lab": "vision", "version": 1, "epochs": 2, "lr": "fast", "colour": 3}"#)
            .unwrap();
    assert_eq!(
        (s.epochs, s.lr),
        (2, VisionLab::default().lr),
        "one bad field keeps its default, not the file"
    );
    assert_eq!(notices.len(), 2, "{notices:?}");
}

#[test]
fn vision_backend_links_from_before_auto_still_read() {
    use lab_state::playground::BackendChoice;
    assert_eq!(VisionLab::default().webgpu, BackendChoice::Auto);
    for (q, want) in [
        ("webgpu=true", BackendChoice::Webgpu),
        ("webgpu=false", BackendChoice::Cpu),
        ("webgpu=auto", BackendChoice::Auto),
        ("webgpu=cpu", BackendChoice::Cpu),
    ] {
        let (s, notices) = VisionLab::from_query(q);
        assert_eq!(s.webgpu, want, "{q}");
        assert!(notices.is_empty(), "{q}: {notices:?}");
    }
}

#[test]
fn a_vision_preset_in_a_link_brings_its_layers_unless_the_link_gives_them() {
    use lab_state::layers::PRESETS;
    for (i, (key, _, text, epochs)) in PRESETS.iter().enumerate() {
        let (s, notices) = VisionLab::from_query(&format!("preset={key}"));
        assert_eq!(
            (s.preset, s.layers.as_str(), s.epochs),
            (i, *text, *epochs),
            "{key}"
        );
        assert!(notices.is_empty(), "{key}: {notices:?}");
    }
    let (s, _) = VisionLab::from_query("preset=resnet8&layers=dense 32, relu, dense 10&epochs=5");
    assert_eq!((s.layers.as_str(), s.epochs), ("dense 32, relu, dense 10", 5));
    let (s, _) = VisionLab::from_query(&VisionLab::from_query("preset=plain8").0.to_query());
    assert_eq!(
        s.layers, PRESETS[4].2,
        "a link the page writes reads back the same"
    );
}

/// Settings a table keeps but that cannot run together are refused by kind, and say why in the
/// words the page shows.
#[test]
fn settings_that_cannot_run_are_refused_with_a_typed_reason() {
    use lab_state::error::SetupError;
    let bad = lab_state::cluster::parse_counts("1, x").unwrap_err();
    assert!(matches!(&bad, SetupError::NotA { setting: "worker counts", text, .. } if text == "x"));
    assert_eq!(bad.to_string(), "worker counts: 'x' is not a whole number");
    let bad = lab_state::cluster::parse_counts("100").unwrap_err();
    assert!(matches!(bad, SetupError::Rule { setting: "worker counts", .. }));
    let bad = ScalingLab { base_lr: -1.0, ..Default::default() }.sweep().unwrap_err();
    assert!(matches!(bad, SetupError::Rule { setting: "base learning rate", .. }), "{bad}");
    let bad = VisionLab { layers: "dense".into(), ..Default::default() }.config().unwrap_err();
    assert!(matches!(bad, SetupError::Layers(_)), "{bad}");
    let bad = ClusterLab { workers: 0, ..Default::default() }.validate().unwrap_err();
    assert_eq!(bad.to_string(), "workers: from 1 to 64");
}

/// A layer list is refused by kind: which item, as written, and what is wrong with it, nested
/// inside a block.
#[test]
fn a_layer_list_is_refused_with_the_item_and_its_problem() {
    use lab_state::layers::{parse, ItemProblem, LayerError};
    assert_eq!(
        parse("conv 8 5x3, dense 10", 10),
        Err(LayerError::Item { number: 1, text: "conv 8 5x3".into(), problem: ItemProblem::NotSquare })
    );
    assert_eq!(parse("dense 4", 10), Err(LayerError::LastNotClasses { classes: 10 }));
    let Err(LayerError::Item { number: 1, problem: ItemProblem::InBlock(inner), .. }) = parse("res [dense 4, blah], dense 10", 10)
    else {
        panic!("the block's item");
    };
    assert_eq!(*inner, LayerError::Item { number: 2, text: "blah".into(), problem: ItemProblem::Unknown("blah".into()) });
}
