//! The sparsity lab (`/sparsity`): iterative magnitude pruning and the lottery ticket hypothesis,
//! trained for real on MNIST (docs/theory.md §10). Every run is a masked trainer of the same
//! config (`Trainer::set_mask`), on the same batches; the pruning, the masks and the experiment
//! are `lab_sims::sparsity`'s. `page` lays it out, `run` trains, `figures` shows.

pub mod draw;
mod figures;
mod lesson;
mod page;
mod run;
mod timing;

use leptos::html::Canvas;
use leptos::prelude::*;

use lab_sims::sparsity::lottery::Condition;
use lab_sims::sparsity::masks::Scope;
use lab_sims::sparsity::record::SparsityRecord;

use crate::sparsity::draw as charts;

/// The lab's page, under the name the registry's generated router mounts (`build.rs`).
pub use page::SparsityPage as Page;

#[derive(Clone, Copy)]
struct Canvases {
    accuracy: NodeRef<Canvas>,
    curves: NodeRef<Canvas>,
    mask: NodeRef<Canvas>,
    layers: NodeRef<Canvas>,
    /// The round the training curves and the mask picture show (0: the last trained).
    round: RwSignal<usize>,
}

/// The round shown: the chosen one if trained, else the last.
fn shown_round(record: &SparsityRecord, chosen: usize) -> usize {
    let last = record.runs.iter().map(|r| r.round).max().unwrap_or(0);
    if chosen >= 1 && chosen <= last {
        chosen
    } else {
        last
    }
}

/// The numbers behind each chart, as CSV.
fn tables(record: &SparsityRecord, round: usize) {
    use crate::figures::{csv, set_table};
    let points = record.runs.iter().map(|r| {
        [
            r.condition.name().to_string(),
            r.round.to_string(),
            (100.0 * r.sparsity).to_string(),
            r.test_accuracy.to_string(),
        ]
    });
    let one_shot = record.one_shot.iter().map(|o| {
        let scope = if o.scope == Scope::Global {
            "one-shot global"
        } else {
            "one-shot per layer"
        };
        [
            scope.to_string(),
            String::new(),
            (100.0 * o.sparsity).to_string(),
            o.test_accuracy.to_string(),
        ]
    });
    set_table(
        "sparse-accuracy",
        csv(
            "condition,round,sparsity_percent,test_accuracy",
            points.chain(one_shot),
        ),
    );
    let curves = (record.runs.iter())
        .filter(|r| r.round == round || r.condition == Condition::Dense)
        .flat_map(|r| {
            r.curve.iter().map(move |(s, a)| {
                [
                    r.condition.name().to_string(),
                    r.round.to_string(),
                    s.to_string(),
                    a.to_string(),
                ]
            })
        });
    set_table("sparse-curves", csv("condition,round,step,test_accuracy", curves));
    if let Some(t) = record.run(Condition::Ticket, round) {
        let pixels = t
            .input_kept
            .iter()
            .enumerate()
            .map(|(k, n)| [k.to_string(), n.to_string()]);
        set_table("sparse-mask", csv("input,first_layer_weights_kept", pixels));
    }
    let layers = (record.runs.iter())
        .filter(|r| r.condition == Condition::Ticket)
        .flat_map(|r| {
            (r.layer_sparsity.iter().enumerate())
                .map(move |(l, s)| [r.round.to_string(), (l + 1).to_string(), (100.0 * s).to_string()])
        });
    set_table("sparse-layers", csv("round,layer,pruned_percent", layers));
}

fn redraw(c: &Canvases, record: &SparsityRecord) {
    let round = shown_round(record, c.round.get_untracked());
    tables(record, round);
    if let Some(x) = c.accuracy.get_untracked() {
        charts::accuracy(x, record);
    }
    if let Some(x) = c.curves.get_untracked() {
        charts::curves(x, record, round);
    }
    if let (Some(x), Some(t)) = (
        c.mask.get_untracked(),
        record
            .run(Condition::Ticket, round)
            .or(record.run(Condition::Dense, 0)),
    ) {
        let units = match &record.config.model {
            engine::train::ModelConfig::Mlp { hidden, .. } => hidden.first().copied().unwrap_or(10),
            _ => 10,
        };
        charts::input_mask(x, t, units);
    }
    if let Some(x) = c.layers.get_untracked() {
        charts::layers(x, record);
    }
}
