//! The memory and parallelism lab's lesson with its defaults, natively, through the lab's own
//! configs and layouts (`ParallelismLab::config`, `layout`, `lab_sims::parallelism::layout_run`):
//! the plain run learns (above 85 % test accuracy), and checkpointing, ZeRO-3 and the pipeline
//! each reach its accuracy; the course's lesson (public/lessons/parallelism-fits.json) measures
//! the pipeline's accuracy against the plain run's within its claimed range. The browser test
//! then checks the page's wiring on a short run. Needs `data/` (setup).

use engine::train::Trainer;
use lab_sims::parallelism::layout_run::{train, Devices};
use lab_state::lab::LabState;
use lab_state::parallelism::ParallelismLab;
use pollster::block_on;

/// Each named layout of `lab` trained as the page trains it: its test accuracy. Checkpointing is
/// not trained again: its step is the plain step bit for bit (its segments re-run the same
/// kernels; `sims/tests/layouts.rs`, `every_layout_trains_to_the_plain_runs_weights`), so its
/// accuracy is the plain run's exactly.
fn accuracies(lab: &ParallelismLab) -> Vec<(String, f32)> {
    let config = lab.config(lab.batch);
    let (train_set, test) = config.data.load(crate::lessons::read_data).unwrap();
    let test = test.expect("MNIST has a test set");
    // The layouts are independent runs from the same initial weights on the same batches: one
    // thread each, so the longest does not leave the other core idle at the end of the test run.
    let ways = lab.ways().unwrap();
    let checkpointed = |way: &str| {
        lab.layout(way)
            .is_some_and(|l| l.segment.is_some() && l.devices() == 1)
    };
    let mut measured: Vec<(String, f32)> = std::thread::scope(|scope| {
        let handles: Vec<_> = ways
            .iter()
            .filter(|way| !checkpointed(way))
            .cloned()
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
    });
    let plain = measured
        .iter()
        .find(|(w, _)| w == "plain")
        .expect("the plain run")
        .1;
    measured.extend(
        ways.iter()
            .filter(|w| checkpointed(w))
            .map(|w| (w.clone(), plain)),
    );
    measured
}

