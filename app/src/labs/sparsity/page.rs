//! The sparsity page: the experiment's settings and the run bar on the left, the charts on the right.

use leptos::prelude::*;

use lab_sims::sparsity::masks::Scope;
use lab_sims::sparsity::record::SparsityRecord;
use lab_state::sparsity::{parse_conditions, parse_hidden, Net, SparsityLab as Settings};

use super::run::run_all;
use super::{redraw, Canvases};
use crate::layout::{record_files, RecordFiles};
use crate::recorded::{RecordedPage, Signals};
use crate::share::hidden;

#[component]
pub fn SparsityPage() -> impl IntoView {
    let page = RecordedPage::<Settings, SparsityRecord>::new(
        "press Run to train the dense network and its pruned tickets on the same batches",
        "the runs done so far are shown",
    );
    let Signals { settings, error, record, status, running } = page.signals();
    let canvases = Canvases {
        accuracy: NodeRef::new(),
        curves: NodeRef::new(),
        mask: NodeRef::new(),
        layers: NodeRef::new(),
        round: RwSignal::new(0),
    };
    // Choosing the round to show redraws what the last runs drew.
    page.redraw_on(
        move || canvases.round.track(),
        |r| !r.runs.is_empty(),
        move |r| redraw(&canvases, r),
    );
    let go = {
        let page = page.clone();
        move |_| {
            let s = settings.get_untracked();
            page.start(move |run| run_all(s, run, canvases));
        }
    };
    let set = move |f: &dyn Fn(&mut Settings)| settings.update(|s| f(s));
    let number_input = crate::controls::numbers(settings, error);
    page.frame(
        ("sparsity", "Prune a trained network by magnitude, find its lottery ticket, and see what the mask and the initial weights each contribute.", "sparse"),
        view! {
            <button class:hidden=hidden("run") class="primary" data-lab-start="true" data-testid="sparse-run" disabled=move || running.get() on:click=go>"Run"</button>
        },
        view! {
            <label class:hidden=hidden("net")>"Network"
                <select data-testid="sparse-net" on:change=move |ev| {
                    let n = if event_target_value(&ev) == "cnn" { Net::Cnn } else { Net::Mlp };
                    set(&|s| s.net = n);
                }>
                    <option value="mlp" selected=move || settings.with(|s| s.net == Net::Mlp)>"MLP (ReLU, the widths below)"</option>
                    <option value="cnn" selected=move || settings.with(|s| s.net == Net::Cnn)>"CNN: conv 5×5×8, pool, conv 5×5×16, pool, 10 (slower)"</option>
                </select>
            </label>
            {crate::controls::image_set_select(settings, "sparse-data", |s| &s.data, |s, d| s.data = d)}
            {number_input("Hidden widths (the MLP)", "sparse-hidden", |s| s.hidden.clone(), |s, v| parse_hidden(v).map(|_| s.hidden = v.into()).is_ok())}
            {number_input("Training images", "sparse-images", |s| s.images.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.images = x).is_some())}
            {crate::controls::optimizer_select(settings, "sparse-optimizer", |s| s.optimizer, |s, i| s.optimizer = i)}
            {number_input("Learning rate", "sparse-lr", |s| s.lr.to_string(), |s, v| v.parse().ok().filter(|x: &f32| *x > 0.0 && x.is_finite()).map(|x| s.lr = x).is_some())}
            {number_input("Batch", "sparse-batch", |s| s.batch.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.batch = x).is_some())}
            {number_input("Steps per run", "sparse-steps", |s| s.steps.to_string(), |s, v| v.parse::<u64>().ok().map(|x| s.steps = x).is_some())}
            {number_input("Rounds of pruning", "sparse-rounds", |s| s.rounds.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.rounds = x).is_some())}
            {number_input("Share of the remaining weights each round prunes", "sparse-prune", |s| s.prune.to_string(), |s, v| v.parse::<f64>().ok().map(|x| s.prune = x).is_some())}
            <label class:hidden=hidden("scope")>"Pruning threshold"
                <select data-testid="sparse-scope" on:change=move |ev| {
                    let scope = if event_target_value(&ev) == "per_layer" { Scope::PerLayer } else { Scope::Global };
                    set(&|s| s.scope = scope);
                }>
                    <option value="global" selected=move || settings.with(|s| s.scope == Scope::Global)>"global (one threshold)"</option>
                    <option value="per_layer" selected=move || settings.with(|s| s.scope == Scope::PerLayer)>"per layer (same share each)"</option>
                </select>
            </label>
            {number_input("Conditions (ticket, rewind, reinit, random, finetune, set, rigl, structured)", "sparse-conditions", |s| s.conditions.clone(), |s, v| parse_conditions(v).map(|_| s.conditions = v.into()).is_ok())}
            {number_input("Rewind step (the rewind condition)", "sparse-rewind_step", |s| s.rewind_step.to_string(), |s, v| v.parse::<u64>().ok().map(|x| s.rewind_step = x).is_some())}
            {number_input("Group lasso λ on the MLP's neurons (0: none)", "sparse-group_lasso", |s| s.group_lasso.to_string(), |s, v| v.parse::<f32>().ok().filter(|x| x.is_finite()).map(|x| s.group_lasso = x).is_some())}
            {number_input("Seed (the weights' start, the batches' order)", "sparse-seed", |s| s.seed.to_string(), |s, v| v.parse::<u64>().ok().map(|x| s.seed = x).is_some())}
            {crate::controls::backend_select("sparse-backend", settings)}
            {record_files(
                RecordFiles { prefix: "sparse", name: "sparsity", csv_label: "results CSV", record, error, status },
                (),
                move |r| redraw(&canvases, r),
            )}
        },
        super::figures::figures(canvases, record),
    )
}
