//! The scaling lab's lesson on learning-rate rules (public/lessons/scaling-warmup.json): how the
//! batch-256 run ends under the linear rule without and with warmup and under the square-root rule,
//! each section at every seed it claims (or the one it pins), through the lab's own sweep and run
//! loop on the CPU path, the outcome read as the page publishes it (`RunResult::outcome`).

use lab_state::lab::LabState;
use lab_state::scaling::ScalingLab;

#[test]
fn the_rules_lesson_holds_at_its_seeds() {
    let id = "scaling-warmup";
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
            eprintln!("{id} \"{}\" seed {seed}: {outcome}", section.heading);
            assert!(
                section.claim_is.iter().any(|c| c == outcome),
                "{id} \"{}\" seed {seed}: {outcome}, not {:?}",
                section.heading,
                section.claim_is
            );
        }
    }
}
