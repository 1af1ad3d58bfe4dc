//! Results files the labs could not have written, read back by each record's `from_json` (issue
//! 80): the cases that passed the shape check and then broke a page, each refused with its
//! reason (the sweep, precision and cluster records' meaning checks: `record_check.rs` of
//! `lab_sims::{scaling, precision_run, cluster}`); and files generated from the seven recorded
//! labs' own, a few numbers set to values no lab writes (0, −1, 4·10⁹, 10³⁰⁰, 2⁵³) or one list
//! grown a hundredfold, each refused with a reason or read without a panic and then passing its
//! check and writing its CSV. 256 generated cases a record kind per run (`PROPTEST_CASES`
//! overrides).

use lab_sims::attention::record::AttentionRecord;
use lab_sims::cluster::ClusterConfig;
use lab_sims::cluster_run::{ClusterRecord, ClusterRun};
use lab_sims::hardware::record::HardwareRecord;
use lab_sims::hardware::systolic::Gemm;
use lab_sims::parallelism::record::ParallelismRecord;
use lab_sims::precision_run::{PrecisionRecord, PrecisionRun};
use lab_sims::record::RunRecord;
use lab_sims::scaling::{Sweep, SweepRecord, Target};
use lab_sims::sparsity::record::SparsityRecord;
use proptest::prelude::*;
use serde_json::{json, Value};

/// Values no lab writes where a count, an index or a measure belongs.
const WILD: [f64; 7] = [0.0, -1.0, 4.0e9, 1e300, 9_007_199_254_740_992.0, 0.5, 65_536.0];

/// The JSON paths of every number and every non-empty list in `v`.
fn leaves(v: &Value, path: &mut Vec<Value>, numbers: &mut Vec<Vec<Value>>, lists: &mut Vec<Vec<Value>>) {
    match v {
        Value::Number(_) => numbers.push(path.clone()),
        Value::Array(items) => {
            if !items.is_empty() {
                lists.push(path.clone());
            }
            for (i, item) in items.iter().enumerate() {
                path.push(json!(i));
                leaves(item, path, numbers, lists);
                path.pop();
            }
        }
        Value::Object(fields) => {
            for (k, item) in fields {
                path.push(json!(k));
                leaves(item, path, numbers, lists);
                path.pop();
            }
        }
        _ => {}
    }
}

fn at<'a>(v: &'a mut Value, path: &[Value]) -> &'a mut Value {
    path.iter().fold(v, |v, step| match step {
        Value::String(k) => &mut v[k.as_str()],
        other => &mut v[other.as_u64().unwrap_or(0) as usize],
    })
}

/// A change to a record: up to three numbers set to wild values, perhaps one list grown.
#[derive(Clone, Debug)]
struct Change {
    numbers: Vec<(usize, usize)>,
    grow: Option<usize>,
}

fn change() -> impl Strategy<Value = Change> {
    (
        prop::collection::vec((any::<usize>(), 0..WILD.len()), 0..=3),
        prop::option::of(any::<usize>()),
    )
        .prop_map(|(numbers, grow)| Change { numbers, grow })
}

fn changed(base: &Value, c: &Change) -> Value {
    let (mut numbers, mut lists) = (Vec::new(), Vec::new());
    leaves(base, &mut Vec::new(), &mut numbers, &mut lists);
    let mut v = base.clone();
    for &(which, wild) in &c.numbers {
        if !numbers.is_empty() {
            *at(&mut v, &numbers[which % numbers.len()]) = json!(WILD[wild]);
        }
    }
    if let (Some(which), false) = (c.grow, lists.is_empty()) {
        let list = at(&mut v, &lists[which % lists.len()]);
        if let Some(items) = list.as_array_mut() {
            let first = items[0].clone();
            items.resize(items.len() * 100, first);
        }
    }
    v
}

/// Read back: refused with a reason, or read and then passing its own check and writing its CSV.
fn reads_or_refuses<R: RunRecord>(v: &Value, check: fn(&R) -> Result<(), lab_sims::record::RecordFault>) -> Result<(), TestCaseError> {
    match R::from_json(&v.to_string()) {
        Err(e) => prop_assert!(!e.to_string().is_empty()),
        Ok(r) => {
            prop_assert_eq!(check(&r), Ok(()));
            let _ = r.csv();
        }
    }
    Ok(())
}

