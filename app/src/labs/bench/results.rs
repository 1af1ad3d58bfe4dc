//! The figures of a training run: throughput, first step, GFLOP/s and accuracy; each kernel's
//! time; the readbacks a live lab's frame awaits.

use leptos::prelude::*;

use lab_sims::attention::bench::TransformerBench;
use lab_sims::bench::BenchResult;

fn row(label: &'static str, value: String) -> impl IntoView {
    view! { <tr><th>{label}</th><td>{value}</td></tr> }
}

/// The throughput rows both tables share: what was trained, the steady and whole rates, the first
/// step. `what` names a sample ("" for images, " sequences" for T1); `per` the rate's unit.
fn rate_rows(
    (what, per): (&'static str, &'static str),
    (steps, batch): (usize, usize),
    (steady, total, first_ms): (f64, f64, f64),
) -> impl IntoView {
    view! {
        <tr><th>"steps × batch"</th><td data-metric="samples-trained" data-metric-value=(steps * batch).to_string()>{format!("{steps} × {batch}{what}")}</td></tr>
        <tr><th>{format!("{per}/s (steady)")}</th><td data-metric="samples-steady" data-metric-value=steady.to_string()>{format!("{steady:.0}")}</td></tr>
        <tr><th>{format!("{per}/s (incl. first step)")}</th><td data-metric="samples-total" data-metric-value=total.to_string()>{format!("{total:.0}")}</td></tr>
        <tr><th>"first step"</th><td data-metric="first-step-ms" data-metric-value=first_ms.to_string()>{format!("{first_ms:.0} ms")}</td></tr>
    }
}

/// `away`: the figure steps aside (T1's own table shows).
pub fn results_figure(result: Signal<Option<BenchResult>>, away: Signal<bool>) -> impl IntoView {
    view! {
        <figure class:hidden=away>
            <p class="muted small" class:hidden=move || result.with(Option::is_some)>"Press Run: samples per second, the first step's time, GFLOP/s and the test accuracy appear here."</p>
            <table class="results" data-testid="bench-results">
                {move || result.get().map(|r| view! {
                    {row("backend", match r.replicas {
                        1 => r.backend.clone(),
                        n => format!(
                            "{} · {n} cores (each step split by {}, through {})",
                            r.backend,
                            r.split.as_deref().unwrap_or("batch rows"),
                            r.exchange.as_deref().unwrap_or("messages")
                        ),
                    })}
                    {r.tiles.clone().map(|t| view! { <tr data-testid="bench-tiles-used"><th>"GPU tiles"</th><td>{t}</td></tr> })}
                    {rate_rows(("", "samples"), (r.steps, r.batch), (r.samples_per_sec_steady, r.samples_per_sec_total, r.first_step_ms))}
                    <tr><th>"dispatches per step"</th><td data-metric="dispatches">{r.dispatches_per_step.to_string()}</td></tr>
                    {row("GFLOP/s (whole step)", format!("{:.2}", r.gflops))}
                    {row("GFLOP/s (matmul and conv kernels)", format!("{:.2}", r.matmul_gflops))}
                    <tr><th>"test accuracy"</th><td data-metric="test-accuracy" data-metric-value=r.test_accuracy.map_or(String::new(), |a| (100.0 * f64::from(a)).to_string())>{r.test_accuracy.map_or("–".into(), |a| format!("{:.1} %", a * 100.0))}</td></tr>
                })}
            </table>
        </figure>
    }
}

/// T1's figures: the rows that apply to the transformer (its kernels are not profiled one by one).
pub fn transformer_figure(result: Signal<Option<TransformerBench>>) -> impl IntoView {
    view! {
        <figure class:hidden=move || result.with(Option::is_none)>
            <table class="results" data-testid="bench-transformer-results">
                {move || result.get().map(|r| view! {
                    {row("backend", r.backend.clone())}
                    {rate_rows((" sequences", "sequences"), (r.steps, r.batch), (r.samples_per_sec_steady, r.samples_per_sec_total, r.first_step_ms))}
                    {row("GFLOP/s (the step's products, backward counted as twice the forward)", format!("{:.2}", r.gflops))}
                    <tr><th>"test accuracy (unseen copies)"</th><td data-metric="test-accuracy" data-metric-value=(100.0 * f64::from(r.test_accuracy)).to_string()>{format!("{:.1} %", r.test_accuracy * 100.0)}</td></tr>
                })}
            </table>
        </figure>
    }
}

pub fn kernels_figure(result: Signal<Option<BenchResult>>, away: Signal<bool>) -> impl IntoView {
    view! {
        <figure class:hidden=away>
            <table class="results kernels" data-testid="bench-kernels">
                <tr><th>"kernel"</th><th>"ms per step"</th><th>"GFLOP/s"</th></tr>
                {move || result.get().map(|r| r.kernels.iter().map(|k| view! {
                    <tr>
                        <td>{k.name.clone()}</td>
                        <td>{format!("{:.2}", k.ms)}</td>
                        <td>{if k.flops > 0.0 && k.ms > 0.0 { format!("{:.2}", k.flops / k.ms / 1e6) } else { String::new() }}</td>
                    </tr>
                }).collect_view())}
                {move || result.get().map(|r| view! {
                    <tr data-testid="bench-readbacks">
                        <td>"readbacks per frame"</td>
                        <td colspan="2">{readbacks(&r)}</td>
                    </tr>
                })}
            </table>
            <figcaption>"Each kernel of one step timed on its own (3 runs). A frame of a live lab is a training chunk and a view of the model (probabilities, each layer, the weights); each readback waits for the GPU."</figcaption>
        </figure>
    }
}

/// Readbacks a live lab's frame awaits now, against the earlier version: two for a chunk's
/// metrics (loss and accuracy apart), and for a view one for the probabilities, one for the test
/// set, one per layer and one for the weights.
fn readbacks(r: &lab_sims::bench::BenchResult) -> String {
    if r.readbacks_per_chunk == 0.0 {
        return "none: the CPU path reads memory directly".into();
    }
    let now = r.readbacks_per_chunk + r.readbacks_per_view;
    format!(
        "{now:.0} (chunk {:.0} + view {:.0}); before: {} (chunk 2 + view {})",
        r.readbacks_per_chunk,
        r.readbacks_per_view,
        2 + 3 + r.layers,
        3 + r.layers
    )
}
