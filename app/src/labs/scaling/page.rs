//! The scaling page: the sweep's settings and the run bar on the left, the charts on the right.

use leptos::prelude::*;

use lab_sims::scaling::{Rule, SweepRecord};
use lab_state::landscape::Network;
use lab_state::scaling::ScalingLab as Settings;

use super::run::run_sweep;
use super::{redraw, Canvases};
use crate::browser;
use crate::layout::{record_files, RecordFiles};
use crate::recorded::{RecordedPage, Signals};
use crate::share::hidden;

#[component]
pub fn ScalingPage() -> impl IntoView {
    let page = RecordedPage::<Settings, SweepRecord>::new(
        "choose the batch sizes and press Run sweep",
        "the runs done so far are shown",
    );
    let Signals { settings, error, record, status, running } = page.signals();
    let canvases = Canvases {
        steps: NodeRef::new(),
        examples: NodeRef::new(),
        heatmap: NodeRef::new(),
        generalization: NodeRef::new(),
        curves: NodeRef::new(),
        noise: NodeRef::new(),
        log_loss: RwSignal::new(false),
    };
    // The log toggle redraws what the last sweep drew.
    page.redraw_on(
        move || canvases.log_loss.track(),
        |r| !r.runs.is_empty(),
        move |r| redraw(&canvases, r),
    );
    let go = {
        let page = page.clone();
        move |_| match settings.get_untracked().sweep() {
            Ok(sweep) => page.start(move |run| run_sweep(sweep, run, canvases)),
            Err(e) => error.set(Some(e.to_string())),
        }
    };
    let export_config = move |_| match settings.get_untracked().sweep() {
        Ok(s) => browser::download(
            "sweep.json",
            "application/json",
            &serde_json::to_string_pretty(&s).unwrap_or_default(),
        ),
        Err(e) => error.set(Some(e.to_string())),
    };
    let set = move |f: &dyn Fn(&mut Settings)| settings.update(|s| f(s));
    let number_input = crate::controls::numbers(settings, error);

    page.frame(
        ("batch size and learning rate", "Is a bigger batch free? Sweep it, and compare with the scaling rules.", "scale"),
        view! {
            <button class:hidden=hidden("run") class="primary" data-lab-start="true" data-testid="scale-run" disabled=move || running.get() on:click=go>"Run sweep"</button>
        },
        view! {
            {crate::controls::data_select(settings, "scale-data", |s| s.data, |s, d| {
                s.data = d;
                s.network = if d.is_images() { Network::Mlp } else { Network::Toy };
            })}
            {crate::controls::optimizer_select(settings, "scale-optimizer", |s| s.optimizer, |s, i| s.optimizer = i)}
            {number_input("Batch sizes", "scale-batches", |s| s.batches.clone(), |s, v| { s.batches = v.into(); true })}
            {number_input("Base learning rate", "scale-lr", |s| s.base_lr.to_string(), |s, v| v.parse().ok().filter(|x: &f32| *x > 0.0 && x.is_finite()).map(|x| s.base_lr = x).is_some())}
            {number_input("at batch", "scale-base-batch", |s| s.base_batch.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.base_batch = x).is_some())}
            <label class:hidden=hidden("rule")>"Scaling rule"
                <select data-testid="scale-rule" on:change=move |ev| {
                    let r = match event_target_value(&ev).as_str() { "linear" => Rule::Linear, "sqrt" => Rule::Sqrt, _ => Rule::None };
                    set(&|s| s.rule = r);
                }>
                    {[(Rule::None, "none: the same η for every batch"), (Rule::Linear, "linear: η × B/B₀ (Goyal et al.)"), (Rule::Sqrt, "square root: η × √(B/B₀)")].map(|(r, label)| view! {
                        <option value=r.key() selected=move || settings.with(|s| s.rule == r)>{label}</option>
                    }).collect_view()}
                </select>
            </label>
            {number_input("Learning-rate factors (a heatmap when several)", "scale-factors", |s| s.lr_factors.clone(), |s, v| { s.lr_factors = v.into(); true })}
            {number_input("Warmup (epochs, 0 = none)", "scale-warmup", |s| s.warmup_epochs.to_string(), |s, v| v.parse::<f32>().ok().map(|x| s.warmup_epochs = x).is_some())}
            <label class:hidden=hidden("target-kind")>"Target"
                <select data-testid="scale-target-kind" on:change=move |ev| {
                    let acc = event_target_value(&ev) == "accuracy";
                    set(&|s| { s.target_accuracy = acc; s.target = if acc { 0.9 } else { 0.5 }; });
                }>
                    <option value="loss" selected=move || settings.with(|s| !s.target_accuracy)>"training loss at most"</option>
                    <option value="accuracy" selected=move || settings.with(|s| s.target_accuracy)>"training accuracy at least"</option>
                </select>
            </label>
            {number_input("Target value", "scale-target", |s| s.target.to_string(), |s, v| v.parse().ok().filter(|x: &f32| *x > 0.0 && x.is_finite()).map(|x| s.target = x).is_some())}
            {number_input("Step budget per run", "scale-max-steps", |s| s.max_steps.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.max_steps = x).is_some())}
            {number_input("Noise scale every N steps (0 = off)", "scale-noise-every", |s| s.noise_every.to_string(), |s, v| v.parse().map(|x| s.noise_every = x).is_ok())}
            {number_input("Seed (the weights' start, the batches' order)", "scale-seed", |s| s.seed.to_string(), |s, v| v.parse::<u64>().ok().map(|x| s.seed = x).is_some())}
            {crate::controls::backend_select("scale-backend", settings)}
            {record_files(
                RecordFiles { prefix: "scale", name: "sweep", csv_label: "results CSV", record, error, status },
                view! { <button class:hidden=hidden("export-config") data-testid="scale-export-config" on:click=export_config>"engine config JSON"</button> },
                move |r| redraw(&canvases, r),
            )}
        },
        super::figures::figures(canvases, record),
    )
}
