//! The precision page: the runs' settings and the run bar on the left, the charts on the right.

use leptos::prelude::*;

use engine::precision::{Format, Rounding, ALL};
use lab_sims::precision_run::PrecisionRecord;
use lab_state::precision::{Net, PrecisionLab as Settings, Scaling};

use super::run::run_all;
use super::{redraw, Canvases};
use crate::layout::{record_files, RecordFiles};
use crate::recorded::{RecordedPage, Signals};
use crate::share::{hidden, hidden_id};

/// A `<select>` of the formats, bound to one field of the custom run.
fn format_select(
    settings: RwSignal<Settings>,
    label: &'static str,
    id: &'static str,
    get: fn(&Settings) -> Format,
    put: fn(&mut Settings, Format),
) -> impl IntoView {
    view! {
        <label class:hidden=hidden_id(id)>{label}
            <select data-testid=id on:change=move |ev| {
                if let Some(f) = Format::parse(&event_target_value(&ev)) { settings.update(|s| put(s, f)) }
            }>
                {ALL.map(|f| view! {
                    <option value=f.name() selected=move || settings.with(|s| get(s) == f)>{f.name()}</option>
                }).collect_view()}
            </select>
        </label>
    }
}

#[component]
pub fn PrecisionPage() -> impl IntoView {
    let page = RecordedPage::<Settings, PrecisionRecord>::new(
        "press Run to train every run on the same batches",
        "the runs done so far are shown",
    );
    let Signals { settings, error, record, status, running } = page.signals();
    let canvases = Canvases {
        curves: NodeRef::new(),
        scale: NodeRef::new(),
        histogram: NodeRef::new(),
        inspect: RwSignal::new(String::new()),
    };
    // Choosing the run to inspect redraws what the last runs drew.
    page.redraw_on(
        move || canvases.inspect.track(),
        |r| !r.runs.is_empty(),
        move |r| redraw(&canvases, r),
    );
    let go = {
        let page = page.clone();
        move |_| {
            let s = settings.get_untracked();
            match s.configs() {
                Ok(runs) => page.start(move |run| run_all(runs, s.steps, run, canvases)),
                Err(e) => error.set(Some(e.to_string())),
            }
        }
    };
    let set = move |f: &dyn Fn(&mut Settings)| settings.update(|s| f(s));
    let number_input = crate::controls::numbers(settings, error);
    let custom = move || {
        settings.with(|s| {
            s.runs
                .split([',', ' '])
                .any(|n| n == lab_state::precision::CUSTOM)
        })
    };
    page.frame(
        ("precision", "Train the same network in fp32, fp16, bf16 and FP8, and see why mixed precision keeps an fp32 master copy and scales the loss.", "prec"),
        view! {
            <button class:hidden=hidden("run") class="primary" data-lab-start="true" data-testid="prec-run" disabled=move || running.get() on:click=go>"Run"</button>
        },
        view! {
            <label class:hidden=hidden("net")>"Network"
                <select data-testid="prec-net" on:change=move |ev| {
                    let n = if event_target_value(&ev) == "cnn" { Net::Cnn } else { Net::Mlp };
                    set(&|s| s.net = n);
                }>
                    <option value="mlp" selected=move || settings.with(|s| s.net == Net::Mlp)>"MLP 784-128-10 (ReLU)"</option>
                    <option value="cnn" selected=move || settings.with(|s| s.net == Net::Cnn)>"CNN: conv 5×5×8, pool, conv 5×5×16, pool, 10 (slower)"</option>
                </select>
            </label>
            {crate::controls::image_set_select(settings, "prec-data", |s| &s.data, |s, d| s.data = d)}
            {crate::controls::optimizer_select(settings, "prec-optimizer", |s| s.optimizer, |s, i| s.optimizer = i)}
            {number_input("Learning rate", "prec-lr", |s| s.lr.to_string(), |s, v| v.parse().ok().filter(|x: &f32| *x > 0.0 && x.is_finite()).map(|x| s.lr = x).is_some())}
            {number_input("Batch", "prec-batch", |s| s.batch.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.batch = x).is_some())}
            {number_input("Steps per run", "prec-steps", |s| s.steps.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.steps = x).is_some())}
            {number_input("Training images", "prec-images", |s| s.images.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.images = x).is_some())}
            {number_input("Runs (fp32, fp16, mixed-fp16, mixed-bf16, fp8, custom)", "prec-runs", |s| s.runs.clone(), |s, v| lab_state::precision::parse_runs(v).map(|_| s.runs = v.into()).is_ok())}
            <fieldset class:hidden=move || !custom() data-testid="prec-custom">
                <legend>"The custom run: each tensor's format"</legend>
                {format_select(settings, "Weights read by forward and backward", "prec-weights", |s| s.weights, |s, f| s.weights = f)}
                {format_select(settings, "Activations", "prec-activations", |s| s.activations, |s, f| s.activations = f)}
                {format_select(settings, "Gradients", "prec-gradients", |s| s.gradients, |s, f| s.gradients = f)}
                {format_select(settings, "Optimizer state", "prec-state", |s| s.state, |s, f| s.state = f)}
                {format_select(settings, "Master weights", "prec-master", |s| s.master, |s, f| s.master = f)}
                <label class:hidden=hidden("rounding")>"Rounding"
                    <select data-testid="prec-rounding" on:change=move |ev| {
                        let r = if event_target_value(&ev) == "stochastic" { Rounding::Stochastic } else { Rounding::Nearest };
                        set(&|s| s.rounding = r);
                    }>
                        <option value="nearest" selected=move || settings.with(|s| s.rounding == Rounding::Nearest)>"to nearest (ties to even)"</option>
                        <option value="stochastic" selected=move || settings.with(|s| s.rounding == Rounding::Stochastic)>"stochastic"</option>
                    </select>
                </label>
                <label class:hidden=hidden("scaling")>"Loss scaling"
                    <select data-testid="prec-scaling" on:change=move |ev| {
                        let k = match event_target_value(&ev).as_str() { "none" => Scaling::None, "static" => Scaling::Static, "delayed" => Scaling::Delayed, _ => Scaling::Dynamic };
                        set(&|s| s.scaling = k);
                    }>
                        <option value="none" selected=move || settings.with(|s| s.scaling == Scaling::None)>"none"</option>
                        <option value="static" selected=move || settings.with(|s| s.scaling == Scaling::Static)>"static"</option>
                        <option value="dynamic" selected=move || settings.with(|s| s.scaling == Scaling::Dynamic)>"dynamic (halve on overflow, ×2 every 200 steps)"</option>
                        <option value="delayed" selected=move || settings.with(|s| s.scaling == Scaling::Delayed)>"delayed, per tensor (amax of 16 steps)"</option>
                    </select>
                </label>
                {number_input("Scale (a power of two; dynamic: the first; delayed: unused)", "prec-scale", |s| s.scale.to_string(), |s, v| v.parse::<f32>().ok().map(|x| s.scale = x).is_some())}
            </fieldset>
            {number_input("Seed (the weights' start, the batches' order)", "prec-seed", |s| s.seed.to_string(), |s, v| v.parse::<u64>().ok().map(|x| s.seed = x).is_some())}
            {crate::controls::backend_select("prec-backend", settings)}
            {record_files(
                RecordFiles { prefix: "prec", name: "precision", csv_label: "results CSV", record, error, status },
                (),
                move |r| redraw(&canvases, r),
            )}
        },
        super::figures::figures(canvases, record),
    )
}