#[test]
fn every_layout_of_the_defaults_learns_as_the_plain_run_does() {
    let section = &crate::lessons::sections("parallelism-fits")[0];
    let (lab, notices) = ParallelismLab::from_query(&section.state);
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(
        section.seeds(),
        [lab.seed],
        "the section pins its seed, and says why"
    );
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

/// The lab's defaults, a trainer built on them (untrained: only its plan is read) and its profile.
fn defaults_profiled() -> (ParallelismLab, Trainer, lab_sims::parallelism::profile::Profile) {
    let lab = ParallelismLab::default();
    let config = lab.config(lab.batch);
    let (train_set, _) = config.data.load(crate::lessons::read_data).unwrap();
    let shape = block_on(Trainer::with_data(config, train_set, None, 1)).unwrap();
    let profile = lab_sims::parallelism::profile::Profile::of(&shape);
    (lab, shape, profile)
}

/// Where the pipeline's modelled step goes with the defaults (docs/theory.md §8.1, checked
/// against hand counts): its first stage is the 784 × 64 input layer alone, about 42 % of the
/// FLOPs (2·784·64 forward, 2·784·64 for its weight gradient; each 64 × 64 hidden layer 3·2·64·64,
/// the output 3·2·64·10); most of its step is the fixed cost per pass, which each stage pays for
/// each micro-batch; without it the pipeline is faster than plain; and from 8 to 32 micro-batches
/// the bubble shrinks as (p − 1)/(m + p − 1) while the step grows.
#[test]
fn the_pipelines_time_is_mostly_its_fixed_cost_per_pass() {
    use lab_sims::parallelism::layout::{estimate, Machine};
    let (lab, _, profile) = defaults_profiled();
    let machine = lab.machine();
    let pipeline = lab.layout("pipeline").unwrap();
    let with = estimate(&pipeline, &profile, lab.batch, &machine).unwrap();
    // The first stage's share of the FLOPs, by hand.
    let (first, hidden, output) = (4.0 * 784.0 * 64.0, 6.0 * 64.0 * 64.0, 6.0 * 64.0 * 10.0);
    let by_hand = first / (first + 11.0 * hidden + output);
    let (f, b) = profile.flops_per_row(with.stage_layers[0].clone());
    let (tf, tb) = profile.flops_per_row(0..profile.layers.len());
    let share = (f + b) / (tf + tb);
    eprintln!(
        "first stage: layers {:?}, {share:.3} of the FLOPs (by hand {by_hand:.3})",
        with.stage_layers[0]
    );
    assert!((share - by_hand).abs() < 0.02, "{share} against {by_hand}");
    assert!((0.40..0.44).contains(&share));
    // Most of the step is the fixed cost; without it the pipeline beats plain.
    let free = Machine {
        step_overhead: 0.0,
        ..machine
    };
    let without = estimate(&pipeline, &profile, lab.batch, &free).unwrap();
    let plain_free = estimate(&lab.layout("plain").unwrap(), &profile, lab.batch, &free).unwrap();
    eprintln!(
        "pipeline {:.2} ms, {:.2} ms without the fixed cost; plain without it {:.2} ms",
        with.step_seconds * 1e3,
        without.step_seconds * 1e3,
        plain_free.step_seconds * 1e3
    );
    assert!(with.step_seconds - without.step_seconds > 0.5 * with.step_seconds);
    assert!(without.step_seconds < plain_free.step_seconds);
    // 8 → 32 micro-batches: the bubble shrinks to its closed form, the step grows.
    let more = lab_sims::parallelism::layout::Layout {
        micro: 32,
        ..pipeline
    };
    let longer = estimate(&more, &profile, lab.batch, &machine).unwrap();
    let p = pipeline.stages as f64;
    eprintln!(
        "bubble {:.3} → {:.3}; step {:.2} → {:.2} ms",
        with.bubble,
        longer.bubble,
        with.step_seconds * 1e3,
        longer.step_seconds * 1e3
    );
    assert!(longer.bubble < with.bubble);
    assert!(
        longer.bubble >= (p - 1.0) / (32.0 + p - 1.0) - 1e-9,
        "no less than the equal-stage bubble"
    );
    assert!(longer.step_seconds > with.step_seconds);
    // The verdict says so.
    let record = lab_sims::parallelism::record::ParallelismRecord {
        config: lab.config(lab.batch),
        steps: lab.steps,
        machine,
        profile,
        estimates: vec![with],
        runs: Vec::new(),
        tensor: Vec::new(),
    };
    let said = lab_state::parallelism::verdict(&record).join(" ");
    assert!(said.contains("of it is the fixed 0.20 ms per pass"), "{said}");
}

/// The lab's memory story with its defaults (docs/theory.md §8.4), on the peaks the engine
/// really holds (its gradients sharing memory where their lives do not overlap): the plain step
/// does not fit one device, and checkpointing, ZeRO-3 and the pipeline each fit.
#[test]
fn with_the_defaults_plain_does_not_fit_and_three_ways_do() {
    use lab_sims::parallelism::layout::estimate;
    use lab_sims::parallelism::memory::step_memory;
    let (lab, shape, profile) = defaults_profiled();
    let machine = lab.machine();
    let peak = |way: &str| {
        let e = estimate(&lab.layout(way).unwrap(), &profile, lab.batch, &machine).unwrap();
        eprintln!("{way}: {:.3} MB, fits {}", e.peak as f64 / 1e6, e.fits);
        (e.peak, e.fits)
    };
    // The plain step's peak is what the engine allocates for it.
    let held = step_memory(shape.plan(), &shape.config.optimizer).step_bytes();
    assert_eq!(
        peak("plain"),
        (held, false),
        "plain does not fit {} MB",
        lab.memory
    );
    for way in ["checkpoint", "zero", "pipeline"] {
        assert!(peak(way).1, "{way} fits");
    }
}
