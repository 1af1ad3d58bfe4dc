//! The benchmark page's lessons (public/lessons/bench-{lies,kernels}.json) natively: each
//! section's workload trained for the page's steps (one epoch unless the link says otherwise) on
//! the CPU path, as the page trains it (`lab_sims::bench::run`), its measure read from the figures
//! the page shows: the test accuracy in percent and the fused plan's dispatches per step. Both are
//! properties of the workload (its data in file order, its seed and its plan), not of the machine.

use engine::train::Trainer;
use lab_sims::bench::{epoch_steps, WORKLOADS};
use lab_state::bench::BenchLab;
use lab_state::lab::LabState;
use pollster::block_on;

fn check(id: &str) {
    for section in crate::lessons::sections(id) {
        let (lab, notices) = BenchLab::from_query(&section.state);
        assert!(notices.is_empty(), "{id}: {notices:?}");
        let w = WORKLOADS.iter().find(|w| w.name == lab.workload).unwrap();
        let config = (w.config)();
        let (train, test) = config.data.load(crate::lessons::read_data).unwrap();
        // Predictions in chunks of 250 rows, as the page and `lab bench` evaluate.
        let mut trainer = block_on(Trainer::with_evaluation(config, train, None, 250, 0)).unwrap();
        let steps = lab.steps.unwrap_or_else(|| epoch_steps(&trainer, 1));
        let now = lab_sims::bench::native_now_ms;
        let r = block_on(lab_sims::bench::run(&mut trainer, test.as_ref(), w.name, steps, &now)).unwrap();
        let value = section.measure(|name| match name {
            "test-accuracy" => 100.0 * f64::from(r.test_accuracy.unwrap()),
            "dispatches" => r.dispatches_per_step as f64,
            other => panic!("{id}: no {other} here"),
        });
        section.assert_claim(id, value);
    }
}

#[test]
fn the_throughput_lesson_holds() {
    check("bench-lies");
}

#[test]
fn the_kernels_lesson_holds() {
    check("bench-kernels");
}