fn hardware() -> Value {
    let gemm = Gemm { m: 64, k: 784, n: 128 };
    serde_json::to_value(HardwareRecord::new("W1", true, gemm, 16)).unwrap()
}

fn cluster() -> Value {
    let link = engine::collectives::Link::preset("pcie").unwrap();
    let run = ClusterRun {
        label: "ring ×4".into(),
        config: ClusterConfig::new(4, engine::collectives::Algorithm::Ring, link),
        worker_batch: 16,
        losses: vec![2.3, 2.0, 1.8],
        times: vec![0.1, 0.2, 0.3],
        checks: vec![],
        reached: None,
        bytes_per_step: 100.0,
        dense_bytes_per_step: 100.0,
        total_bytes: 300.0,
        staleness_mean: 0.0,
        staleness_max: 0,
        test_accuracy: Some(0.5),
        diverged_at: None,
        stalled_at: None,
    };
    serde_json::to_value(ClusterRecord::new(Target::Loss(0.3), vec![run], vec![])).unwrap()
}

fn sweep() -> Value {
    let mut v = serde_json::to_value(SweepRecord::new(Sweep::default(), vec![])).unwrap();
    v["runs"] = json!([{
        "batch": 8, "learning_rate": 0.05, "steps": 3, "steps_to_target": 3,
        "examples_to_target": 24, "final_loss": 0.5, "train_loss": 0.5, "train_accuracy": 0.8,
        "test_loss": 0.6, "test_accuracy": 0.7, "diverged": false,
        "losses": [1.0, 0.7, 0.5], "learning_rates": [0.05, 0.05, 0.05],
        "checks": [[3, 0.5, 0.8]], "noise_scale": [[3, 40.0]], "noise_raw": [[3, 1.0, 2.0]]
    }]);
    v
}

fn precision() -> Value {
    let run = PrecisionRun {
        label: "fp32".into(),
        precision: engine::precision::Precision::default(),
        losses: vec![2.3, 2.0, 1.8],
        diverged_at: None,
        train_accuracy: 0.5,
        test_accuracy: Some(0.5),
        skipped_steps: 0,
        scale_events: vec![],
        final_scale: 1.0,
        checks: vec![],
        bytes: engine::precision::TensorBytes::default(),
    };
    let record = PrecisionRecord {
        base: engine::train::TrainConfig::default(),
        steps: 3,
        runs: vec![run],
    };
    serde_json::to_value(record).unwrap()
}

/// The reason `from_json` gives for `base` changed by `change` ("" when it reads).
fn refusal<R: RunRecord>(base: Value, change: fn(&mut Value)) -> String {
    let mut v = base;
    change(&mut v);
    R::from_json(&v.to_string()).map_or_else(|e| e.to_string(), |_| String::new())
}

