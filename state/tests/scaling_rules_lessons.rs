//! The scaling lab's lessons on learning-rate rules and on normalization
//! (public/lessons/scaling-{warmup,normalization}.json): how a run ends (the linear rule without
//! and with warmup, the square-root rule; batch norm and layer norm at batch 2 and 32), each
//! section at every seed it claims (or the one it pins), through the lab's own sweep and run loop
//! on the CPU path, the outcome read as the page publishes it (`RunResult::outcome`).

use lab_state::lab::LabState;
use lab_state::scaling::ScalingLab;

#[test]
fn the_rules_lesson_holds_at_its_seeds() {
    check("scaling-warmup");
}

#[test]
fn the_normalization_lesson_holds_at_its_seeds() {
    check("scaling-normalization");
}

#[test]
fn the_lars_lesson_holds_at_its_seeds() {
    check("scaling-lars");
}

/// Every section of lesson `id` at its seeds: how the run of the batch it reads ended.
fn check(id: &str) {
    for section in crate::lessons::sections(id) {
        let (lab, notices) = ScalingLab::from_query(&section.state);
        assert!(notices.is_empty(), "{notices:?}");
        let name = section.measure["text"].as_str().expect("a text measure");
        let batch: usize = name.strip_prefix("outcome-").unwrap().parse().unwrap();
        let seeds = section.seeds();
        let outcomes = crate::lessons::in_parallel(&seeds, |&seed| {
            let sweep = ScalingLab { seed, ..lab.clone() }.sweep().unwrap();
            let runs = crate::scaling_lessons::sweep_runs_on(&sweep, false);
            runs.iter().find(|r| r.batch == batch).unwrap().outcome()
        });
        for (seed, outcome) in seeds.iter().zip(outcomes) {
            eprint!("(seed {seed}) ");
            section.assert_text_claim(id, outcome);
        }
    }
}
