//! The cluster lab's compression lesson with its defaults (MNIST, 8 workers, global batch 64,
//! k = 5 %, the default update budget): every compressor offered with error feedback — top-k, random-k
//! (sent unscaled) and 1-bit (sent as the scaled sign) — reaches the uncompressed run's test
//! accuracy within 2 points, and its error memory does not blow up. Needs `data/` (setup).

use std::path::PathBuf;

use engine::train::Trainer;
use lab_sims::cluster::Cluster;
use lab_sims::cluster_run::train_to_target;
use lab_sims::scaling::Target;
use lab_state::cluster::ClusterLab;
use lab_state::lab::LabState;

fn test_accuracy(lab: &ClusterLab) -> f32 {
    let config = lab.train_config(lab.workers);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
    let (train, test) = config
        .data
        .load(|name| std::fs::read(dir.join(name)).map_err(|e| format!("{name}: {e} (run scripts/setup.sh)")))
        .unwrap();
    let mut trainer = pollster::block_on(Trainer::with_data(config, train, None, 1)).unwrap();
    let mut cluster = Cluster::new(
        lab.config(lab.workers, 0).unwrap(),
        &trainer.compiled,
        trainer.config.batch,
    );
    // The whole budget for every run, so that they compare at equal updates.
    let run = pollster::block_on(train_to_target(
        String::new(),
        &mut cluster,
        &mut trainer,
        Target::Accuracy(2.0),
        lab.max_steps,
        test.as_ref(),
        |_, _| async { true },
    ))
    .unwrap();
    assert_eq!(run.diverged_at, None);
    run.test_accuracy.unwrap()
}

#[test]
fn error_feedback_compressors_reach_the_uncompressed_accuracy() {
    let compressed = [1, 2, 3].map(|compression| ClusterLab {
        compression,
        bits: 1,
        error_feedback: true,
        ..ClusterLab::default()
    });
    let labs: Vec<ClusterLab> = std::iter::once(ClusterLab::default()).chain(compressed).collect();
    let accuracies = crate::lessons::in_parallel(&labs, test_accuracy);
    let reference = accuracies[0];
    for (lab, &accuracy) in labs.iter().zip(&accuracies).skip(1) {
        let c = lab.compression();
        assert!(lab.config(8, 0).unwrap().uses_error_feedback(), "{c:?}");
        eprintln!(
            "{}: {accuracy} vs uncompressed {reference}",
            c.error_feedback_label()
        );
        assert!(
            accuracy >= reference - 0.02,
            "{}: {accuracy} vs uncompressed {reference}",
            c.error_feedback_label()
        );
    }
}

/// Each planned run's metrics as the page publishes them: `seconds-…`, the simulated time to the
/// target (None where it is not reached), and `outcome-…`, how the run ended.
type Seconds = Vec<(String, Option<f64>)>;
type Outcomes = Vec<(String, &'static str)>;

/// Every run the lab's Train button plans for `lab`, trained as the page trains it (the CPU
/// path): its `seconds-…` and its `outcome-…`.
pub fn seconds(lab: &ClusterLab) -> (Seconds, Outcomes) {
    let config = lab.train_config(1);
    let (train, test) = config.data.load(crate::lessons::read_data).unwrap();
    let test = test.expect("a test split");
    lab_state::cluster::plan::plan(lab, false)
        .unwrap()
        .into_iter()
        .map(|(label, workers, i, compression, sync)| {
            let (config, train_config) = lab.run_configs(workers, i, compression, sync).unwrap();
            let mut trainer =
                pollster::block_on(Trainer::with_data(train_config, train.clone(), None, 1)).unwrap();
            let mut cluster = Cluster::new(config, &trainer.compiled, trainer.config.batch);
            let trained = pollster::block_on(train_to_target(
                label.clone(),
                &mut cluster,
                &mut trainer,
                Target::Accuracy(lab.target),
                lab.max_steps,
                Some(&test),
                |_, _| async { true },
            ))
            .unwrap();
            (
                (
                    lab_state::registry::metric_name("seconds", &label),
                    trained.reached.map(|c| c.time),
                ),
                (lab_state::registry::metric_name("outcome", &label), trained.outcome()),
            )
        })
        .unzip()
}

/// Every section of lesson `id` at every seed (two seeds at a time), or at the seed it pins (a
/// section whose outcome changes with the seed pins one and says so): the claimed choice. Each
/// pins the CPU path and says so (an MNIST run per seed on lavapipe would take far too long).
pub fn check(id: &str) {
    for section in crate::lessons::sections(id) {
        let (lab, notices) = ClusterLab::from_query(&section.state);
        assert!(notices.is_empty(), "{id}: {notices:?}");
        // Checked on the CPU path only, so the section pins it and says why.
        assert_eq!(lab.backend, lab_state::lab::Backend::Cpu, "{id}: {}", section.heading);
        assert!(section.state.contains("backend_hide=true"), "{id}: the backend is locked");
        assert!(section.why.contains("pins the CPU path"), "{id}: the why says what it pins");
        let seeds = section.seeds();
        let measured = crate::lessons::in_parallel(&seeds, |&seed| {
            (seed, seconds(&ClusterLab { seed, ..lab.clone() }))
        });
        for (seed, (metrics, outcomes)) in measured {
            if let Some(name) = section.measure["text"].as_str() {
                let outcome = outcomes.iter().find(|(n, _)| n == name).map(|o| o.1);
                let outcome = outcome.unwrap_or_else(|| panic!("{id}: no run publishes {name}"));
                eprint!("(seed {seed}) ");
                section.assert_text_claim(id, outcome);
                continue;
            }
            let value = section.measure(|name| {
                let found = metrics.iter().find(|(n, _)| n == name);
                let (_, time) = found.unwrap_or_else(|| panic!("{id}: no run publishes {name}: {metrics:?}"));
                time.unwrap_or_else(|| {
                    panic!("{id} seed {seed}: {name} never reached the target: {metrics:?}")
                })
            });
            eprint!("(seed {seed}) ");
            section.assert_claim(id, value);
        }
    }
}

#[test]
fn the_allreduce_lesson_holds_over_seeds() {
    check("cluster-allreduce");
}

#[test]
fn the_compression_lesson_holds_over_seeds() {
    check("cluster-compression");
}

#[test]
fn the_stragglers_lesson_holds_over_seeds() {
    check("cluster-stragglers");
}

#[test]
fn the_async_momentum_lesson_holds_over_seeds() {
    check("cluster-async-momentum");
}

#[test]
fn the_momentum_correction_lesson_holds_over_seeds() {
    check("cluster-dgc");
}
