//! The figures of a training run: throughput, first step, GFLOP/s and accuracy; each kernel's
//! time; the readbacks a live lab's frame awaits.

use leptos::prelude::*;

use lab_sims::bench::BenchResult;

fn row(label: &'static str, value: String) -> impl IntoView {
    view! { <tr><th>{label}</th><td>{value}</td></tr> }
}

/// A row a lesson can read: its metric's full value beside the rounded text.
fn metric_row(label: &'static str, metric: &'static str, value: f64, text: String) -> impl IntoView {
    view! { <tr><th>{label}</th><td data-metric=metric data-metric-value=value.to_string()>{text}</td></tr> }
}

pub fn results_figure(result: Signal<Option<BenchResult>>) -> impl IntoView {
    view! {
        <figure>
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
                    {metric_row("steps × batch", "samples-trained", (r.steps * r.batch) as f64, format!("{} × {}", r.steps, r.batch))}
                    {metric_row("samples/s (steady)", "samples-steady", r.samples_per_sec_steady, format!("{:.0}", r.samples_per_sec_steady))}
                    {metric_row("samples/s (incl. first step)", "samples-total", r.samples_per_sec_total, format!("{:.0}", r.samples_per_sec_total))}
                    {metric_row("first step", "first-step-ms", r.first_step_ms, format!("{:.0} ms", r.first_step_ms))}
                    {metric_row("dispatches per step", "dispatches", r.dispatches_per_step as f64, r.dispatches_per_step.to_string())}
                    {row("GFLOP/s (whole step)", format!("{:.2}", r.gflops))}
                    {row("GFLOP/s (matmul and conv kernels)", format!("{:.2}", r.matmul_gflops))}
                    {match r.test_accuracy {
                        Some(a) => metric_row("test accuracy", "test-accuracy", 100.0 * f64::from(a), format!("{:.1} %", a * 100.0)).into_any(),
                        None => row("test accuracy", "–".into()).into_any(),
                    }}
                })}
            </table>
        </figure>
    }
}

pub fn kernels_figure(result: Signal<Option<BenchResult>>) -> impl IntoView {
    view! {
        <figure>
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
