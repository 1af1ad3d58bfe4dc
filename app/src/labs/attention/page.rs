//! The attention page: the presets, the task and model, the training and the run bar on the
//! left, the charts on the right.

use leptos::prelude::*;

use lab_sims::attention::record::AttentionRecord;
use lab_sims::attention::Task;
use lab_state::attention::{AttentionLab as Settings, PRESETS};

use super::run::run_all;
use super::{redraw, Canvases};
use crate::layout::{record_files, RecordFiles};
use crate::recorded::{RecordedPage, Signals};
use crate::share::hidden;

#[component]
pub fn AttentionPage() -> impl IntoView {
    let page = RecordedPage::<Settings, AttentionRecord>::new(
        "press Run to train the transformer; its attention is drawn as it learns",
        "the measurements so far are shown",
    );
    let Signals { settings, error, record, status, running } = page.signals();
    let canvases = Canvases {
        accuracy: NodeRef::new(),
        losses: NodeRef::new(),
        patterns: NodeRef::new(),
        memory: NodeRef::new(),
        shown: RwSignal::new(0),
    };
    let memory = super::memory::follow(settings, canvases.memory);
    // Choosing the run whose attention is shown redraws without training again.
    page.redraw_on(
        move || canvases.shown.track(),
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
    let preset = move |ev| {
        if let Some(mut next) = Settings::preset(&event_target_value(&ev)) {
            next.hide = settings.with_untracked(|s| s.hide.clone());
            settings.set(next);
        }
    };
    view! {
        {page.frame(
            ("attention", "Train a tiny transformer and watch each head's attention form: a lookup on copying, grokking on modular addition.", "attn"),
            view! {
                <button class:hidden=hidden("run") class="primary" data-lab-start="true" data-testid="attn-run" disabled=move || running.get() on:click=go>"Run"</button>
            },
            view! {
                <label class:hidden=hidden("preset")>"Preset (sets every setting)"
                    <select data-testid="attn-preset" on:change=preset>
                        <option value="" selected=true>"choose a preset…"</option>
                        {PRESETS.iter().map(|(name, label, _)| view! { <option value=*name>{*label}</option> }).collect_view()}
                    </select>
                </label>
                <label class:hidden=hidden("task")>"Task"
                    <select data-testid="attn-task" on:change=move |ev| {
                        let t = match event_target_value(&ev).as_str() {
                            "modular" => Task::Modular,
                            "sort" => Task::Sort,
                            _ => Task::Copy,
                        };
                        set(&|s| s.task = t);
                    }>
                        <option value="copy" selected=move || settings.with(|s| s.task == Task::Copy)>"copy a sequence"</option>
                        <option value="sort" selected=move || settings.with(|s| s.task == Task::Sort)>"sort a sequence"</option>
                        <option value="modular" selected=move || settings.with(|s| s.task == Task::Modular)>"a + b mod p"</option>
                    </select>
                </label>
                {number_input("p: the modulus (a + b mod p), or the tokens' vocabulary (copy, sort)", "attn-p", |s| s.p.to_string(), |s, v| v.parse().ok().map(|x| s.p = x).is_some())}
                {number_input("Share of the pairs trained on (a + b mod p)", "attn-train_fraction", |s| s.train_fraction.to_string(), |s, v| v.parse().ok().map(|x| s.train_fraction = x).is_some())}
                {number_input("Tokens copied or sorted", "attn-len", |s| s.len.to_string(), |s, v| v.parse().ok().map(|x| s.len = x).is_some())}
                {number_input("Width (d_model)", "attn-width", |s| s.width.to_string(), |s, v| v.parse().ok().map(|x| s.width = x).is_some())}
                {number_input("Heads per block", "attn-heads", |s| s.heads.to_string(), |s, v| v.parse().ok().map(|x| s.heads = x).is_some())}
                {number_input("MLP hidden width", "attn-hidden", |s| s.hidden.to_string(), |s, v| v.parse().ok().map(|x| s.hidden = x).is_some())}
                {number_input("Blocks", "attn-blocks", |s| s.blocks.to_string(), |s, v| v.parse().ok().map(|x| s.blocks = x).is_some())}
                <label class:hidden=hidden("layer_norm")>
                    <input type="checkbox" data-testid="attn-layer_norm" prop:checked=move || settings.with(|s| s.layer_norm) on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        set(&|s| s.layer_norm = on);
                    }/>
                    " Layer norm before the attention, the MLP and the head (pre-norm, as GPT-2)"
                </label>
                {number_input("Batch (sequences a step)", "attn-batch", |s| s.batch.to_string(), |s, v| v.parse().ok().map(|x| s.batch = x).is_some())}
                {number_input("Steps", "attn-steps", |s| s.steps.to_string(), |s, v| v.parse().ok().map(|x| s.steps = x).is_some())}
                {number_input("Steps between measurements", "attn-every", |s| s.every.to_string(), |s, v| v.parse().ok().map(|x| s.every = x).is_some())}
                {number_input("Learning rate (Adam, AdamW)", "attn-lr", |s| s.lr.to_string(), |s, v| v.parse().ok().filter(|x: &f32| x.is_finite()).map(|x| s.lr = x).is_some())}
                {number_input("Weight decays compared, a run each (0: Adam)", "attn-decays", |s| s.decays.clone(), |s, v| {
                    s.decays = v.into();
                    true
                })}
                {number_input("Seed (the data, the weights' start, the batches)", "attn-seed", |s| s.seed.to_string(), |s, v| v.parse().ok().map(|x| s.seed = x).is_some())}
                {number_input("Example shown (a test sequence's number)", "attn-example", |s| s.example.to_string(), |s, v| v.parse().ok().map(|x| s.example = x).is_some())}
                {crate::controls::backend_select("attn-backend", settings)}
                {record_files(
                    RecordFiles { prefix: "attn", name: "attention", csv_label: "results CSV", record, error, status },
                    (),
                    move |r| redraw(&canvases, r),
                )}
            },
            super::figures::figures(canvases, record, memory, settings),
        )}
    }
}
