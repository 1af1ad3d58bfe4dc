//! The precision lab (`/precision`): the same network trained in fp32, naive fp16, mixed fp16,
//! bf16 and FP8 (and a custom choice per tensor class) on the same batches from the same
//! weights, side by side (docs/theory.md §7). The formats, the rounding and the loss scaler are
//! the engine's (`engine::precision`); `page` lays it out, `run` trains, `figures` shows.

pub mod draw;
mod figures;
mod lesson;
mod page;
mod run;

use leptos::html::Canvas;
use leptos::prelude::*;

use lab_sims::precision_run::{PrecisionRecord, PrecisionRun};

use crate::precision::draw as charts;

/// The lab's page, under the name the registry's generated router mounts (`build.rs`).
pub use page::PrecisionPage as Page;

#[derive(Clone, Copy)]
struct Canvases {
    curves: NodeRef<Canvas>,
    scale: NodeRef<Canvas>,
    histogram: NodeRef<Canvas>,
    /// The run whose gradients the histogram shows (its label).
    inspect: RwSignal<String>,
}

/// The run to inspect: the chosen one, else the first with reduced gradients that got as far as
/// a check (a run that diverged at once has none), else the first.
fn inspected<'a>(record: &'a PrecisionRecord, chosen: &str) -> Option<&'a PrecisionRun> {
    let reduced = |r: &&PrecisionRun| r.precision.gradients != engine::precision::Format::F32;
    record
        .runs
        .iter()
        .find(|r| r.label == chosen)
        .or_else(|| record.runs.iter().find(|r| reduced(r) && !r.checks.is_empty()))
        .or(record.runs.first())
}

/// The numbers behind each chart, as CSV.
fn tables(record: &PrecisionRecord, run: Option<&PrecisionRun>) {
    use crate::figures::{csv, set_table};
    // The loss at every step; the training accuracy at the steps the run was checked.
    let curves = record.runs.iter().flat_map(|r| {
        r.losses.iter().enumerate().map(move |(k, l)| {
            let step = k as u64 + 1;
            let acc = r.checks.iter().find(|c| c.step == step);
            [
                r.label.clone(),
                step.to_string(),
                l.to_string(),
                acc.map_or(String::new(), |c| c.accuracy.to_string()),
            ]
        })
    });
    set_table("prec-curves", csv("run,step,loss,train_accuracy", curves));
    // The one loss scale of a dynamic run at every step; each weight gradient's own scale of a
    // delayed run at its checks.
    let global = record.runs.iter().flat_map(|r| {
        r.scale_events.iter().map(move |e| {
            [
                r.label.clone(),
                e.step.to_string(),
                "loss".to_string(),
                e.scale.to_string(),
                e.overflow.to_string(),
            ]
        })
    });
    let per_tensor = record.runs.iter().flat_map(|r| {
        r.checks.iter().flat_map(move |c| {
            c.gradient_scales.iter().enumerate().map(move |(t, k)| {
                [
                    r.label.clone(),
                    c.step.to_string(),
                    format!("weight gradient {}", t + 1),
                    2f64.powi(*k).to_string(),
                    "false".to_string(),
                ]
            })
        })
    });
    set_table(
        "prec-scale",
        csv("run,step,tensor,scale,overflow_skipped", global.chain(per_tensor)),
    );
    if let Some(r) = run {
        let rows = r.checks.iter().flat_map(|c| {
            c.histograms.iter().enumerate().flat_map(move |(l, h)| {
                h.counts.iter().enumerate().map(move |(i, n)| {
                    [
                        c.step.to_string(),
                        c.scale.to_string(),
                        (l + 1).to_string(),
                        (h.lowest + i as i32).to_string(),
                        n.to_string(),
                    ]
                })
            })
        });
        set_table(
            "prec-histogram",
            csv("step,loss_scale,layer,exponent_stored,count", rows),
        );
    }
}

/// The charts while `run` trains: the finished runs and it.
fn redraw_live(c: &Canvases, record: &PrecisionRecord, run: &PrecisionRun) {
    let mut shown = record.clone();
    shown.runs.push(run.clone());
    redraw(c, &shown);
}

fn redraw(c: &Canvases, record: &PrecisionRecord) {
    let chosen = c.inspect.get_untracked();
    let run = inspected(record, &chosen);
    tables(record, run);
    if let Some(x) = c.curves.get_untracked() {
        charts::curves(x, &record.runs);
    }
    if let Some(x) = c.scale.get_untracked() {
        charts::scale(x, &record.runs);
    }
    if let (Some(x), Some(r)) = (c.histogram.get_untracked(), run) {
        // The last step that was not skipped (a skipped step's gradients hold infinities).
        if let Some(check) = r.checks.iter().rev().find(|k| !k.skipped).or(r.checks.last()) {
            charts::histogram(x, r, check, r.gradient_format());
        }
    }
}
