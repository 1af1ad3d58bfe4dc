//! The parallelism lab's lesson in words: which layouts fit the device, what a pipeline's step
//! time is made of, and how the trained layouts compare with the first.

use super::*;

/// The lesson in words: which layouts fit the device, and how the trained ones compare with the
/// first.
pub fn verdict(record: &lab_sims::parallelism::record::ParallelismRecord) -> Vec<String> {
    let mb = |b: u64| b as f64 / 1e6;
    let budget = mb(record.machine.memory);
    let mut out = Vec::new();
    let first = record.runs.first().and_then(|r| r.test_accuracy);
    for (i, e) in record.estimates.iter().enumerate() {
        let fit = if e.fits {
            format!("fits ({:.2} MB of {budget:.1} MB per device)", mb(e.peak))
        } else {
            format!("does not fit: {:.2} MB > {budget:.1} MB", mb(e.peak))
        };
        let trained = match record.runs.get(i) {
            Some(r) => match (r.diverged_at, r.test_accuracy, first) {
                (Some(s), _, _) => format!(", diverged at step {s}"),
                (None, Some(a), Some(f)) if i > 0 => format!(
                    ", {:.1} % test accuracy ({:+.1} points against {}; {})",
                    a * 100.0,
                    (a - f) * 100.0,
                    record.runs[0].layout.label(),
                    match (r.first_step_gap, r.weight_gap) {
                        (_, Some(0.0)) => "bit-identical weights".to_string(),
                        (Some(g), _) => format!("its first update within {g:.0e}"),
                        _ => "weights not compared".to_string(),
                    }
                ),
                (None, Some(a), _) => format!(", {:.1} % test accuracy", a * 100.0),
                _ => String::new(),
            },
            None => String::new(),
        };
        out.push(format!(
            "{} on {} device(s): {fit}, {:.2} ms a step{}{trained}.",
            e.layout.label(),
            e.layout.devices(),
            e.step_seconds * 1e3,
            pipeline_breakdown(record, e)
        ));
    }
    out
}

/// Where a pipeline's step time goes (docs/theory.md §8.1): its bubble, and the share of the
/// fixed cost per pass, which every stage pays for every micro-batch, shown by the same layout
/// estimated without it. Empty for a layout without a pipeline.
fn pipeline_breakdown(record: &lab_sims::parallelism::record::ParallelismRecord, e: &Estimate) -> String {
    if e.timeline.is_none() || record.machine.step_overhead <= 0.0 {
        return String::new();
    }
    let free = Machine {
        step_overhead: 0.0,
        ..record.machine
    };
    let Ok(without) = estimate(&e.layout, &record.profile, record.config.batch, &free) else {
        return String::new();
    };
    format!(
        " (bubble {:.0} %; {:.2} ms of it is the fixed {:.2} ms per pass, paid on each of {} stages \
         for each of {} micro-batches: without it {:.2} ms)",
        e.bubble * 100.0,
        (e.step_seconds - without.step_seconds) * 1e3,
        record.machine.step_overhead * 1e3,
        e.layout.stages,
        e.layout.micro,
        without.step_seconds * 1e3
    )
}
