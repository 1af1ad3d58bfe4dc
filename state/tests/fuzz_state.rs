//! Fuzzing the state parsers with proptest: any query string — every lab's keys from its settings
//! table (and its `_hide` flags) with wild values,
//! unknown keys, stray bytes — and any layer line parse without a panic; whatever state comes out
//! writes back to a URL that reads as the same state with no notice, and the playground's JSON
//! export reads back too; every other lab's URL and JSON likewise (the generic `LabState` codec),
//! with any JSON text refused or read without a panic. 4,000 cases a property per run, every lab of the registry in each
//! (`PROPTEST_CASES` overrides).

use std::fmt::Debug;

use lab_state::lab::LabState;
use lab_state::landscape::Landscape;
use lab_state::layers;
use lab_state::playground::Playground;
use lab_state::registry::labs;
use lab_state::{for_each_lab, EachLab};
use proptest::prelude::*;

/// Every lab's URL keys and `_hide` flags, from the registry's settings tables (the tables drive
/// the fuzzing too).
fn keys() -> Vec<String> {
    let mut keys: Vec<String> = labs()
        .iter()
        .filter_map(|lab| lab.settings())
        .flat_map(|table| {
            let hides = table.hideable.iter().map(|c| format!("{c}_hide"));
            let keys = table.keys.iter().map(|k| k.to_string());
            keys.chain(hides).collect::<Vec<_>>()
        })
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

/// Text shaped like a settings file of some lab of the registry, with a wild field.
fn settings_file_like() -> impl Strategy<Value = String> {
    let ids: Vec<&str> = labs().iter().map(|l| l.id.as_str()).collect();
    let pattern = format!(
        "\\{{\"lab\": ?\"({})\", ?\"version\": ?[0-9], ?\"[a-z_]{{1,8}}\": ?(-?[0-9.e]{{1,6}}|\"[a-z,]{{0,6}}\"|\\[[0-9,]{{0,6}}\\]|true|null)\\}}",
        ids.join("|")
    );
    proptest::string::string_regex(&pattern).expect("a valid pattern")
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
    prop_assert!(notices.is_empty(), "{}: {:?} from {}", S::LAB, notices, s.to_query());
    prop_assert_eq!(&again, &s);
    let (back, notices) = S::from_json(&s.to_json()).unwrap();
    prop_assert!(notices.is_empty(), "{}: {:?}", S::LAB, notices);
    prop_assert_eq!(back, s);
    Ok(())
}

/// The round trip over every lab of the registry, stopping at the first that fails.
struct RoundTrip<'a> {
    query: &'a str,
    result: Result<(), TestCaseError>,
}

impl EachLab for RoundTrip<'_> {
    fn lab<S: LabState + Debug + 'static>(&mut self, _id: &str) {
        if self.result.is_ok() {
            self.result = generic_round_trip::<S>(self.query);
        }
    }
}

/// Any JSON text, read by every lab: refused with a reason, or read, never a panic.
struct ReadAny<'a> {
    text: &'a str,
    result: Result<(), TestCaseError>,
}

impl EachLab for ReadAny<'_> {
    fn lab<S: LabState + Debug + 'static>(&mut self, id: &str) {
        if let (Ok(()), Err(e)) = (&self.result, S::from_json(self.text)) {
            if e.to_string().is_empty() {
                self.result = Err(TestCaseError::fail(format!("{id}: a refusal without a reason")));
            }
        }
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_labs_state_round_trips(q in query()) {
        let mut check = RoundTrip { query: &q, result: Ok(()) };
        for_each_lab(&mut check);
        check.result?;
    }

    #[test]
    fn any_json_text_is_read_or_refused_without_a_panic(text in prop_oneof![
        any::<String>(),
        settings_file_like(),
    ]) {
        let mut check = ReadAny { text: &text, result: Ok(()) };
        for_each_lab(&mut check);
        check.result?;
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
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }
}
