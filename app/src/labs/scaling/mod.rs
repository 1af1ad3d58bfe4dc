//! The batch-size and learning-rate scaling lab (`/scaling`): a sweep trains one run per batch
//! size (and learning-rate factor) from the same initial weights until a target, one after another
//! on the chosen backend, and lays the results beside the published rules (docs/theory.md §5). The
//! math — rules, warmup, steps-to-target, the noise scale — is the engine's (`lab_sims::scaling`).
//! `page` lays it out, `run` trains the sweep.

pub mod draw;
pub mod runs_chart;
mod figures;
mod lesson;
mod page;
mod run;

use leptos::html::Canvas;
use leptos::prelude::*;

use lab_sims::scaling::{raw_b_simple, RunResult, SweepRecord};

use crate::scaling::draw as charts;

/// The lab's page, under the name the registry's generated router mounts (`build.rs`).
pub use page::ScalingPage as Page;

#[derive(Clone, Copy)]
struct Canvases {
    steps: NodeRef<Canvas>,
    examples: NodeRef<Canvas>,
    heatmap: NodeRef<Canvas>,
    generalization: NodeRef<Canvas>,
    curves: NodeRef<Canvas>,
    noise: NodeRef<Canvas>,
    /// Whether the loss curves' y axis is logarithmic.
    log_loss: RwSignal<bool>,
}

/// The numbers behind the charts: one row per run for the summaries, one per step for curves.
fn tables(runs: &[RunResult]) {
    use crate::figures::{csv, set_table};
    let opt = |v: Option<String>| v.unwrap_or_default();
    let summary = csv(
        "batch,learning_rate,steps_to_target,examples_to_target,final_loss,train_accuracy,test_accuracy,diverged,stalled_at",
        runs.iter().map(|r| {
            [
                r.batch.to_string(),
                r.learning_rate.to_string(),
                opt(r.steps_to_target.map(|v| v.to_string())),
                opt(r.examples_to_target.map(|v| v.to_string())),
                r.final_loss.to_string(),
                r.train_accuracy.to_string(),
                opt(r.test_accuracy.map(|v| v.to_string())),
                r.diverged.to_string(),
                opt(r.stalled_at.map(|v| v.to_string())),
            ]
        }),
    );
    for id in [
        "scale-steps",
        "scale-examples",
        "scale-heatmap",
        "scale-generalization",
    ] {
        set_table(id, summary.clone());
    }
    let curves = runs.iter().flat_map(|r| {
        r.losses.iter().enumerate().map(move |(k, l)| {
            let lr = r.learning_rates.get(k).map_or(String::new(), f32::to_string);
            [
                r.batch.to_string(),
                r.learning_rate.to_string(),
                (k + 1).to_string(),
                l.to_string(),
                lr,
            ]
        })
    });
    set_table(
        "scale-curves",
        csv("batch,learning_rate,step,loss,learning_rate_at_step", curves),
    );
    let noise = runs.iter().flat_map(|r| {
        r.noise_raw.iter().map(move |&m| {
            let window = r.noise_scale.iter().find(|p| p.0 == m.0).map(|p| p.1);
            [
                r.batch.to_string(),
                r.learning_rate.to_string(),
                m.0.to_string(),
                m.1.to_string(),
                m.2.to_string(),
                opt(raw_b_simple(m).map(|b| b.to_string())),
                opt(window.map(|b| b.to_string())),
            ]
        })
    });
    set_table(
        "scale-noise",
        csv(
            "batch,learning_rate,step,g2,trace,b_simple_raw,b_simple_window",
            noise,
        ),
    );
}

fn redraw(c: &Canvases, record: &SweepRecord) {
    let (s, runs) = (&record.sweep, &record.runs[..]);
    tables(runs);
    let b = lab_state::scaling::critical_batch(runs);
    if let Some(x) = c.steps.get_untracked() {
        charts::to_target(x, s, runs, false, b);
    }
    if let Some(x) = c.examples.get_untracked() {
        charts::to_target(x, s, runs, true, b);
    }
    if let Some(x) = c.heatmap.get_untracked() {
        charts::heatmap(x, s, runs);
    }
    if let Some(x) = c.generalization.get_untracked() {
        charts::generalization(x, s, runs);
    }
    if let Some(x) = c.curves.get_untracked() {
        crate::scaling::runs_chart::curves(x, runs, c.log_loss.get_untracked());
    }
    if let Some(x) = c.noise.get_untracked() {
        crate::scaling::runs_chart::noise(x, runs);
    }
}
