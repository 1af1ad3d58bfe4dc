//! The vision lessons as the page measures them (`app/src/labs/vision`: the first convolution's
//! filters after training and their change from the start, the whole test set scored), each
//! section's claim over five seeds on the CPU path and at the lesson's seed on WebGPU's kernels
//! (lavapipe). The browser test then only checks that the page shows what it measured.

use std::rc::Rc;

use engine::inspect::{evaluation, filter_smoothness, first_filters};
use engine::train::Trainer;
use lab_state::lab::LabState;
use lab_state::vision::{class_names, VisionLab};
use pollster::block_on;

/// What the page publishes after a run: `filter-smoothness`, `change-smoothness`,
/// `most-confused` and `hardest-class`.
#[derive(Debug)]
struct Measured {
    filters: f64,
    change: f64,
    most_confused: String,
    hardest: String,
}

fn run(lab: &VisionLab, on_gpu: bool) -> Measured {
    let config = lab.config().unwrap();
    let (train, test) = config.data.load(crate::lessons::read_data).unwrap();
    let test = test.expect("image sets have a test split");
    let gpu =
        on_gpu.then(|| Rc::new(block_on(engine::gpu::GpuContext::new()).expect("a GPU adapter (lavapipe)")));
    // As the page: 500 rows scored at a time, every epoch trained to its end.
    let mut t = block_on(Trainer::with_data(config, train.clone(), gpu, 500)).unwrap();
    let start = block_on(t.params()).unwrap();
    block_on(t.train(train.len().div_ceil(lab.batch) * lab.epochs)).unwrap();
    let end = block_on(t.params()).unwrap();
    let (filters, change) = match (
        first_filters(&t.compiled, &end),
        first_filters(&t.compiled, &start),
    ) {
        (Some((_, _, k, w)), Some((_, _, _, w0))) => {
            let d: Vec<f32> = w.iter().zip(&w0).map(|(a, b)| a - b).collect();
            (
                f64::from(filter_smoothness(k, &w)),
                f64::from(filter_smoothness(k, &d)),
            )
        }
        _ => (f64::NAN, f64::NAN),
    };
    let mut probs = Vec::new();
    for from in (0..test.len()).step_by(500) {
        let rows: Vec<usize> = (from..(from + 500).min(test.len())).collect();
        probs.extend(block_on(t.probabilities(&test.rows(&rows))).unwrap());
    }
    let e = evaluation(&probs, &test.y, 10);
    let names = class_names(&lab.set);
    let (a, b, _) = e.most_confused().unwrap();
    let hardest = (0..10)
        .min_by(|&i, &j| e.per_class[i].total_cmp(&e.per_class[j]))
        .unwrap();
    Measured {
        filters,
        change,
        most_confused: format!("{} as {}", names[a], names[b]),
        hardest: names[hardest].to_string(),
    }
}

/// Every section of lesson `id`, at every seed on the CPU path (two at a time) and at the
/// lesson's own seed on lavapipe: the claimed choice each time. Sections with the same link share
/// their runs.
fn check(id: &str) {
    let sections = crate::lessons::sections(id);
    let mut measured: Vec<(String, Vec<(String, Measured)>)> = Vec::new();
    for section in &sections {
        if measured.iter().any(|(state, _)| *state == section.state) {
            continue;
        }
        let (lab, notices) = VisionLab::from_query(&section.state);
        assert!(notices.is_empty(), "{id}: {notices:?}");
        let jobs = crate::lessons::seed_jobs(
            section,
            &lab,
            lab.seed,
            |lab, seed| VisionLab { seed, ..lab.clone() },
            true,
        );
        let runs = crate::lessons::in_parallel(&jobs, |(label, lab, gpu)| (label.clone(), run(lab, *gpu)));
        measured.push((section.state.clone(), runs));
    }
    for section in &sections {
        let runs = &measured
            .iter()
            .find(|(state, _)| *state == section.state)
            .unwrap()
            .1;
        let metric = section.measure["metric"]
            .as_str()
            .or(section.measure["text"].as_str())
            .unwrap();
        for (label, m) in runs {
            eprintln!("{id} \"{}\" ({label}): {m:?}", section.heading);
            match metric {
                "filter-smoothness" => section.assert_claim(id, m.filters),
                "change-smoothness" => section.assert_claim(id, m.change),
                "most-confused" | "hardest-class" => {
                    let got = if metric == "most-confused" {
                        &m.most_confused
                    } else {
                        &m.hardest
                    };
                    assert!(
                        section.claim_is.contains(got),
                        "{id} \"{}\" ({label}): measured {got}, not one of {:?}",
                        section.heading,
                        section.claim_is
                    );
                }
                other => panic!("{id}: a metric this test does not read: {other}"),
            }
        }
    }
}

#[test]
fn the_filters_lesson_holds_over_seeds_and_backends() {
    check("vision-filters");
}

#[test]
fn the_hardest_classes_lesson_holds_over_seeds_and_backends() {
    check("vision-hardest");
}
