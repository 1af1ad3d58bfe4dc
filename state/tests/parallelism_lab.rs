//! The memory and parallelism lab's lesson with its defaults, natively, through the lab's own
//! configs and layouts (`ParallelismLab::config`, `layout`, `lab_sims::parallelism::layout_run`):
//! the plain run learns (above 85 % test accuracy), and checkpointing, ZeRO-3 and the pipeline
//! each reach its accuracy; the course's lesson (public/lessons/parallelism-fits.json) measures
//! the pipeline's accuracy against the plain run's within its claimed range. The browser test
//! then checks the page's wiring on a short run. Needs `public/data` (setup).

use engine::train::Trainer;
use lab_sims::parallelism::layout_run::{train, Devices};
use lab_state::lab::LabState;
use lab_state::parallelism::ParallelismLab;
use pollster::block_on;

/// Each named layout of `lab` trained as the page trains it: its test accuracy.
fn accuracies(lab: &ParallelismLab) -> Vec<(String, f32)> {
    let config = lab.config(lab.batch);
    let (train_set, test) = config.data.load(crate::lessons::read_data).unwrap();
    let test = test.expect("MNIST has a test set");
    // The layouts are independent runs from the same initial weights on the same batches: one
    // thread each, so the longest does not leave the other core idle at the end of the test run.
    std::thread::scope(|scope| {
        let handles: Vec<_> = lab
            .ways()
            .unwrap()
            .into_iter()
            .map(|way| {
                let (config, train_set, test) = (&config, &train_set, &test);
                scope.spawn(move || {
                    let layout = lab.layout(&way).expect("a named layout");
                    let mut whole =
                        block_on(Trainer::with_data(config.clone(), train_set.clone(), None, 1)).unwrap();
                    let rows = layout.micro_rows(lab.batch).unwrap_or(lab.batch);
                    let mut part = (rows < lab.batch).then(|| {
                        block_on(Trainer::with_data(lab.config(rows), train_set.clone(), None, 1)).unwrap()
                    });
                    let devices = Devices {
                        whole: &mut whole,
                        part: part.as_mut(),
                    };
                    let (run, _, _) = block_on(train(
                        way.clone(),
                        layout,
                        devices,
                        lab.steps,
                        Some(test),
                        |_| async { true },
                    ))
                    .unwrap();
                    (way, run.test_accuracy.unwrap())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

#[test]
fn every_layout_of_the_defaults_learns_as_the_plain_run_does() {
    let section = &crate::lessons::sections("parallelism-fits")[0];
    let (lab, notices) = ParallelismLab::from_query(&section.state);
    assert!(notices.is_empty(), "{notices:?}");
    let acc = accuracies(&lab);
    eprintln!("test accuracy by layout: {acc:?}");
    let of = |way: &str| f64::from(acc.iter().find(|(w, _)| w == way).unwrap().1);
    assert!(of("plain") > 0.85, "the network learns: {}", of("plain"));
    for way in ["checkpoint", "zero", "pipeline"] {
        assert!(
            (of(way) - of("plain")).abs() < 0.01,
            "{way} within a point of plain"
        );
    }
    let value = section.measure(|name| of(name.trim_start_matches("acc-")));
    section.assert_claim("parallelism-fits", value);
}