type Case = (fn(&mut Value), &'static str);

fn refused_with_why<R: RunRecord>(base: fn() -> Value, cases: &[Case]) {
    assert_eq!(refusal::<R>(base(), |_| {}), "", "the lab's own kind of record reads");
    for (change, why) in cases {
        let got = refusal::<R>(base(), *change);
        assert!(got.contains(why), "{got:?} (expected {why})");
    }
}

#[test]
fn a_sweep_file_the_lab_could_not_have_written_is_refused_with_why() {
    refused_with_why::<SweepRecord>(
        sweep,
        &[
            (|v| v["sweep"]["batches"] = json!([0]), "a batch from 1 to 1048576, not 0"),
            (|v| v["sweep"]["batches"] = json!([]), "batches from 1 to 1024, not 0"),
            (|v| v["sweep"]["max_steps"] = json!(4_000_000_000u64), "steps from 1 to 100000"),
            (|v| v["runs"][0]["batch"] = json!(0), "run 1: a batch from 1 to 1048576, not 0"),
            (|v| v["runs"][0]["losses"] = json!(vec![0.5; 2002]), "run 1: losses from 0 to 2001, not 2002"),
            (|v| v["sweep"]["lr_factors"] = json!([-1.0]), "learning-rate factors above 0, not -1"),
        ],
    );
}

#[test]
fn a_precision_file_the_lab_could_not_have_written_is_refused_with_why() {
    refused_with_why::<PrecisionRecord>(
        precision,
        &[
            (|v| v["steps"] = json!(0), "steps from 1 to 20000, not 0"),
            (|v| v["runs"][0]["losses"] = json!(vec![0.5; 5]), "run 1: losses from 0 to 4, not 5"),
            (|v| v["runs"][0]["train_accuracy"] = json!(7.0), "run 1: an accuracy from 0 to 1, not 7"),
            (|v| v["runs"][0]["diverged_at"] = json!(9999), "run 1: steps within its 3"),
            (|v| v["runs"][0]["bytes"]["activations"] = json!(u64::MAX), "run 1: tensor bytes of at most"),
            (
                |v| {
                    let shares = json!({"underflow": 0.0, "subnormal": 0.0, "normal": 1.0, "overflow": 0.0});
                    let check = json!({"step": 1, "scale": 1.0, "skipped": false, "lost_updates": null,
                        "gradient_shares": shares, "histograms": [], "gradient_scales": [3, 1000]});
                    v["runs"][0]["checks"] = json!([check]);
                },
                "run 1: a tensor scale from 2^-64 to 2^64, not 2^1000",
            ),
        ],
    );
}

#[test]
fn a_cluster_file_the_lab_could_not_have_written_is_refused_with_why() {
    refused_with_why::<ClusterRecord>(
        cluster,
        &[
            (|v| v["runs"][0]["times"] = json!([0.1]), "run 1: times (one an update) from 3 to 3, not 1"),
            (|v| v["runs"][0]["config"]["workers"] = json!(0), "run 1: workers from 1 to 64, not 0"),
            (|v| v["runs"][0]["worker_batch"] = json!(0), "run 1: a worker's batch from 1"),
            (
                |v| v["runs"][0]["checks"] = json!([{ "step": 9999, "time": 1.0, "samples": 1, "loss": 1.0, "accuracy": 0.5 }]),
                "run 1: checks within its 3 updates, not at 9999",
            ),
            (|v| v["runs"][0]["total_bytes"] = json!(-1.0), "not below 0, not -1"),
        ],
    );
}

fn attention() -> Value {
    let plan = lab_state::attention::AttentionLab::default().plan();
    let (_, test) = plan.data();
    let (tokens, answer) = lab_sims::attention::run::example(&plan, &test);
    serde_json::to_value(AttentionRecord::new(plan, tokens, answer)).unwrap()
}

fn sparsity() -> Value {
    let s = lab_state::sparsity::SparsityLab::default();
    let config = s.config();
    let compiled = config.spec(10).compile().unwrap();
    serde_json::to_value(SparsityRecord::new(config, s.plan(), &compiled)).unwrap()
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn hardware_files_are_refused_or_read(c in change()) {
        reads_or_refuses::<HardwareRecord>(&changed(&hardware(), &c), HardwareRecord::check)?;
    }

    #[test]
    fn cluster_files_are_refused_or_read(c in change()) {
        reads_or_refuses::<ClusterRecord>(&changed(&cluster(), &c), ClusterRecord::check)?;
    }

    #[test]
    fn sweep_files_are_refused_or_read(c in change()) {
        reads_or_refuses::<SweepRecord>(&changed(&sweep(), &c), SweepRecord::check)?;
    }

    #[test]
    fn attention_files_are_refused_or_read(c in change()) {
        reads_or_refuses::<AttentionRecord>(&changed(&attention(), &c), AttentionRecord::check)?;
    }

    #[test]
    fn sparsity_files_are_refused_or_read(c in change()) {
        reads_or_refuses::<SparsityRecord>(&changed(&sparsity(), &c), SparsityRecord::check)?;
    }

    #[test]
    fn precision_files_are_refused_or_read(c in change()) {
        reads_or_refuses::<PrecisionRecord>(&changed(&precision(), &c), PrecisionRecord::check)?;
    }
}

/// The parallelism lab's own record of its defaults (built once: it trains a step), changed as
/// above.
#[test]
fn parallelism_files_are_refused_or_read() {
    let base = crate::parallelism_records::defaults_record();
    let mut runner = proptest::test_runner::TestRunner::new(config());
    runner
        .run(&change(), |c| reads_or_refuses::<ParallelismRecord>(&changed(&base, &c), ParallelismRecord::check))
        .unwrap();
}
