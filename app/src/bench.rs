//! The benchmark page (`/bench`): trains workload W1 or W2 on the first 10,000 MNIST images on
//! WebGPU or the CPU path and reports samples/s, first-step time, the loss curve and test accuracy.
//! Scripts drive it by URL (`?workload=W1&backend=webgpu&autostart=1&steps=N&test=M`, read by
//! `lab_state::bench::BenchLab`) and read the result
//! from `window.__labBench` (or `{error}` on failure). With `slice=N` it instead times an N × N
//! loss-landscape slice on 1,000 training images against training the same model.

use std::rc::Rc;

use leptos::html::Canvas;
use leptos::prelude::*;
use wasm_bindgen::JsValue;

use engine::bench::{epoch_steps, slice_run, BenchResult, SliceBenchResult, WORKLOADS};
use engine::gpu::GpuContext;
use engine::train::Trainer;

use lab_state::bench::BenchLab;

use crate::share::hidden;
use crate::{draw, fetch, frame};

/// What one run measures, from the page's settings.
#[derive(Clone, Debug, PartialEq)]
struct Query {
    workload: String,
    webgpu: bool,
    steps: Option<usize>,
    /// Test images to evaluate on (default all 10,000).
    test: Option<usize>,
}

/// Training images a slice is evaluated on.
const SLICE_SAMPLES: usize = 1000;

/// Publishes the outcome for scripts.
fn publish(value: &serde_json::Value) {
    if let (Some(window), Ok(js)) = (web_sys::window(), js_sys::JSON::parse(&value.to_string())) {
        let _ = js_sys::Reflect::set(&window, &JsValue::from_str("__labBench"), &js);
    }
}

/// The workload's trainer (with a landscape evaluation over `eval_rows` images) and test set.
async fn trainer(
    q: &Query,
    status: RwSignal<String>,
    eval_rows: usize,
) -> Result<(Trainer, Option<engine::data::Dataset>), String> {
    let workload = WORKLOADS
        .iter()
        .find(|w| w.name == q.workload)
        .ok_or("unknown workload")?;
    let mut config = (workload.config)();
    if let (Some(n), engine::train::DataConfig::Images(images)) = (q.test, &mut config.data) {
        images.test_limit = n;
    }
    status.set("loading MNIST…".into());
    let read = |name: String| async move { fetch::bytes(&format!("data/{name}")).await };
    let (train, test) = (
        read("mnist-train.bin".into()).await?,
        read("mnist-test.bin".into()).await?,
    );
    let (train, test) = config.data.load(|name| {
        if name.ends_with("train.bin") {
            Ok(train.clone())
        } else {
            Ok(test.clone())
        }
    })?;
    let gpu = if q.webgpu {
        status.set("opening WebGPU…".into());
        Some(Rc::new(GpuContext::new().await?))
    } else {
        None
    };
    let trainer = Trainer::with_evaluation(config, train, gpu, 1000, eval_rows).await?;
    Ok((trainer, test))
}

async fn run_slice(q: Query, res: usize, status: RwSignal<String>) -> Result<SliceBenchResult, String> {
    let (mut trainer, _) = trainer(&q, status, SLICE_SAMPLES).await?;
    let steps = q.steps.unwrap_or_else(|| epoch_steps(&trainer, 1));
    status.set(format!(
        "training {steps} steps, then a {res} × {res} slice on {}…",
        trainer.backend_name()
    ));
    frame::next_frame().await;
    Ok(slice_run(&mut trainer, &q.workload, res, steps, &frame::now_ms).await?)
}

async fn run(q: Query, status: RwSignal<String>) -> Result<BenchResult, String> {
    let (mut trainer, test) = trainer(&q, status, 0).await?;
    let steps = q.steps.unwrap_or_else(|| epoch_steps(&trainer, 1));
    status.set(format!(
        "training {} for {steps} steps on {}…",
        q.workload,
        trainer.backend_name()
    ));
    frame::next_frame().await; // let the status paint before the CPU path blocks
    Ok(engine::bench::run(&mut trainer, test.as_ref(), &q.workload, steps, &frame::now_ms).await?)
}

