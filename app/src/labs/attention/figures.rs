//! The attention lab's views: accuracy over training first (where grokking shows), the verdict
//! and a table of each run's end, every head's attention on the example, and the losses with
//! the weights' norm.

use leptos::prelude::*;

use lab_sims::attention::decay_key;
use lab_sims::attention::record::AttentionRecord;

use super::Canvases;

/// One row per run: where it ended, and when it fitted and generalized.
fn rows(r: &AttentionRecord) -> impl IntoView {
    let head = view! {
        <tr><th>"weight decay"</th><th>"step"</th><th>"training accuracy"</th><th>"test accuracy"</th><th>"fitted (training ≥ 99 %) at step"</th><th>"generalized (test ≥ 95 %) at step"</th><th>"‖θ‖₂"</th></tr>
    };
    let body = r.runs.iter().map(|run| {
        let key = decay_key(run.decay);
        // The record's own metrics, as the lessons and the native tests read them.
        let metric = |kind: &str| r.metric(&format!("{kind}-{key}"));
        // A cell of metric `kind`, its text `text` of the value, or `none` without one.
        let cell = |kind: &str, text: &dyn Fn(f64) -> String, none: &str| {
            let v = metric(kind);
            view! { <td data-metric=format!("{kind}-{key}") data-metric-value=v.map_or(String::new(), |v| v.to_string())>{v.map_or(none.to_string(), text)}</td> }
        };
        let (percent, step) = (|v: f64| format!("{v:.1} %"), |s: f64| format!("{s:.0}"));
        view! {
            <tr>
                <td>{run.decay.to_string()}{run.stopped.clone().map(|s| format!(" ({s})"))}</td>
                <td>{run.last().map_or(0, |p| p.step).to_string()}</td>
                {cell("train-acc", &percent, "–")}
                {cell("test-acc", &percent, "–")}
                {cell("fit-step", &step, "not yet")}
                {cell("grok-step", &step, "not yet")}
                {cell("norm", &|n| format!("{n:.1}"), "–")}
            </tr>
        }
    }).collect_view();
    let answer = r.metric("answer-attention");
    view! {
        {head}{body}
        <tr hidden><td data-metric="answer-attention" data-metric-value=answer.map_or(String::new(), |a| a.to_string())></td></tr>
    }
}

/// The example in words, above its attention.
fn example_text(r: &AttentionRecord) -> String {
    let tokens: Vec<String> = r.example.iter().map(|t| r.plan.token_name(*t)).collect();
    format!(
        "Example (test sequence {}): {} → answer {}",
        r.plan.example,
        tokens.join(" "),
        r.plan.token_name(r.answer)
    )
}

pub fn figures(
    canvases: Canvases,
    record: RwSignal<Option<AttentionRecord>>,
    memory: super::memory::Memory,
    settings: RwSignal<lab_state::attention::AttentionLab>,
) -> impl IntoView {
    let runs = move || {
        record.with(|r| {
            r.as_ref()
                .map_or(Vec::new(), |r| r.runs.iter().map(|x| x.decay).collect::<Vec<_>>())
        })
    };
    view! {
        <section class="views">
            <figure class="wide">
                <canvas node_ref=canvases.accuracy data-testid="attn-accuracy" data-empty="Press Run: training and test accuracy over training, a colour per weight decay." width="640" height="380"></canvas>
                <figcaption>"Accuracy on the training sequences (dashed; at most 1,024 of them) and on the test sequences the model never trains on (solid), measured every few steps, a colour per weight decay. Read it: where the dashed line reaches 100 % and the solid one stays low, the model has memorized its training set; a solid line that rises long after is grokking."</figcaption>
            </figure>
            <figure class="wide">
                <p class="verdict" data-testid="attn-verdict" aria-live="polite">{move || record.with(|r| r.as_ref().and_then(|r| r.verdict()))}</p>
                <table class="results" data-testid="attn-table">
                    {move || record.with(|r| r.as_ref().map(rows))}
                </table>
                <figcaption>"Each run at its last measurement: the accuracies, the first measured step at which it fitted its training set and at which it generalized, and the Euclidean norm of all its parameters."</figcaption>
            </figure>
            <figure class="wide">
                <p class="small" data-testid="attn-example-tokens">{move || record.with(|r| r.as_ref().map(example_text))}</p>
                <canvas node_ref=canvases.patterns data-testid="attn-patterns" data-empty="Press Run: each head's attention on the example." width="640" height="480"></canvas>
                <label class:hidden=crate::share::hidden("show")>"Run shown "
                    <select data-testid="attn-show" on:change=move |ev| canvases.shown.set(event_target_value(&ev).parse().unwrap_or(0))>
                        {move || runs().into_iter().enumerate().map(|(i, d)| view! { <option value=i.to_string() selected=move || canvases.shown.get() == i>{format!("weight decay {d}")}</option> }).collect_view()}
                    </select>
                </label>
                <figcaption>"Every head's attention on the example, at the last measurement: a square per block and head, a row per position reading (the query) over the positions it may read (the keys: itself and those before it; the future is masked, blank). Each row sums to 1; darker is more weight. Read it: in the copy task, the last row of a head that has learned the lookup is one dark cell, on the position of the token to copy."</figcaption>
            </figure>
            <figure class="wide">
                <canvas node_ref=canvases.losses data-testid="attn-losses" data-empty="Press Run: the losses and the weights' norm over training." width="640" height="340"></canvas>
                <figcaption>"Mean cross-entropy on the training sequences (dashed) and the test sequences (solid), log scale, and on the right axis the norm of all the parameters (thin dashes). Read it: with weight decay the norm falls while the test loss, after rising, comes down; the memorizing solution needs large weights, the general one smaller ones."</figcaption>
            </figure>
            {super::memory::figure(canvases.memory, memory, settings)}
            {crate::lessons::lesson("attn", super::lesson::STEPS)}
        </section>
    }
}
