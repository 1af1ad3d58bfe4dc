//! The sparsity lab's views: accuracy against the weights remaining first, the table of every
//! run with the verdict, the training curves of one round, the first layer's surviving inputs,
//! and the share each layer lost.

use leptos::prelude::*;

use lab_sims::sparsity::lottery::Condition;
use lab_sims::sparsity::masks::Scope;
use lab_sims::sparsity::record::{percent_key, SparsityRecord};
use lab_sims::sparsity::structured::describe;

use super::Canvases;

fn percent(v: f32) -> String {
    format!("{:.1} %", 100.0 * v)
}

/// One row per round: its sparsity, then each condition's test accuracy.
fn rows(r: &SparsityRecord) -> impl IntoView {
    let conditions: Vec<Condition> = r
        .conditions()
        .into_iter()
        .filter(|c| *c != Condition::Dense)
        .collect();
    let rounds = r.runs.iter().map(|x| x.round).max().unwrap_or(0);
    let dense = r.run(Condition::Dense, 0).map(|d| d.test_accuracy);
    let head = view! {
        <tr><th>"weights pruned"</th><th>"dense"</th>
            {conditions.iter().map(|c| view! { <th>{c.name()}</th> }).collect_view()}
        </tr>
    };
    let body = (1..=rounds).map(|round| {
        let sparsity = r.runs.iter().find(|x| x.round == round).map_or(r.plan.sparsity_at(round), |x| x.sparsity);
        let cells = conditions.iter().map(|c| {
            let run = r.run(*c, round);
            view! {
                <td data-metric=format!("acc-{}-{round}", c.name()) data-metric-value=run.map_or(String::new(), |x| (100.0 * x.test_accuracy).to_string())>
                    {run.map_or("–".into(), |x| percent(x.test_accuracy))}
                </td>
            }
        }).collect_view();
        view! {
            <tr><td data-metric=format!("sparsity-{round}") data-metric-value=(100.0 * sparsity).to_string()>{format!("{:.1} % (round {round})", 100.0 * sparsity)}</td><td>"–"</td>{cells}</tr>
        }
    }).collect_view();
    view! {
        {head}
        <tr><td>"0 % (dense)"</td><td data-metric="acc-dense-0" data-metric-value=dense.map_or(String::new(), |a| (100.0 * a).to_string())>{dense.map_or("–".into(), percent)}</td>
            {conditions.iter().map(|_| view! { <td>"–"</td> }).collect_view()}</tr>
        {body}
    }
}

fn kib(bytes: f64) -> String {
    format!("{:.0} KiB", bytes / 1024.0)
}

/// Structured against unstructured pruning of the trained dense network, a row per round's
/// sparsity: accuracy in one shot, and what each costs.
fn structured_rows(r: &SparsityRecord) -> impl IntoView {
    let dense = r.structured.first().map(|x| x.dense);
    let convs = r.layers.iter().filter(|l| l.starts_with("conv")).count();
    let head = view! {
        <tr><th>"weights pruned"</th><th>"unstructured: accuracy"</th><th>"structured: units left, accuracy"</th><th>"MFLOP per sample: dense / CSR / smaller"</th><th>"weights' bytes: dense / CSR / smaller"</th><th>"forward over the test set: dense / CSR / smaller"</th></tr>
    };
    let rows = r.structured.iter().map(|x| {
        let p = percent_key(x.sparsity);
        let hidden = describe(convs, &x.widths);
        let csr = x.csr_ms.map_or("–".into(), |c| format!("{c:.1}"));
        let time = x.ms.map_or("–".into(), |(d, s)| format!("{d:.1} / {csr} / {s:.1} ms"));
        view! {
            <tr>
                <td>{format!("{p} %")}</td>
                <td data-metric=format!("unstructured-{p}") data-metric-value=(100.0 * x.unstructured_accuracy).to_string()>{percent(x.unstructured_accuracy)}</td>
                <td data-metric=format!("structured-{p}") data-metric-value=(100.0 * x.structured_accuracy).to_string()>{format!("{hidden} ({:.1} % pruned): {}", 100.0 * x.structured_sparsity, percent(x.structured_accuracy))}</td>
                <td>{format!("{:.3} / {:.3} / {:.3}", x.dense.flops / 1e6, x.csr.flops / 1e6, x.smaller.flops / 1e6)}</td>
                <td><span data-metric=format!("csr-bytes-{p}") data-metric-value=x.csr.bytes.to_string()>{format!("{} / {}", kib(x.dense.bytes), kib(x.csr.bytes))}</span>{" / "}<span data-metric=format!("smaller-bytes-{p}") data-metric-value=x.smaller.bytes.to_string()>{kib(x.smaller.bytes)}</span></td>
                <td>{time}</td>
            </tr>
        }
    }).collect_view();
    let none = r.structured.is_empty().then(|| view! {
        <tr><td colspan="6">"Structured pruning removes an MLP's neurons or a CNN's filters; this network has neither to remove."</td></tr>
    });
    view! { {head}{rows}{none}<tr hidden><td data-metric="dense-bytes" data-metric-value=dense.map_or(String::new(), |d| d.bytes.to_string())></td></tr> }
}

