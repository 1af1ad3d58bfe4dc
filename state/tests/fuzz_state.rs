//! Fuzzing the state parsers with proptest: any query string — every lab's keys from its settings
//! table (and its `_hide` flags) with wild values,
//! unknown keys, stray bytes — and any layer line parse without a panic; whatever state comes out
//! writes back to a URL that reads as the same state with no notice, and the playground's JSON
//! export reads back too; every other lab's URL and JSON likewise (the generic `LabState` codec),
//! with any JSON text refused or read without a panic. 10 × 4,000 cases per run
//! (`PROPTEST_CASES` overrides).

use std::fmt::Debug;

use lab_state::cluster::ClusterLab;
use lab_state::lab::LabState;
use lab_state::landscape::Landscape;
use lab_state::layers;
use lab_state::optimizers::OptimizersLab;
use lab_state::parallelism::ParallelismLab;
use lab_state::playground::Playground;
use lab_state::precision::PrecisionLab;
use lab_state::scaling::ScalingLab;
use lab_state::table::Table;
use lab_state::vision::VisionLab;
use proptest::prelude::*;

/// Every lab's URL keys, from the labs' settings tables (the tables drive the fuzzing too).
fn keys() -> Vec<String> {
    fn of<S: Table>() -> impl Iterator<Item = String> {
        let settings = S::SETTINGS.iter().map(|row| row.key.to_string());
        settings.chain(S::controls().into_iter().map(|c| format!("{c}_hide")))
    }
    let mut keys: Vec<String> = of::<Playground>()
        .chain(of::<OptimizersLab>())
        .chain(of::<ScalingLab>())
        .chain(of::<PrecisionLab>())
        .chain(of::<ParallelismLab>())
        .chain(of::<ClusterLab>())
        .chain(of::<VisionLab>())
        .chain(of::<Landscape>())
        .chain(of::<lab_state::bench::BenchLab>())
        .chain(["embed".to_string()])
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        "-?[0-9]{1,6}(\\.[0-9]{1,4})?",
        "[a-z_,0-9]{0,12}",
        "(1e9|NaN|inf|-0|0x10|,,|%00|true|false)",
        any::<String>(),
    ]
}

fn query() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            prop_oneof![prop::sample::select(keys()), "[a-z_]{1,8}(_hide)?"],
            value(),
        ),
        0..12,
    )
    .prop_map(|pairs| {
        form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish()
    })
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(4000),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Whatever a query makes of a lab, its URL and its JSON file read back as the same, quietly.
fn generic_round_trip<S: LabState + Debug>(q: &str) -> Result<(), TestCaseError> {
    let (s, _) = S::from_query(q);
    let (again, notices) = S::from_query(&s.to_query());
    prop_assert!(notices.is_empty(), "{:?} from {}", notices, s.to_query());
    prop_assert_eq!(&again, &s);
    let (back, notices) = S::from_json(&s.to_json()).unwrap();
    prop_assert!(notices.is_empty(), "{:?}", notices);
    prop_assert_eq!(back, s);
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn optimizers_state_round_trips(q in query()) { generic_round_trip::<OptimizersLab>(&q)?; }

    #[test]
    fn scaling_state_round_trips(q in query()) { generic_round_trip::<ScalingLab>(&q)?; }

    #[test]
    fn cluster_state_round_trips(q in query()) { generic_round_trip::<ClusterLab>(&q)?; }

    #[test]
    fn precision_state_round_trips(q in query()) { generic_round_trip::<PrecisionLab>(&q)?; }
    fn parallelism_state_round_trips(q in query()) { generic_round_trip::<ParallelismLab>(&q)?; }

    #[test]
    fn bench_state_round_trips(q in query()) { generic_round_trip::<lab_state::bench::BenchLab>(&q)?; }

    #[test]
    fn vision_state_round_trips(q in query()) { generic_round_trip::<VisionLab>(&q)?; }

    #[test]
    fn landscape_json_round_trips(q in query()) { generic_round_trip::<Landscape>(&q)?; }

    #[test]
    fn any_json_text_is_read_or_refused_without_a_panic(text in prop_oneof![
        any::<String>(),
        "\\{\"lab\": ?\"(vision|cluster|scaling|optimizers)\", ?\"version\": ?[0-9], ?\"[a-z_]{1,8}\": ?(-?[0-9.e]{1,6}|\"[a-z,]{0,6}\"|\\[[0-9,]{0,6}\\]|true|null)\\}",
    ]) {
        for result in [
            VisionLab::from_json(&text).map(|_| ()),
            ClusterLab::from_json(&text).map(|_| ()),
            ScalingLab::from_json(&text).map(|_| ()),
            PrecisionLab::from_json(&text).map(|_| ()),
            ParallelismLab::from_json(&text).map(|_| ()),
            OptimizersLab::from_json(&text).map(|_| ()),
        ] {
            if let Err(e) = result {
                prop_assert!(!e.is_empty());
            }
        }
    }

    #[test]
    fn playground_urls_parse_and_round_trip(q in query()) {
        let (s, _) = Playground::from_query(&q);
        let (again, notices) = Playground::from_query(&s.to_query());
        prop_assert!(notices.is_empty(), "{:?}", notices);
        prop_assert_eq!(&again, &s);
        let json = serde_json::to_string(&s).unwrap();
        prop_assert_eq!(Playground::from_json(&json).unwrap(), s);
    }

    #[test]
    fn landscape_urls_parse_and_round_trip(q in query()) {
        let (s, _) = Landscape::from_query(&q);
        let (again, notices) = Landscape::from_query(&s.to_query());
        prop_assert!(notices.is_empty(), "{:?}", notices);
        prop_assert_eq!(again, s);
    }

    #[test]
    fn layer_lines_parse_or_name_the_problem(text in "((conv|dense|maxpool|avgpool|relu|dropout|flatten|x) ?[0-9x.sp ]{0,8}, ?){0,6}dense [0-9]{1,3}") {
        match layers::parse(&text, 10) {
            Ok(l) => prop_assert_eq!(layers::parse(&layers::format(&l), 10).unwrap(), l),
            Err(e) => prop_assert!(!e.is_empty()),
        }
    }
}
