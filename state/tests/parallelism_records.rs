//! Saved results of the memory and parallelism lab read back (issue 55): the lab's own record of
//! its defaults loads; the same file with an empty profile, a timeline of 10⁹ stages, 3,000
//! layers or a slot on a stage it does not have is refused with its reason (before, they panicked,
//! took 2 GB or froze the page). The bounds cover everything the settings table lets a run ask.

use engine::train::Trainer;
use lab_sims::parallelism::layout::estimate;
use lab_sims::parallelism::profile::Profile;
use lab_sims::parallelism::record::ParallelismRecord;
use lab_sims::parallelism::record_check::{MOST_DEVICES, MOST_LAYERS, MOST_MICRO, MOST_STEPS};
use lab_state::lab::LabState;
use lab_state::parallelism::ParallelismLab;
use lab_state::table::refusal;
use serde_json::{json, Value};

/// The defaults' record as the page writes it before training (profile, machine, estimates).
pub fn defaults_record() -> Value {
    let lab = ParallelismLab::default();
    let config = lab.config(lab.batch);
    let (train, _) = config.data.load(crate::lessons::read_data).unwrap();
    let shape = pollster::block_on(Trainer::with_data(config.clone(), train, None, 1)).unwrap();
    let profile = Profile::of(&shape);
    let machine = lab.machine();
    let estimates = lab
        .ways()
        .unwrap()
        .iter()
        .map(|w| estimate(&lab.layout(w).unwrap(), &profile, lab.batch, &machine).unwrap())
        .collect();
    let record = ParallelismRecord {
        config,
        steps: lab.steps,
        machine,
        profile,
        estimates,
        runs: Vec::new(),
        tensor: Vec::new(),
    };
    serde_json::to_value(&record).unwrap()
}

fn refusal_of(record: &Value) -> String {
    match ParallelismRecord::from_json(&record.to_string()) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_results_file_the_lab_could_not_have_written_is_refused_with_its_reason() {
    let own = defaults_record();
    ParallelismRecord::from_json(&own.to_string()).expect("the lab's own record loads");
    let timeline = own["estimates"]
        .as_array()
        .unwrap()
        .iter()
        .position(|e| !e["timeline"].is_null())
        .expect("the defaults pipeline");

    let mut empty = own.clone();
    empty["profile"]["layers"] = json!([]);
    assert!(
        refusal_of(&empty).contains("a profile of 1 to 65 layers, not 0"),
        "{}",
        refusal_of(&empty)
    );

    let mut many = own.clone();
    let layer = own["profile"]["layers"][0].clone();
    many["profile"]["layers"] = Value::Array(vec![layer; 3000]);
    assert!(refusal_of(&many).contains("not 3000"), "{}", refusal_of(&many));

    for stages in [1_000_000_000u64, u64::from(u32::MAX)] {
        let mut huge = own.clone();
        huge["estimates"][timeline]["timeline"]["stages"] = json!(stages);
        assert!(
            refusal_of(&huge).contains("a timeline of 1 to 64 stages"),
            "{}",
            refusal_of(&huge)
        );
    }

    let mut astray = own.clone();
    let stages = own["estimates"][timeline]["timeline"]["stages"].as_u64().unwrap();
    astray["estimates"][timeline]["timeline"]["slots"][0]["stage"] = json!(stages);
    assert!(
        refusal_of(&astray).contains("each timeline slot"),
        "{}",
        refusal_of(&astray)
    );

    let mut beyond = own.clone();
    beyond["estimates"][0]["stage_layers"][0]["end"] = json!(1000);
    assert!(
        refusal_of(&beyond).contains("each stage's layers"),
        "{}",
        refusal_of(&beyond)
    );
}

/// Whatever the settings table lets a link ask for, the lab's record stays within the bounds.
#[test]
fn the_record_bounds_cover_every_setting_the_table_allows() {
    let most = |key: &str, value: usize| {
        let (lab, notices) = ParallelismLab::from_query(&format!("{key}={value}"));
        assert!(notices.is_empty(), "{key}={value}: {notices:?}");
        assert_eq!(refusal(&lab), None);
        lab
    };
    assert!(most("depth", 32).layers() <= MOST_LAYERS);
    assert!(
        ParallelismLab::from_query(&format!("depth={}", 33)).1.len() == 1,
        "32 is the table's most"
    );
    for key in ["workers", "devices"] {
        most(key, MOST_DEVICES);
        assert_eq!(
            ParallelismLab::from_query(&format!("{key}={}", MOST_DEVICES + 1))
                .1
                .len(),
            1,
            "{key}"
        );
    }
    most("micro", MOST_MICRO);
    assert_eq!(
        ParallelismLab::from_query(&format!("micro={}", MOST_MICRO + 1))
            .1
            .len(),
        1
    );
    most("steps", MOST_STEPS);
    assert_eq!(
        ParallelismLab::from_query(&format!("steps={}", MOST_STEPS + 1))
            .1
            .len(),
        1
    );
    most("stages", 16);
}

/// A link whose settings cannot run together is mended when it loads, with a notice, instead of
/// Run refusing it later (issue 55: `batch=4096&images=100` clamped the batch to 100, which the
/// eight pieces of the default layouts do not divide).
#[test]
fn settings_that_cannot_run_together_are_mended_when_the_link_loads() {
    let (lab, notices) = ParallelismLab::from_query("batch=4096&images=100");
    assert_eq!(lab.batch, 96, "{notices:?}");
    assert!(
        notices.iter().any(|n| n.contains("8 equal pieces; using 96")),
        "{notices:?}"
    );
    assert!(lab.ways().is_ok(), "{:?}", lab.ways());
    let (lab, notices) = ParallelismLab::from_query("batch=7&workers=3&runs=zero");
    assert_eq!(lab.batch, 6, "{notices:?}");
    assert!(lab.ways().is_ok());
    // The defaults split as they are: no notice.
    assert!(ParallelismLab::from_query("").1.is_empty());
}
