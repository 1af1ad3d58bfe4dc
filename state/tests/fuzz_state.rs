//! Fuzzing the state parsers with proptest: any query string — known keys with wild values,
//! unknown keys, stray bytes — and any layer line parse without a panic; whatever state comes out
//! writes back to a URL that reads as the same state with no notice, and the playground's JSON
//! export reads back too. 3 × 4,000 cases per run (`PROPTEST_CASES` overrides).

use lab_state::landscape::Landscape;
use lab_state::layers;
use lab_state::playground::Playground;
use proptest::prelude::*;

const KEYS: [&str; 24] = [
    "dataset",
    "classes",
    "points",
    "noise",
    "test",
    "seed",
    "hidden",
    "activation",
    "features",
    "init",
    "loss",
    "optimizer",
    "lr",
    "batch",
    "l2",
    "dropout",
    "warmup",
    "backend",
    "net",
    "data",
    "compare",
    "res",
    "plane",
    "embed",
];

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
            prop_oneof![
                prop::sample::select(KEYS.to_vec()).prop_map(String::from),
                "[a-z_]{1,8}(_hide)?"
            ],
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

proptest! {
    #![proptest_config(config())]

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
