//! The precision lab's lessons (public/lessons/precision-{mixed,formats}.json): each section's
//! claim checked natively at seeds 1 to 5 through the lab's own settings and run loop (the runs
//! its measure reads; each run trains alone on the same batches from the same weights)
//! (`crate::precision_lab::record`, the page's chunks and checks), its measure read from the
//! metrics the page publishes, computed here from the same record as `app/src/labs/precision/
//! figures.rs` computes them. Needs `data/` (setup).

use std::collections::BTreeMap;

use lab_sims::precision_run::PrecisionRecord;
use lab_state::lab::LabState;
use lab_state::precision::PrecisionLab;

/// The page's metrics for every run of `record`: test accuracy (none when diverged), the step
/// it diverged at (0: it did not), gradients flushed to zero at the last check and squares
/// flushed at step 1 (percent), updates lost at the last check (a share), the final loss scale,
/// and under delayed scaling the binades between the weight-gradient tensors' scales.
fn metrics(record: &PrecisionRecord) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for r in &record.runs {
        let k = &r.label;
        let last = r.last_check();
        if let (Some(a), None) = (r.test_accuracy, r.diverged_at) {
            out.insert(format!("acc-{k}"), f64::from(a));
        }
        out.insert(format!("diverged-{k}"), r.diverged_at.map_or(0.0, |s| s as f64));
        if let Some(c) = last {
            out.insert(format!("under-{k}"), 100.0 * c.gradient_shares.underflow);
            if let Some(lost) = c.lost_updates {
                out.insert(format!("lost-{k}"), lost);
            }
        }
        if let Some(f) = r.first_squares_flushed() {
            out.insert(format!("flushed-{k}"), 100.0 * f);
        }
        out.insert(format!("scale-{k}"), f64::from(r.final_scale));
        if let Some((lo, hi)) = lab_state::precision::gradient_scale_range(r) {
            out.insert(format!("spread-{k}"), f64::from(hi - lo));
        }
    }
    out
}

fn check(id: &str) {
    for section in crate::lessons::sections(id) {
        let (lab, notices) = PrecisionLab::from_query(&section.state);
        assert!(notices.is_empty(), "{id}: {notices:?}");
        // Only the runs the measure reads (each run is independent of the others): a metric's
        // name is its kind, a dash, then the run's label.
        let expr = section.measure["expr"].as_str().unwrap_or("");
        let read: Vec<&str> = expr
            .split('{')
            .skip(1)
            .map(|part| part.split('}').next().unwrap())
            .chain(section.measure["metric"].as_str())
            .map(|name| name.split_once('-').unwrap().1)
            .collect();
        let lab = PrecisionLab {
            runs: read.join(","),
            ..lab
        };
        let seeds = section.seeds();
        let measured = crate::lessons::in_parallel(&seeds, |&seed| {
            let m = metrics(&crate::precision_lab::record(&PrecisionLab { seed, ..lab.clone() }));
            section.measure(|name| *m.get(name).unwrap_or_else(|| panic!("{id}: no {name} in {m:?}")))
        });
        for (seed, value) in seeds.iter().zip(measured) {
            eprintln!("seed {seed}:");
            section.assert_claim(id, value);
        }
    }
}

#[test]
fn mixed_precision_lesson() {
    check("precision-mixed");
}

#[test]
fn formats_lesson() {
    check("precision-formats");
}