/// The one-shot points as hidden metrics (`oneshot-global-90`), for lessons and scripts.
fn one_shot_metrics(r: &SparsityRecord) -> impl IntoView {
    r.one_shot.iter().map(|o| {
        let scope = if o.scope == Scope::Global { "global" } else { "per_layer" };
        let percent = percent_key(o.sparsity);
        view! { <span hidden data-metric=format!("oneshot-{scope}-{percent}") data-metric-value=(100.0 * o.test_accuracy).to_string()></span> }
    }).collect_view()
}

/// The last ticket's share pruned per layer (`layer-pruned-1`, …), as text beside its chart.
fn layer_text(r: &SparsityRecord) -> impl IntoView {
    let last = r
        .runs
        .iter()
        .filter(|x| x.condition == Condition::Ticket)
        .max_by_key(|x| x.round);
    last.map(|t| {
        let parts = t.layer_sparsity.iter().enumerate().map(|(l, s)| {
            let name = r.layers.get(l).cloned().unwrap_or_default();
            view! { <li>{format!("layer {} ({name}): ", l + 1)}<span data-metric=format!("layer-pruned-{}", l + 1) data-metric-value=(100.0 * s).to_string()>{format!("{:.1} %", 100.0 * s)}</span>" pruned"</li> }
        }).collect_view();
        view! { <p class="small">{format!("Round {}'s ticket, {:.1} % pruned overall:", t.round, 100.0 * t.sparsity)}</p><ul class="small" data-testid="sparse-layer-text">{parts}</ul> }
    })
}

