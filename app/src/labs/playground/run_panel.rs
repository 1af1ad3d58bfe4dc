//! The playground's run bar: train, pause, step, reset, the speed, the readouts, and the
//! downloads. Every button sends a command to the session, which answers on the readouts.

use std::rc::Rc;

use leptos::prelude::*;

use super::controls::{fmt_opt, on, percent};
use super::lab::{GpuStatus, Lab, Speed};
use super::command::Command;
use crate::share::hidden;

pub fn run_panel(lab: &Rc<Lab>) -> impl IntoView {
    let state = lab.state;
    let r = lab.readouts;
    let busy = move || r.gpu.get() == GpuStatus::Detecting;
    // Regression has no classes: accuracy does not apply.
    let regression = move || state.with(|s| s.dataset.is_regression());
    let send = |c: Command| on(lab, move |l| l.send(c));
    view! {
        <section class="runbar" aria-label="run">
            <div class="buttons">
                <button data-testid="train" data-lab-start="true" class="primary" disabled=move || busy() || r.running.get()
                    on:click=send(Command::Train)>"Train"</button>
                <button data-testid="pause" data-lab-pause="true" disabled=move || !r.running.get()
                    on:click=send(Command::Pause)>"Pause"</button>
                <button data-testid="step-once" class:hidden=hidden("step") disabled=move || busy() || r.running.get()
                    on:click=send(Command::Step)>"Step"</button>
                <button data-testid="reset" disabled=busy on:click=send(Command::Reset)>"Reset"</button>
            </div>
            <label class="inline" class:hidden=hidden("speed")>"Speed"
                <select data-testid="speed-choice" on:change={ let lab = lab.clone(); move |ev| {
                    let key = event_target_value(&ev);
                    lab.update(move |s| s.speed = key);
                }}>
                    {Speed::CHOICES.map(|(speed, label)| { let now = lab.state; view! { <option value=speed.key() selected=move || now.with(|s| s.speed == speed.key())>{label}</option> } }).collect_view()}
                </select>
            </label>
            <dl class="readouts">
                <div><dt>"Step"</dt><dd data-testid="step" data-metric="step">{move || r.step.get()}</dd></div>
                <div class="minor"><dt>"Epoch"</dt><dd data-testid="epoch">{move || r.epoch.get()}</dd></div>
                <div class="minor"><dt>"Batch loss"</dt><dd data-testid="loss" data-metric="loss">{move || fmt_opt(r.loss.get(), 4)}</dd></div>
                <div class="minor"><dt>"Loss at step 1"</dt><dd data-testid="loss-start">{move || fmt_opt(r.first_loss.get(), 4)}</dd></div>
                <div><dt>"Test loss"</dt><dd data-testid="test-loss" data-metric="test-loss">{move || fmt_opt(r.test_loss.get(), 4)}</dd></div>
                <div class="minor"><dt>"Batch accuracy"</dt><dd data-testid="accuracy" data-metric="batch-accuracy">{move || percent(r.accuracy.get().filter(|_| !regression()))}</dd></div>
                <div><dt>"Test accuracy"</dt><dd data-testid="test-accuracy" data-metric="test-accuracy">{move || percent(r.test_accuracy.get().filter(|_| !regression()))}</dd></div>
                <div class="minor" title="The size of each layer's weight gradient on a fixed batch, input layer first: a first layer's far smaller than the last's is a vanishing gradient.">
                    <dt>"‖∇W‖ by layer"</dt>
                    <dd data-testid="grad-norms">{move || r.gradient_norms.with(|n| if n.is_empty() { "–".into_any() } else {
                        n.iter().enumerate().map(|(i, v)| view! { <span data-metric=format!("grad-norm-{}", i + 1) data-metric-value=v.to_string()>{format!("{}{v:.1e}", if i == 0 { "" } else { " · " })}</span> }).collect_view().into_any()
                    })}</dd>
                </div>
                <div><dt>"Steps / s"</dt>
                <dd data-testid="speed">{move || r.steps_per_second.get().map_or("–".into(), |v| format!("{v:.0}"))}</dd></div>
                <div><dt>"Runs on"</dt><dd data-testid="device" title=move || r.backend_reason.get().unwrap_or_default()>{move || r.backend.get()}</dd></div>
            </dl>
            <p class="muted small refusal" data-testid="applied" role="status">{move || r.applied.get().unwrap_or_default()}</p>
            <p class="muted small refusal" data-testid="run-refusal" role="status">{move || r.refusal.get().unwrap_or_default()}</p>
            <p class="muted small minor" data-testid="backend-reason">{move || r.backend_reason.get().unwrap_or_default()}</p>
            <p class="muted small minor" data-testid="cpu-cores" class:hidden=move || r.cores.with(String::is_empty)>{move || format!("CPU path: {}", r.cores.get())}</p>
        </section>
    }
}

/// The playground's own downloads (each chart also has its PNG and CSV under it).
pub fn downloads(lab: &Rc<Lab>) -> impl IntoView {
    let send = |c: Command| on(lab, move |l| l.send(c));
    view! {
        <div class="buttons wrap" class:hidden=hidden("export")>
            <button data-testid="export-weights" on:click=send(Command::ExportWeights)>"Weights (JSON)"</button>
            <button data-testid="export-loss" on:click=on(lab, super::tables::export_losses)>"Loss (CSV)"</button>
            <button data-testid="export-heatmap" on:click=on(lab, super::tables::export_heatmap)>"Heatmap (PNG)"</button>
        </div>
    }
}
