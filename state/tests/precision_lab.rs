//! The precision lab's lesson with its defaults, natively, through the lab's own configs and run
//! loop (`PrecisionLab::configs`, `lab_sims::precision_run::run` with the page's chunk and
//! checks): naive fp16 diverges while mixed fp16, bf16 and fp8 land within a point of fp32; and
//! with SGD at η = 0.001 an fp16 master loses updates and falls behind where an fp32 master keeps
//! up (docs/theory.md §7). The browser test then checks the page's wiring on a short run.
//! Needs `data/` (setup).

use engine::train::Trainer;
use lab_sims::precision_run::{run, PrecisionRecord};
use lab_state::lab::LabState;
use lab_state::precision::{run_chunk, verdict, PrecisionLab, RUN_CHECKS, TRAIN_EVAL};
use pollster::block_on;

/// Every run of `lab`, one after another on the same batches, as the page trains them.
pub fn record(lab: &PrecisionLab) -> PrecisionRecord {
    let runs = lab.configs().unwrap();
    let (train, test) = runs[0].1.data.load(crate::lessons::read_data).unwrap();
    let test = test.expect("MNIST has a test set");
    let train_eval = train.head(TRAIN_EVAL.min(train.len()));
    let every = (lab.steps / RUN_CHECKS).max(1);
    let mut record = PrecisionRecord {
        base: runs[0].1.clone(),
        steps: lab.steps,
        runs: Vec::new(),
    };
    // The runs are independent (each from the same initial weights on the same batches): one
    // thread each, so a long run does not leave the other core idle at the end of the test run.
    record.runs = std::thread::scope(|scope| {
        let handles: Vec<_> = runs
            .into_iter()
            .map(|(name, config)| {
                let (train, train_eval, test) = (&train, &train_eval, &test);
                scope.spawn(move || {
                    let batch = config.batch as f64;
                    let mut t = block_on(Trainer::with_data(config, train.clone(), None, 1)).unwrap();
                    let work = lab_sims::timeline::Work::of(&t.compiled).flops_per_sample;
                    block_on(run(
                        &mut t,
                        &name,
                        (lab.steps, run_chunk(work * batch), every),
                        (train_eval, Some(test)),
                        |_| async { true },
                    ))
                    .unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    record
}

fn accuracy(record: &PrecisionRecord, name: &str) -> f32 {
    let r = record.runs.iter().find(|r| r.label == name).unwrap();
    r.test_accuracy.unwrap()
}

fn lost(record: &PrecisionRecord, name: &str) -> f64 {
    let r = record.runs.iter().find(|r| r.label == name).unwrap();
    r.checks.last().and_then(|c| c.lost_updates).unwrap()
}

#[test]
fn with_the_defaults_naive_fp16_fails_where_the_others_match_fp32() {
    let record = record(&PrecisionLab::default());
    for r in &record.runs {
        eprintln!(
            "{}: test accuracy {:?}, diverged at {:?}, scale {}",
            r.label, r.test_accuracy, r.diverged_at, r.final_scale
        );
    }
    let fp16 = record.runs.iter().find(|r| r.label == "fp16").unwrap();
    assert!(fp16.diverged_at.is_some(), "naive fp16 diverges");
    let fp32 = accuracy(&record, "fp32");
    assert!(fp32 > 0.85, "fp32 learns: {fp32}");
    for name in ["mixed-fp16", "mixed-bf16", "fp8"] {
        let a = accuracy(&record, name);
        assert!(
            (a - fp32).abs() < 0.01,
            "{name}: {a} within a point of fp32 {fp32}"
        );
    }
    let scale = |name: &str| record.runs.iter().find(|r| r.label == name).unwrap().final_scale;
    assert_eq!(scale("mixed-bf16"), 1.0, "bf16 runs without loss scaling");
    assert_ne!(scale("mixed-fp16"), 65536.0, "the dynamic scale moved from 2^16");
    // The cause, from the run's own record: at its first step naive fp16 stored Adam's
    // (1 − β₂)g² as 0 for most weights with a gradient (docs/theory.md §7.4).
    let first = fp16.checks.first().expect("the first step is checked");
    let flushed = first.squares_flushed.expect("Adam keeps a second moment");
    assert_eq!(first.step, 1);
    assert!(flushed > 0.5, "most of v flushed at step 1: {flushed}");
    let said = verdict(&record).join(" ");
    assert!(
        said.contains("fp16: diverged at step")
            && said.contains("Adam's second moment v is stored in fp16: at step 1"),
        "{said}"
    );
    // Stored in fp32, mixed precision's v keeps every square.
    let mixed = record.runs.iter().find(|r| r.label == "mixed-fp16").unwrap();
    assert_eq!(mixed.checks[0].squares_flushed, Some(0.0));
}

#[test]
fn with_sgd_an_fp16_master_loses_updates_and_falls_behind() {
    let (lab, notices) = PrecisionLab::from_query("optimizer=sgd&lr=0.001&runs=fp32,fp16,mixed-fp16");
    assert!(notices.is_empty(), "{notices:?}");
    let record = record(&lab);
    let (fp32, fp16, mixed) = (
        accuracy(&record, "fp32"),
        accuracy(&record, "fp16"),
        accuracy(&record, "mixed-fp16"),
    );
    eprintln!(
        "SGD: fp32 {fp32}, fp16 {fp16} ({} lost), mixed {mixed}",
        lost(&record, "fp16")
    );
    assert!(
        fp16 < fp32 - 0.05,
        "an fp16 master falls behind: {fp16} against {fp32}"
    );
    assert!(lost(&record, "fp16") > 0.3, "an fp16 master loses updates");
    // SGD keeps no squared gradients: nothing of the kind is recorded, or blamed.
    assert!(record
        .runs
        .iter()
        .all(|r| r.checks.iter().all(|c| c.squares_flushed.is_none())));
    assert!(!verdict(&record).join(" ").contains("second moment"));
    assert!(lost(&record, "mixed-fp16") < 0.01, "an fp32 master keeps them");
    assert!(
        (mixed - fp32).abs() < 0.01,
        "mixed {mixed} keeps up with fp32 {fp32}"
    );
}