pub fn figures(canvases: Canvases, record: RwSignal<Option<SparsityRecord>>) -> impl IntoView {
    let rounds = move || {
        record.with(|r| {
            r.as_ref()
                .map_or(0, |r| r.runs.iter().map(|x| x.round).max().unwrap_or(0))
        })
    };
    let shown = move || {
        record.with(|r| {
            r.as_ref()
                .map_or(0, |r| super::shown_round(r, canvases.round.get()))
        })
    };
    view! {
        <section class="views">
            <figure class="wide">
                <canvas node_ref=canvases.accuracy data-testid="sparse-accuracy" data-empty="Press Run: test accuracy against the weights that remain, for the ticket and its controls." width="640" height="400"></canvas>
                <figcaption>"Test accuracy on 2,000 MNIST test digits against the share of weights remaining (log scale: each step halves them). Solid: every run trained from its start for the same steps on the same batches — the ticket (the survivors of magnitude pruning reset to their initial values), the same mask from fresh random weights, a random mask of the same sparsity per layer. Dashed: the trained dense network pruned once, not retrained. Read it: where the ticket's line stays up and the controls' fall, the mask and the initial weights together are what trains."</figcaption>
            </figure>
            <figure class="wide">
                <p class="verdict" data-testid="sparse-verdict" aria-live="polite">{move || record.with(|r| r.as_ref().and_then(|r| r.verdict()))}</p>
                <table class="results" data-testid="sparse-table">
                    {move || record.with(|r| r.as_ref().map(rows))}
                </table>
                <div>{move || record.with(|r| r.as_ref().map(one_shot_metrics))}</div>
                <figcaption>"Test accuracy of every run at the end of its training, by round. A round prunes the given share of the weights that remained (biases are never pruned); the ticket's trained weights choose the next round's mask."</figcaption>
            </figure>
            <figure class="wide">
                <table class="results" data-testid="sparse-structured">
                    {move || record.with(|r| r.as_ref().map(structured_rows))}
                </table>
                <figcaption>"The trained dense network pruned once, not retrained, at each round's share of weights: unstructured (its smallest weights, wherever they are) against structured (whole hidden neurons of an MLP, or whole filters of a CNN — channel pruning — the weakest by the norm of their incoming weights, as many as keep about the same number of weights). What each costs per sample: unstructured in a compressed sparse row format (each kept weight's value, 4 bytes, and column index, 2 bytes, and a pointer per row), structured as the smaller dense network. The last column times the forward pass over the 2,000 test images on this page's backend: the dense network, the unstructured one run by a sparse kernel over its CSR weights (an MLP), and the smaller dense network. Read it: unstructured pruning keeps the accuracy but its bytes shrink less than its weights (the indices), and a sparse kernel's irregular reads give back much of what skipping zeros saves; removing whole units shrinks the real network, and costs accuracy until it is retrained (the structured condition)."</figcaption>
            </figure>
            <figure>
                <canvas node_ref=canvases.curves data-testid="sparse-curves" data-empty="Press Run: test accuracy over training, for each condition of one round." width="420" height="320"></canvas>
                <label class:hidden=crate::share::hidden("show")>"Round shown"
                    <select data-testid="sparse-show" on:change=move |ev| canvases.round.set(event_target_value(&ev).parse().unwrap_or(0))>
                        {move || (1..=rounds()).map(|k| view! { <option value=k.to_string() selected=shown() == k>{format!("round {k}")}</option> }).collect_view()}
                    </select>
                </label>
                <figcaption>"Test accuracy during training, for the dense run and every condition of the round shown. Read it: a winning ticket learns at least as fast as the dense network (Frankle & Carbin's criterion); the controls learn more slowly. The ticket starts far above chance before its first step: the mask alone, on the initial weights, already classifies — it kept the initial weights that training grew, which already pointed the way training took them (Zhou et al. 2019's supermasks). SET and RigL (add them to the conditions) are the papers' procedures, adapted: both start from the ticket's count in every layer (the papers: Erdős–Rényi densities), follow RigL's schedule scaled to these short runs (a mask update every tenth of the run, to three quarters of it, dropping a share that falls from 0.3 by a cosine; SET's paper drops 0.3 after every epoch to the end), and grow new weights at zero (SET's paper: small random values), so the two differ only in where they grow; RigL measures the gradient on a fixed batch, not the current one, so every run trains on the same batches (theory §10.4)."</figcaption>
            </figure>
            <figure>
                <canvas node_ref=canvases.mask data-testid="sparse-mask" data-empty="Press Run: which input pixels keep their first-layer weights." width="420" height="320"></canvas>
                <figcaption>"The ticket of the round shown: for each of the 28 × 28 input pixels, the share of its first-layer weights that survived (white: none; the darkest shade is the largest share any pixel kept, on the bar). Read it: the centre, where the strokes fall, keeps more of its weights than the border. A border pixel is blank in every digit, so its weights never get a gradient and keep their initial size: magnitude pruning keeps them only where that start was large, while in the centre training grew the weights the digits need."</figcaption>
            </figure>
            <figure>
                <canvas node_ref=canvases.layers data-testid="sparse-layers" data-empty="Press Run: the share of each layer's weights pruned." width="420" height="320"></canvas>
                {move || record.with(|r| r.as_ref().map(layer_text))}
                <figcaption>"The share of each layer's weights the ticket of each round has lost. With a global threshold the layers lose different shares, set by the sizes of their weights: in the MLP the large first layer, with many small weights, loses more and the small output layer less; in the CNN the first layer's few filters lose least. Per layer, every bar is the round's overall share."</figcaption>
            </figure>
            {crate::lessons::lesson("sparse", super::lesson::STEPS)}
        </section>
    }
}
