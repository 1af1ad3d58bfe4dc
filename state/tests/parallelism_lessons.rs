//! The memory and parallelism lab's lessons on memory, ZeRO, pipelines and tensor parallelism
//! (public/lessons/parallelism-{memory,zero,pipeline,tensor}.json), each section's claim checked
//! natively through the lab's own settings: the section's link parsed as the page parses it, the
//! network's profile from the plan the engine compiles, and every estimate the page's table shows
//! (`lab_sims::parallelism::layout::estimate`, whose bytes, bubble and traffic
//! `sims/src/parallelism/tests.rs` and `sims/tests/step_memory.rs` hold to hand counts and the
//! closed forms). Memory, time, traffic and the bubble come from the plan, not the weights, so they
//! are the same at every seed; the tensor-parallel splits run on trained weights, so those are
//! checked at every seed. Needs `data/` (setup).

use std::collections::BTreeMap;

use engine::train::Trainer;
use lab_sims::parallelism::layout::{estimate, search, zero_table_workers, Layout};
use lab_sims::parallelism::layout_run::{train, Devices};
use lab_sims::parallelism::profile::Profile;
use lab_sims::parallelism::tensor_block::first_block;
use lab_sims::parallelism::zero::Stage;
use lab_state::lab::LabState;
use lab_state::parallelism::ParallelismLab;
use pollster::block_on;

/// A metric as the page publishes it: a number or a text.
#[derive(Clone, Debug)]
enum Metric {
    Number(f64),
    Text(String),
}

/// What the page's table publishes for `lab` before any training: each named layout's peak, time,
/// traffic, bubble (percent) and largest tensor class on its busiest device, and the ZeRO table's
/// stages on the ZeRO run's workers (as `app/src/labs/parallelism/figures.rs` names them).
fn estimates(lab: &ParallelismLab, profile: &Profile) -> BTreeMap<String, Metric> {
    let machine = lab.machine();
    let mut out = BTreeMap::new();
    let mut layouts: Vec<(String, Layout)> = Vec::new();
    for way in lab.ways().unwrap() {
        match lab.layout(&way) {
            Some(l) => layouts.push((way, l)),
            None => layouts.extend(
                search(profile, lab.batch, &machine, lab.devices)
                    .first()
                    .map(|e| (way, e.layout)),
            ),
        }
    }
    for (way, layout) in &layouts {
        let e = estimate(layout, profile, lab.batch, &machine).unwrap();
        let busiest = e.busiest();
        if e.layout.stages > 1 {
            // The pipeline lesson's why: the first stage (the 784-input layer and the widest
            // activations) is the busiest device.
            assert_eq!(busiest, e.devices[0], "{way}: the first stage is the busiest");
        }
        let n = |name: &str, v: f64| (format!("{name}-{way}"), Metric::Number(v));
        out.extend([
            n("peak", e.peak as f64),
            n("time", e.step_seconds),
            n("wire", e.wire_bytes),
            n("bubble", 100.0 * e.bubble),
            (format!("largest-{way}"), Metric::Text(busiest.largest().into())),
        ]);
    }
    let workers = zero_table_workers(layouts.iter().map(|(_, l)| *l));
    for stage in Stage::ALL {
        let layout = Layout {
            data: workers,
            zero: stage,
            ..Layout::PLAIN
        };
        let e = estimate(&layout, profile, lab.batch, &machine).unwrap();
        out.insert(format!("zero-peak-{}", stage as u8), Metric::Number(e.peak as f64));
        out.insert(format!("zero-wire-{}", stage as u8), Metric::Number(e.wire_bytes));
    }
    out
}

/// The tensor-parallel checks the page runs after training: the first run's layout trained for
/// the lab's steps, its first block split over as many devices as the pipeline has stages.
fn tensor_checks(lab: &ParallelismLab) -> BTreeMap<String, Metric> {
    let config = lab.config(lab.batch);
    let (train_set, test) = config.data.load(crate::lessons::read_data).unwrap();
    let test = test.unwrap();
    let way = lab.ways().unwrap()[0].clone();
    let layout = lab.layout(&way).expect("a named layout first");
    let mut whole = block_on(Trainer::with_data(config, train_set.clone(), None, 1)).unwrap();
    let rows = layout.micro_rows(lab.batch).unwrap_or(lab.batch);
    let mut part = (rows < lab.batch)
        .then(|| block_on(Trainer::with_data(lab.config(rows), train_set, None, 1)).unwrap());
    let devices = Devices {
        whole: &mut whole,
        part: part.as_mut(),
    };
    let (_, weights, _) =
        block_on(train(way, layout, devices, lab.steps, None, |_| async { true })).unwrap();
    let checks = first_block(&whole.compiled, &weights, &test.x, 256, lab.stages.max(2)).unwrap();
    let mut out = BTreeMap::new();
    for (i, c) in checks.iter().enumerate() {
        out.insert(format!("tensor-gap-{i}"), Metric::Number(f64::from(c.max_gap)));
        out.insert(format!("tensor-sent-{i}"), Metric::Number(c.sent_per_device));
    }
    out
}

/// Every section of lesson `id`: the claimed choice, at every seed where the measure depends on
/// trained weights.
fn check(id: &str) {
    for section in crate::lessons::sections(id) {
        let (lab, notices) = ParallelismLab::from_query(&section.state);
        assert!(notices.is_empty(), "{id}: {notices:?}");
        let trained = section.measure["expr"].as_str().into_iter().chain(section.measure["metric"].as_str()).any(|m| m.contains("tensor-"));
        let seeds = if trained { section.seeds() } else { vec![lab.seed] };
        let runs = crate::lessons::in_parallel(&seeds, |&seed| {
            let lab = ParallelismLab { seed, ..lab.clone() };
            if trained {
                tensor_checks(&lab)
            } else {
                let config = lab.config(lab.batch);
                let (train_set, _) = config.data.load(crate::lessons::read_data).unwrap();
                let shape = block_on(Trainer::with_data(config, train_set, None, 1)).unwrap();
                estimates(&lab, &Profile::of(&shape))
            }
        });
        for (seed, metrics) in seeds.iter().zip(runs) {
            eprintln!("{id} seed {seed}: {metrics:?}");
            if let Some(name) = section.measure["text"].as_str() {
                let Some(Metric::Text(t)) = metrics.get(name) else {
                    panic!("{id}: no text {name}")
                };
                section.assert_text_claim(id, t);
                continue;
            }
            let value = section.measure(|name| match metrics.get(name) {
                Some(Metric::Number(v)) => *v,
                other => panic!("{id}: {name} is {other:?}"),
            });
            section.assert_claim(id, value);
        }
    }
}

#[test]
fn memory_lesson() {
    check("parallelism-memory");
}

#[test]
fn zero_lesson() {
    check("parallelism-zero");
}

#[test]
fn pipeline_lesson() {
    check("parallelism-pipeline");
}

#[test]
fn tensor_lesson() {
    check("parallelism-tensor");
}
