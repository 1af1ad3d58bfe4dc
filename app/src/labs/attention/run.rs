//! Training the experiment: a run per weight decay, one after another on the chosen backend, on
//! the same data and initial weights; each measurement is drawn as it comes.

use crate::error::RunError;
use leptos::prelude::*;

use lab_sims::attention::record::{AttentionRecord, AttentionRun};
use lab_sims::attention::run::{example, run as train_run};
use lab_state::attention::AttentionLab;

use super::{redraw, Canvases};
use crate::recorded::Run;

/// Puts `r` in the record as run `i` (replacing what an earlier measurement put there).
fn put(rec: &mut AttentionRecord, i: usize, r: AttentionRun) {
    if i < rec.runs.len() {
        rec.runs[i] = r;
    } else {
        rec.runs.push(r);
    }
}

pub async fn run_all(s: AttentionLab, run: Run<AttentionRecord>, canvases: Canvases) -> Result<(), RunError> {
    let plan = s.plan();
    let mut gpu = run.gpu().await;
    run.status.set("making the data…".into());
    let (train, test) = plan.data();
    let (tokens, answer) = example(&plan, &test);
    run.record
        .set(Some(AttentionRecord::new(plan.clone(), tokens, answer)));
    let n = plan.decays.len();
    let steps = plan.steps.max(1) as f64;
    run.each(
        &mut gpu,
        &plan.decays,
        |d| format!("weight decay {d}, {} steps", plan.steps),
        async |i, decay, gpu, pacer| {
            let out = train_run(&plan, *decay, gpu, (&train, &test), |r| {
                let done = r.last().map_or(0, |p| p.step) as f64;
                run.record.update(|rec| {
                    if let Some(rec) = rec {
                        put(rec, i, r.clone());
                        redraw(&canvases, rec);
                    }
                });
                run.go_on(pacer, (i, n, done / steps))
            })
            .await;
            out.map_err(RunError::from).map(|r| (i, r))
        },
        |rec, (i, r)| put(rec, i, r),
        |rec| redraw(&canvases, rec),
    )
    .await
}
