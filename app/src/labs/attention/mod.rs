//! The attention lab (`/attention`): a small transformer trained live on copying or modular
//! addition, once per weight decay, with each head's attention on an example (docs/theory.md
//! §12). The model, the data and the runs are the engine's and `lab_sims::attention`'s; `page`
//! lays it out, `run` trains, `figures` shows.

pub mod draw;
mod figures;
mod lesson;
mod memory;
mod page;
mod run;
mod split;

use leptos::html::Canvas;
use leptos::prelude::*;

use lab_sims::attention::record::AttentionRecord;

use crate::attention::draw as charts;

/// The lab's page, under the name the registry's generated router mounts (`build.rs`).
pub use page::AttentionPage as Page;

#[derive(Clone, Copy)]
struct Canvases {
    accuracy: NodeRef<Canvas>,
    losses: NodeRef<Canvas>,
    patterns: NodeRef<Canvas>,
    memory: NodeRef<Canvas>,
    /// The run whose attention is shown (its index; past the last: the last).
    shown: RwSignal<usize>,
}

fn shown_run(record: &AttentionRecord, chosen: usize) -> usize {
    chosen.min(record.runs.len().saturating_sub(1))
}

/// The numbers behind each chart, as CSV.
fn tables(record: &AttentionRecord, shown: usize) {
    use crate::figures::{csv, set_table};
    let points = record.runs.iter().flat_map(|r| {
        r.points.iter().map(move |p| {
            [
                r.decay.to_string(),
                p.step.to_string(),
                p.train_accuracy.to_string(),
                p.test_accuracy.to_string(),
            ]
        })
    });
    set_table(
        "attn-accuracy",
        csv("weight_decay,step,train_accuracy,test_accuracy", points),
    );
    let losses = record.runs.iter().flat_map(|r| {
        r.points.iter().map(move |p| {
            [
                r.decay.to_string(),
                p.step.to_string(),
                p.train_loss.to_string(),
                p.test_loss.to_string(),
                p.weight_norm.to_string(),
            ]
        })
    });
    set_table(
        "attn-losses",
        csv("weight_decay,step,train_loss,test_loss,weight_norm", losses),
    );
    if let Some(run) = record.runs.get(shown) {
        let (seq, heads) = (record.plan.seq(), record.plan.heads.max(1));
        let cells = run.patterns.iter().enumerate().flat_map(|(k, square)| {
            (0..seq).flat_map(move |q| {
                (0..=q).map(move |key| {
                    [
                        (k / heads + 1).to_string(),
                        (k % heads + 1).to_string(),
                        q.to_string(),
                        key.to_string(),
                        square.get(q * seq + key).copied().unwrap_or(0.0).to_string(),
                    ]
                })
            })
        });
        set_table(
            "attn-patterns",
            csv("block,head,query_position,key_position,weight", cells),
        );
    }
}

fn redraw(c: &Canvases, record: &AttentionRecord) {
    let shown = shown_run(record, c.shown.get_untracked());
    tables(record, shown);
    if let Some(x) = c.accuracy.get_untracked() {
        charts::accuracy(x, record);
    }
    if let Some(x) = c.losses.get_untracked() {
        charts::losses(x, record);
    }
    if let (Some(x), Some(run)) = (c.patterns.get_untracked(), record.runs.get(shown)) {
        charts::patterns(x, record, run);
    }
}
