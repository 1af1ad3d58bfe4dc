//! The benchmark page (`/bench`): trains workload W1 or W2 on the first 10,000 MNIST images, or
//! T1 (the attention lab's transformer) on its generated sequences, on WebGPU or the CPU path and
//! reports samples/s, first-step time, the loss curve and test accuracy.
//! Scripts drive it by URL (`?workload=W1&backend=webgpu&autostart=1&steps=N&test=M`, read by
//! `lab_state::bench::BenchLab`) and read the result
//! from `window.__labBench` (or `{error}` on failure). With `slice=N` it instead times an N × N
//! loss-landscape slice on 1,000 training images against training the same model.

use leptos::html::Canvas;
use leptos::prelude::*;

use lab_sims::attention::bench::{TransformerBench, T1};
use lab_sims::bench::BenchResult;
use lab_state::bench::BenchLab;

use crate::share::hidden;
use crate::{draw, frame};

mod lesson;
mod results;
mod run;

use run::{measure, Outcome, Query};

#[component]
pub fn BenchPage() -> impl IntoView {
    let (settings, notices) = crate::share::url_state::<BenchLab>();
    let status = RwSignal::new("ready".to_string());
    let chart = NodeRef::<Canvas>::new();
    // One run at a time: Run is disabled while the action is pending.
    let bench = Action::new_unsync(move |q: &Query| measure(q.clone(), status));
    let running = bench.pending();
    let result = Signal::derive(move || match bench.value().get() {
        Some(Ok(Outcome::Trained(r))) => Some(r),
        _ => None,
    });
    let transformer = Signal::derive(move || match bench.value().get() {
        Some(Ok(Outcome::Transformer(r))) => Some(r),
        _ => None,
    });
    // T1 has its own table: the MNIST workloads' stay out of its way.
    let mnist_hidden = Signal::derive(move || transformer.with(Option::is_some));
    Effect::new(move |_| match bench.value().get() {
        Some(Ok(
            Outcome::Trained(BenchResult { losses, .. })
            | Outcome::Transformer(TransformerBench { losses, .. }),
        )) => {
            status.set("done".into());
            if let Some(c) = chart.get_untracked() {
                let losses = draw::loss_chart::per_step(&losses);
                crate::figures::table_of(&c, draw::loss_chart::table(&losses, &[]));
                draw::loss_chart::draw(c, &losses, &[], false);
            }
        }
        Some(Ok(Outcome::Sliced(r))) => status.set(format!(
            "{res} × {res} slice on {} images: {:.0} ms, {:.0} samples/s evaluated vs {:.0} trained ({:.1}×)",
            r.eval_samples,
            r.slice_ms,
            r.slice_samples_per_sec,
            r.train_samples_per_sec,
            r.ratio,
            res = r.res
        )),
        Some(Err(e)) if e.without_webgpu() => status.set(format!(
            "{e}: the CPU path measures the same workload without it."
        )),
        Some(Err(e)) => status.set(format!("failed: {e}")),
        None => {}
    });
    // A lesson that locked the backend is not offered another.
    let backend_locked = hidden("backend");
    // The cores only matter on the CPU path, and the tiles on WebGPU, both for W1 and W2 (T1
    // runs on one core, its tiles as the labs choose them).
    let threads_hidden = hidden("threads");
    let tiles_hidden = hidden("tiles");
    let start = move || {
        if running.get_untracked() {
            return;
        }
        let s = settings.get_untracked();
        bench.dispatch(Query {
            workload: s.workload.clone(),
            webgpu: s.backend == "webgpu",
            steps: s.steps,
            test: s.test,
            slice: s.slice,
            threads: s.threads,
            tiles: s.tiles.clone(),
        });
    };
    if settings.with_untracked(|s| s.autostart) {
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
    view! {
        {crate::layout::lab_header("benchmark", "W1: MLP 784-128-10, SGD 0.1 · W2: LeNet-like CNN, SGD 0.05 · first 10,000 MNIST images, batch 64, file order · T1: the attention lab's transformer (copy 4 tokens, 2 blocks of 2 heads, width 32), Adam 0.003, batch 64")}
        <main class="lab">
            <section class="runbar" aria-label="run">
            <div class="buttons">
                <button class:hidden=hidden("run") class="primary" data-testid="bench-run" data-lab-start="true" disabled=move || running.get() on:click=move |_| start()>"Run"</button>
                <button data-testid="bench-cancel" class:hidden=hidden("cancel") data-lab-pause="true" disabled=move || !running.get() on:click=move |_| cancel()>"Cancel"</button>
            </div>
            // Indeterminate: the run is one timed call, so it reports no fraction done.
            <progress data-testid="bench-progress" class:hidden=move || !running.get()></progress>
            <p class="status" data-testid="bench-status" data-lab-status="true">{move || status.get()}</p>
            <p class="sr-only" role="status" data-testid="bench-announce">{move || if running.get() { String::new() } else { status.get() }}</p>
            <button data-testid="bench-use-cpu"
                class:hidden=move || backend_locked() || !matches!(bench.value().get(), Some(Err(e)) if e.without_webgpu())
                on:click=move |_| { settings.update(|s| s.backend = "cpu".into()); start(); }>"Run on the CPU path"</button>
            </section>
            <section class="controls">
                <crate::share::StateBar state=settings notices=notices/>
                <label class:hidden=hidden("workload")>"Workload"
                    <select data-testid="bench-workload" on:change=move |ev| { let w = event_target_value(&ev); settings.update(|s| s.workload = w) }>
                        {["W1", "W2", T1].map(|w| view! { <option value=w selected=move || settings.with(|s| s.workload == w)>{w}</option> }).collect_view()}
                    </select>
                </label>
                <label class:hidden=hidden("backend")>"Backend"
                    <select data-testid="bench-backend" on:change=move |ev| { let b = event_target_value(&ev); settings.update(|s| s.backend = b) }>
                        <option value="webgpu" selected=move || settings.with(|s| s.backend == "webgpu")>"WebGPU"</option>
                        <option value="cpu" selected=move || settings.with(|s| s.backend == "cpu")>"CPU"</option>
                    </select>
                </label>
                <label class:hidden=move || threads_hidden() || settings.with(|s| s.backend != "cpu" || s.workload == T1)>"CPU cores"
                    <select data-testid="bench-threads" on:change=move |ev| { let t = event_target_value(&ev).parse().ok(); settings.update(|s| s.threads = t) }>
                        <option value="" selected=move || settings.with(|s| s.threads.is_none())>{format!("auto (1 or {}, timed)", crate::cpu_team::cores())}</option>
                        {[1usize, 2, 4, 8].map(|n| view! { <option value=n.to_string() selected=move || settings.with(|s| s.threads == Some(n))>{n.to_string()}</option> }).collect_view()}
                    </select>
                </label>
                <label class:hidden=move || tiles_hidden() || settings.with(|s| s.backend != "webgpu" || s.workload == T1)>"GPU tiles"
                    <select data-testid="bench-tiles" on:change=move |ev| { let t = event_target_value(&ev); settings.update(|s| s.tiles = t) }>
                        {[("auto", "as the labs choose"), ("time", "time them now"), ("64", "64×64"), ("32", "32×32"), ("128", "128×128"), ("32k4", "32×32 k÷4")].map(|(v, label)| view! { <option value=v selected=move || settings.with(|s| s.tiles == v)>{label}</option> }).collect_view()}
                    </select>
                </label>
            </section>
            <section class="views">
                {results::results_figure(result, mnist_hidden)}
                {results::kernels_figure(result, mnist_hidden)}
                {results::transformer_figure(transformer)}
                <figure class:hidden=hidden("loss-chart")>
                    <canvas node_ref=chart data-testid="bench-loss-chart" data-empty="Press Run: the training loss per step." width="420" height="300"></canvas>
                    <figcaption>"Training loss per step. Read it: the same workload falls the same way on every backend; only the time it takes differs."</figcaption>
                </figure>
                {crate::lessons::lesson("bench", crate::bench::lesson::STEPS)}
            </section>
        </main>
    }
}

/// The lab's page, under the name the registry's generated router mounts (`build.rs`).
pub use BenchPage as Page;