#[component]
pub fn BenchPage() -> impl IntoView {
    let (settings, notices) = crate::share::url_state::<BenchLab>();
    let status = RwSignal::new("ready".to_string());
    let result = RwSignal::new(None::<BenchResult>);
    let running = RwSignal::new(false);
    let chart = NodeRef::<Canvas>::new();
    let autostart = settings.with_untracked(|s| s.autostart);
    let start = move || {
        if running.get_untracked() {
            return;
        }
        running.set(true);
        result.set(None);
        let s = settings.get_untracked();
        let q = Query {
            workload: s.workload.clone(),
            webgpu: s.backend == "webgpu",
            steps: s.steps,
            test: s.test,
        };
        let slice = s.slice;
        let backend = if q.webgpu { "webgpu" } else { "cpu" };
        if let Some(res) = slice {
            leptos::task::spawn_local(async move {
                match run_slice(q, res, status).await {
                    Ok(r) => {
                        status.set(format!(
                            "{res} × {res} slice on {} images: {:.0} ms, {:.0} samples/s evaluated vs {:.0} trained ({:.1}×)",
                            r.eval_samples, r.slice_ms, r.slice_samples_per_sec, r.train_samples_per_sec, r.ratio
                        ));
                        let mut json = serde_json::to_value(&r).unwrap_or_default();
                        json["device"] = r.backend.clone().into();
                        json["backend"] = backend.into();
                        publish(&json);
                    }
                    Err(e) => {
                        status.set(format!("failed: {e}"));
                        publish(&serde_json::json!({ "error": e }));
                    }
                }
                running.set(false);
            });
            return;
        }
        leptos::task::spawn_local(async move {
            match run(q, status).await {
                Ok(r) => {
                    status.set("done".into());
                    if let Some(c) = chart.get_untracked() {
                        crate::figures::table_of(&c, draw::loss_chart::table(&r.losses, &[]));
                        draw::loss_chart::draw(c, &r.losses, &[]);
                    }
                    // `backend` echoes the URL's vocabulary; `device` names the adapter.
                    let mut json = serde_json::to_value(&r).unwrap_or_default();
                    json["device"] = r.backend.clone().into();
                    json["backend"] = backend.into();
                    publish(&json);
                    result.set(Some(r));
                }
                Err(e) => {
                    status.set(format!("failed: {e}"));
                    publish(&serde_json::json!({ "error": e }));
                }
            }
            running.set(false);
        });
    };
    if autostart {
        leptos::task::spawn_local(async move {
            frame::next_frame().await;
            start();
        });
    }
    // A run is one timed engine call that cannot stop halfway without spoiling its figures:
    // cancelling drops it by reloading the page with the same settings, not started.
    let cancel = move || {
        let mut s = settings.get_untracked();
        s.autostart = false;
        crate::browser::set_query(&lab_state::lab::LabState::to_query(&s));
        if let Some(w) = web_sys::window() {
            let _ = w.location().reload();
        }
    };
    let row = |label: &'static str, value: String| view! { <tr><th>{label}</th><td>{value}</td></tr> };
    view! {
        <header class="top">
            <h1>"Training Lab · benchmark"</h1>
            <p class="tagline">"W1: MLP 784-128-10, SGD 0.1 · W2: LeNet-like CNN, SGD 0.05 · first 10,000 MNIST images, batch 64, file order"</p>
            <a href="./">"back to the lab"</a>
        </header>
        <main class="lab">
            <section class="controls">
                <crate::share::StateBar state=settings notices=notices/>
                <label class:hidden=hidden("workload")>"Workload"
                    <select data-testid="bench-workload" on:change=move |ev| { let w = event_target_value(&ev); settings.update(|s| s.workload = w) }>
                        {["W1", "W2"].map(|w| view! { <option value=w selected=move || settings.with(|s| s.workload == w)>{w}</option> }).collect_view()}
                    </select>
                </label>
                <label class:hidden=hidden("backend")>"Backend"
                    <select data-testid="bench-backend" on:change=move |ev| { let b = event_target_value(&ev); settings.update(|s| s.backend = b) }>
                        <option value="webgpu" selected=move || settings.with(|s| s.backend == "webgpu")>"WebGPU"</option>
                        <option value="cpu" selected=move || settings.with(|s| s.backend == "cpu")>"CPU"</option>
                    </select>
                </label>
                <div class="buttons">
                    <button class:hidden=hidden("run") class="primary" data-testid="bench-run" data-lab-start="true" disabled=move || running.get() on:click=move |_| start()>"Run"</button>
                    <button data-testid="bench-cancel" data-lab-pause="true" disabled=move || !running.get() on:click=move |_| cancel()>"Cancel"</button>
                </div>
                // Indeterminate: the run is one timed call, so it reports no fraction done.
                <progress data-testid="bench-progress" class:hidden=move || !running.get()></progress>
                <p data-testid="bench-status" data-lab-status="true">{move || status.get()}</p>
            </section>
            <section class="views">
                <figure>
                    <table class="results" data-testid="bench-results">
                        {move || result.get().map(|r| view! {
                            {row("backend", r.backend.clone())}
                            {row("steps × batch", format!("{} × {}", r.steps, r.batch))}
                            {row("samples/s (steady)", format!("{:.0}", r.samples_per_sec_steady))}
                            {row("samples/s (incl. first step)", format!("{:.0}", r.samples_per_sec_total))}
                            {row("first step", format!("{:.0} ms", r.first_step_ms))}
                            {row("GFLOP/s (whole step)", format!("{:.2}", r.gflops))}
                            {row("GFLOP/s (matmul and conv kernels)", format!("{:.2}", r.matmul_gflops))}
                            {row("test accuracy", r.test_accuracy.map_or("–".into(), |a| format!("{:.1} %", a * 100.0)))}
                        })}
                    </table>
                </figure>
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
                <figure class:hidden=hidden("loss-chart")>
                    <canvas node_ref=chart data-testid="bench-loss-chart" width="420" height="300"></canvas>
                    <figcaption>"Training loss per step."</figcaption>
                </figure>
            </section>
        </main>
    }
}

/// Readbacks a live lab's frame awaits now, against the earlier version: two for a chunk's
/// metrics (loss and accuracy apart), and for a view one for the probabilities, one for the test
/// set, one per layer and one for the weights.
fn readbacks(r: &engine::bench::BenchResult) -> String {
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
