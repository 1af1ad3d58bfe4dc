//! Choices travel by name (`optimizer=adam`), so reordering a list never changes what a link
//! means; links and files written before names (settings version 1, indices) still read the same.

use engine::collectives::{Algorithm, Link};
use engine::optim::Optimizer;
use lab_state::cluster::{ClusterLab, ALGORITHMS, COMPRESSIONS};
use lab_state::lab::LabState;
use lab_state::layers::PRESETS;
use lab_state::names;
use lab_state::scaling::ScalingLab;
use lab_state::vision::VisionLab;

#[test]
fn the_name_lists_follow_the_lists_they_name() {
    let optimizers: Vec<String> = Optimizer::all()
        .iter()
        .map(|o| o.label().to_lowercase())
        .collect();
    assert_eq!(
        names::optimizer::NOW,
        optimizers.iter().map(String::as_str).collect::<Vec<_>>()
    );
    assert_eq!(names::link::NOW, Link::PRESETS);
    assert_eq!(names::preset::NOW, PRESETS.map(|p| p.0));
    assert_eq!(names::compression::NOW.len(), COMPRESSIONS.len());
    let kinds = [
        Algorithm::Ring,
        Algorithm::Tree,
        Algorithm::ParameterServer { shards: 1 },
        Algorithm::Naive,
        Algorithm::RecursiveDoubling,
        Algorithm::Rabenseifner,
        Algorithm::Hierarchical,
    ];
    assert_eq!(
        ALGORITHMS.map(|a| a.0),
        kinds,
        "algorithm names in ALGORITHMS order"
    );
}

#[test]
fn links_write_names_and_read_them_back() {
    let s = ClusterLab {
        optimizer: 5,
        chosen: [false, true, false, false, true, false, false],
        animate: 4,
        compression: 1,
        inter: 2,
        ..Default::default()
    };
    let q = s.to_query();
    for part in [
        "optimizer=adam",
        "chosen=tree%2Cbutterfly",
        "animate=butterfly",
        "compression=topk",
        "inter=infiniband",
    ] {
        assert!(q.contains(part), "{part} in {q}");
    }
    let (back, notices) = ClusterLab::from_query(&q);
    assert_eq!((back, notices), (s, Vec::<String>::new()));
    let v = VisionLab {
        optimizer: 0,
        preset: 2,
        ..Default::default()
    };
    assert!(v.to_query().contains("preset=deeper") && v.to_query().contains("optimizer=sgd"));
    assert_eq!(VisionLab::from_query(&v.to_query()).0, v);
}

#[test]
fn version_one_links_with_indices_read_as_they_meant() {
    let (s, notices) = ClusterLab::from_query(
        "optimizer=5&animate=4&compression=1&intra=1&chosen=false,true,false,false,true,false,false",
    );
    assert_eq!(notices, Vec::<String>::new());
    assert_eq!(
        (s.optimizer, s.animate, s.compression, s.intra, s.chosen),
        (5, 4, 1, 1, [false, true, false, false, true, false, false])
    );
    assert!(matches!(Optimizer::all()[s.optimizer], Optimizer::Adam { .. }));
    let (v, _) = VisionLab::from_query("optimizer=1&preset=0");
    assert_eq!((v.optimizer, v.preset), (1, 0));
    let (sc, _) = ScalingLab::from_query("optimizer=0");
    assert_eq!(sc.optimizer, 0);
}

#[test]
fn version_one_files_upgrade_and_unknown_names_keep_the_default() {
    let file = r#"{"lab": "cluster", "version": 1, "optimizer": 5, "compression": 2,
        "chosen": [true, false, false, false, false, false, true], "intra": 1}"#;
    let (s, notices) = ClusterLab::from_json(file).unwrap();
    assert_eq!(notices, Vec::<String>::new());
    assert_eq!((s.optimizer, s.compression, s.intra), (5, 2, 1));
    assert_eq!(s.chosen, [true, false, false, false, false, false, true]);
    // What this version writes names its choices and reads back the same.
    let text = s.to_json();
    assert!(
        text.contains("\"optimizer\": \"adam\"") && text.contains("\"version\": 2"),
        "{text}"
    );
    assert_eq!(ClusterLab::from_json(&text).unwrap().0, s);
    let (s, notices) = ClusterLab::from_query("optimizer=lbfgs&chosen=ring,hypercube");
    assert_eq!((s.optimizer, s.chosen), (0, ClusterLab::default().chosen));
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert!(
        notices.iter().any(|n| n.contains("optimizer=lbfgs")),
        "{notices:?}"
    );
}
