//! The cluster lab (`/cluster`): simulated data-parallel workers train one model through real
//! allreduce schedules, charged by the α-β-γ cost model (docs/theory.md §6). The animation, the
//! timeline, the curves and the runs all come from the engine's schedules (`engine::cluster`,
//! `engine::collectives`); this page only chooses and draws.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;

use engine::cluster::{scaling_curve, Cluster, ClusterConfig, Consistency, ScalingPoint};
use engine::cluster_run::{train_to_target, ClusterRecord, ClusterRun};
use engine::collectives::{cost, Algorithm, Coverage, Link, Schedule};
use engine::compress::Compression;
use engine::optim::Optimizer;
use engine::scaling::{Target, STALL_CHECKS};
use engine::train::Trainer;
use lab_state::landscape::Data;

use crate::draw::cluster::{self as charts, Metric};
use crate::frame::{next_frame, now_ms};
use crate::{browser, fetch};

pub use lab_state::cluster::algorithm_index;
use lab_state::cluster::{ClusterLab as Settings, ALGORITHMS, COMPRESSIONS};

/// Worker counts of the speed-up curves.
const CURVE_WORKERS: [usize; 7] = [1, 2, 4, 8, 16, 32, 64];

#[derive(Clone, Copy)]
struct Canvases {
    animation: NodeRef<Canvas>,
    timeline: NodeRef<Canvas>,
    speedup: NodeRef<Canvas>,
    efficiency: NodeRef<Canvas>,
    bytes: NodeRef<Canvas>,
    loss: NodeRef<Canvas>,
    tta: NodeRef<Canvas>,
}

fn labels(s: &Settings) -> Vec<(usize, String)> {
    s.chosen()
        .into_iter()
        .map(|i| (i, ALGORITHMS[i].1.to_string()))
        .collect()
}

/// The analytic views: speed-up, efficiency and bytes for the chosen algorithms.
fn curve(s: &Settings) -> Result<Vec<ScalingPoint>, String> {
    let base = s.config(1, 0)?;
    let algorithms: Vec<Algorithm> = s.chosen().into_iter().map(|i| s.algorithm(i)).collect();
    Ok(scaling_curve(
        &base,
        &s.work()?,
        s.batch,
        s.scaling(),
        &algorithms,
        &CURVE_WORKERS,
    ))
}

fn draw_curves(c: &Canvases, s: &Settings, points: &[ScalingPoint]) {
    let l = labels(s);
    for (node, metric) in [
        (c.speedup, Metric::Speedup),
        (c.efficiency, Metric::Efficiency),
        (c.bytes, Metric::Bytes),
    ] {
        if let Some(x) = node.get_untracked() {
            charts::scaling(x, points, &l, metric);
        }
    }
}

fn draw_runs(c: &Canvases, s: &Settings, record: &ClusterRecord) {
    let (study, main): (Vec<ClusterRun>, Vec<ClusterRun>) = record
        .runs
        .iter()
        .cloned()
        .partition(|r| r.label.starts_with("study"));
    // After a study alone, its runs are the ones to draw against time.
    if let Some(x) = c.loss.get_untracked() {
        charts::loss_vs_time(x, if main.is_empty() { &study } else { &main });
    }
    if let Some(x) = c.tta.get_untracked() {
        charts::time_to_accuracy(x, &study, &labels(s));
    }
}

/// The animated schedule: the schedule, what each node holds after each step, and each step's
/// modelled seconds.
#[derive(PartialEq)]
struct Animation {
    schedule: Schedule,
    coverage: Coverage,
    step_seconds: Vec<f64>,
}

#[component]
pub fn ClusterPage() -> impl IntoView {
    let (settings, notices) = crate::share::url_state::<Settings>();
    let webgpu = RwSignal::new(false);
    let status = RwSignal::new(
        "press Train to run the chosen algorithms, or Time to accuracy for the worker-count study"
            .to_string(),
    );
    let error = RwSignal::new(None::<String>);
    let progress = RwSignal::new(0.0f64);
    let running = RwSignal::new(false);
    let record = RwSignal::new(None::<ClusterRecord>);
    let frame = RwSignal::new(0usize);
    let playing = RwSignal::new(false);
    let interval = RwSignal::new(600.0f64);
    let canvases = Canvases {
        animation: NodeRef::new(),
        timeline: NodeRef::new(),
        speedup: NodeRef::new(),
        efficiency: NodeRef::new(),
        bytes: NodeRef::new(),
        loss: NodeRef::new(),
        tta: NodeRef::new(),
    };
    let cancel = Rc::new(Cell::new(false));

    // The schedule animated: the chosen algorithm at the chosen worker count, on the model's
    // real gradient length.
    let animation = Memo::new(move |_| {
        let s = settings.get();
        let n = s.work().map(|w| w.params()).unwrap_or(1000);
        let config = s.config(s.workers, s.animate).ok()?;
        let schedule = Schedule::new(config.algorithm, s.workers, n, config.topology.gpus_per_node);
        let per_value = config.compression.bytes(n) / n.max(1) as f64;
        let step_seconds = cost(&schedule, &config.topology, per_value).step_seconds;
        Some(Arc::new(Animation {
            coverage: schedule.coverage(),
            schedule,
            step_seconds,
        }))
    });
    // Its messages as the animation chart's CSV, built when asked: the chart redraws every frame.
    crate::figures::provide("cl-animation", move || {
        animation.with_untracked(|a| a.as_ref().map(|a| charts::schedule_table(&a.schedule)))
    });
    let total_frames = move || animation.with(|a| a.as_ref().map_or(1, |a| a.coverage.frames.len()));
    Effect::new(move |_| {
        let k = frame.get();
        animation.with(|a| {
            if let (Some(a), Some(c)) = (a, canvases.animation.get()) {
                charts::animation(&c, &a.schedule, &a.coverage, k);
            }
        });
    });
    // Analytic views follow the settings at once.
    Effect::new(move |_| {
        let s = settings.get();
        let (Some(_), Some(_)) = (canvases.speedup.get(), canvases.timeline.get()) else {
            return;
        };
        match curve(&s) {
            Ok(points) => draw_curves(&canvases, &s, &points),
            Err(e) => error.set(Some(e)),
        }
        draw_timeline(&canvases, &s);
    });
    let play = move |_| {
        if playing.get_untracked() {
            playing.set(false);
            return;
        }
        playing.set(true);
        if frame.get_untracked() + 1 >= total_frames() {
            frame.set(0);
        }
        leptos::task::spawn_local(async move {
            let mut last = now_ms();
            while playing.get_untracked() {
                next_frame().await;
                if now_ms() - last < interval.get_untracked() {
                    continue;
                }
                last = now_ms();
                let next = frame.get_untracked() + 1;
                if next < total_frames() {
                    frame.set(next);
                }
                // Stop on the last frame, so it stays on screen.
                if next + 1 >= total_frames() {
                    playing.set(false);
                }
            }
        });
    };

    let go = {
        let cancel = cancel.clone();
        move |study: bool| {
            if running.get_untracked() {
                return;
            }
            let s = settings.get_untracked();
            let plan = s.validate().and_then(|_| plan(&s, study));
            let plan = match plan {
                Ok(p) => p,
                Err(e) => {
                    error.set(Some(e));
                    return;
                }
            };
            error.set(None);
            running.set(true);
            cancel.set(false);
            let cancel = cancel.clone();
            leptos::task::spawn_local(async move {
                let result = run_all(
                    &s,
                    plan,
                    study,
                    webgpu.get_untracked(),
                    status,
                    progress,
                    &cancel,
                    record,
                    canvases,
                )
                .await;
                crate::task::report_end(
                    status,
                    error,
                    result,
                    cancel.get(),
                    "the runs done so far are shown",
                );
                running.set(false);
            });
        }
    };
    let go_train = {
        let go = go.clone();
        move |_| go(false)
    };
    let go_study = move |_| go(true);
    let stop = {
        let cancel = cancel.clone();
        move |_| cancel.set(true)
    };
    let export_csv = move |_| {
        if let Some(r) = record.get_untracked() {
            browser::download("cluster.csv", "text/csv", &r.csv());
        }
    };
    let export_record = move |_| {
        if let Some(r) = record.get_untracked() {
            browser::download(
                "cluster-results.json",
                "application/json",
                &serde_json::to_string(&r).unwrap_or_default(),
            );
        }
    };
    let export_curve = move |_| match curve(&settings.get_untracked()) {
        Ok(points) => {
            let rows = points.iter().map(|p| {
                [
                    p.algorithm.label().to_string(),
                    p.workers.to_string(),
                    format!("{:e}", p.seconds),
                    p.samples.to_string(),
                    p.speedup.to_string(),
                    p.efficiency.to_string(),
                    p.bytes.to_string(),
                ]
            });
            let csv = crate::figures::csv(
                "algorithm,workers,seconds_per_iteration,samples,speedup,efficiency,bytes",
                rows,
            );
            browser::download("cluster-speedup.csv", "text/csv", &csv);
        }
        Err(e) => error.set(Some(e)),
    };
    let export_config = move |_| {
        let s = settings.get_untracked();
        match s.config(s.workers, s.chosen().first().copied().unwrap_or(0)) {
            Ok(c) => {
                let json = serde_json::json!({ "cluster": c, "training": s.train_config(s.workers), "scaling": if s.weak { "weak" } else { "strong" } });
                browser::download(
                    "cluster-config.json",
                    "application/json",
                    &serde_json::to_string_pretty(&json).unwrap_or_default(),
                );
            }
            Err(e) => error.set(Some(e)),
        }
    };
    let load_record = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        leptos::task::spawn_local(async move {
            match browser::read_file(&input).await {
                Ok((name, text)) => match ClusterRecord::from_json(&text) {
                    Ok(r) => {
                        error.set(None);
                        status.set(format!("loaded {name}: {} runs, no retraining", r.runs.len()));
                        draw_runs(&canvases, &settings.get_untracked(), &r);
                        record.set(Some(r));
                    }
                    Err(e) => error.set(Some(format!("{name}: {e} (the results shown are kept)"))),
                },
                Err(e) => error.set(Some(e)),
            }
            input.set_value("");
        });
    };

    let set = move |f: &dyn Fn(&mut Settings)| settings.update(|s| f(s));
    let number = move |label: &'static str,
                       id: &'static str,
                       get: fn(&Settings) -> String,
                       put: fn(&mut Settings, &str) -> bool| {
        crate::controls::number_input(settings, error, label, id, get, put)
    };
    let check = move |label: &'static str,
                      id: &'static str,
                      get: fn(&Settings) -> bool,
                      put: fn(&mut Settings, bool)| {
        view! {
            <label class="inline">
                <input type="checkbox" data-testid=id prop:checked=move || settings.with(get)
                    on:change=move |ev| { let on = event_target_checked(&ev); settings.update(|s| put(s, on)); }/>
                {label}
            </label>
        }
    };
    let link_select = move |label: &'static str,
                            id: &'static str,
                            get: fn(&Settings) -> usize,
                            put: fn(&mut Settings, usize)| {
        view! {
            <label>{label}
                <select data-testid=id on:change=move |ev| { if let Ok(i) = event_target_value(&ev).parse::<usize>() { settings.update(|s| put(s, i)); } }>
                    {Link::PRESETS.iter().enumerate().map(|(i, name)| view! {
                        <option value=i.to_string() selected=move || settings.with(get) == i>{link_label(name)}</option>
                    }).collect_view()}
                </select>
            </label>
        }
    };

    view! {
        <header class="top">
            <h1>"Training Lab · data-parallel cluster"</h1>
            <p class="tagline">"Many workers, one model: how gradients are combined, and what it costs."</p>
            <a href="./">"playground"</a>
        </header>
        <crate::banner::ErrorBanner error=error id="cl-error"/>
        <main class="lab">
            <section class="controls" aria-label="settings">
                <crate::share::StateBar state=settings notices=notices/>
                <h2>"Model and training"</h2>
                <label>"Network and data"
                    <select data-testid="cl-data" on:change=move |ev| {
                        if let Some(d) = Data::from_key(&event_target_value(&ev)) { set(&|s| s.data = d); }
                    }>
                        {Data::all().into_iter().map(|d| view! {
                            <option value=d.key() selected=move || settings.with(|s| s.data == d)>
                                {format!("{} ({})", d.label(), if d.is_images() { "MLP 784-32-10, 2,000 images" } else { "MLP 2-8-8-2" })}
                            </option>
                        }).collect_view()}
                    </select>
                </label>
                <label>"Optimizer"
                    <select data-testid="cl-optimizer" on:change=move |ev| {
                        if let Ok(i) = event_target_value(&ev).parse::<usize>() { set(&|s| s.optimizer = i) }
                    }>
                        {Optimizer::all().into_iter().enumerate().map(|(i, o)| view! { <option value=i.to_string() selected=move || settings.with(|s| s.optimizer == i)>{o.label()}</option> }).collect_view()}
                    </select>
                </label>
                {number("Learning rate", "cl-lr", |s| s.lr.to_string(), |s, v| v.parse().ok().filter(|x: &f32| *x > 0.0 && x.is_finite()).map(|x| s.lr = x).is_some())}
                {number("Target accuracy (checked on 1,000 training images)", "cl-target", |s| s.target.to_string(), |s, v| v.parse().ok().filter(|x: &f32| (0.0..=1.0).contains(x)).map(|x| s.target = x).is_some())}
                {number("Update budget per run", "cl-steps", |s| s.max_steps.to_string(), |s, v| v.parse().ok().filter(|x: &usize| (1..=20_000).contains(x)).map(|x| s.max_steps = x).is_some())}
                <h2>"Workers"</h2>
                {number("Workers (1–64)", "cl-workers", |s| s.workers.to_string(), |s, v| v.parse().ok().filter(|x: &usize| (1..=64).contains(x)).map(|x| s.workers = x).is_some())}
                <label>"Scaling"
                    <select data-testid="cl-scaling" on:change=move |ev| { let weak = event_target_value(&ev) == "weak"; set(&|s| s.weak = weak); }>
                        <option value="strong" selected=move || settings.with(|s| !s.weak)>"strong: the global batch is split across the workers"</option>
                        <option value="weak" selected=move || settings.with(|s| s.weak)>"weak: each worker keeps its batch (the global batch grows)"</option>
                    </select>
                </label>
                {number("Batch (global when strong, per worker when weak)", "cl-batch", |s| s.batch.to_string(), |s, v| v.parse().ok().filter(|x: &usize| (1..=4096).contains(x)).map(|x| s.batch = x).is_some())}
                <p class="small muted" data-testid="cl-batch-note">{move || settings.with(|s| {
                    let per = s.per_worker(s.workers);
                    format!("{} scaling: each of the {} workers computes on {per} samples; one update uses {} samples", if s.weak { "weak" } else { "strong" }, s.workers, per * s.workers)
                })}</p>
                {number("Worker speed (GFLOP/s)", "cl-gflops", |s| s.gflops.to_string(), |s, v| v.parse().ok().filter(|x: &f64| *x > 0.0 && x.is_finite()).map(|x| s.gflops = x).is_some())}
                {number("Straggler: the last worker is this many times slower", "cl-straggler", |s| s.straggler.to_string(), |s, v| v.parse().ok().filter(|x: &f64| (1.0..=100.0).contains(x)).map(|x| s.straggler = x).is_some())}
                <h2>"Allreduce"</h2>
                <fieldset class="choices" data-testid="cl-algorithms"><legend>"Algorithms to train and compare"</legend>
                    {(0..7).map(|i| view! {
                        <label class="inline">
                            <input type="checkbox" data-testid=format!("cl-alg-{i}") prop:checked=move || settings.with(|s| s.chosen[i])
                                on:change=move |ev| { let on = event_target_checked(&ev); settings.update(|s| s.chosen[i] = on); }/>
                            {ALGORITHMS[i].1}
                        </label>
                    }).collect_view()}
                </fieldset>
                {number("Parameter-server shards", "cl-shards", |s| s.shards.to_string(), |s, v| v.parse().ok().filter(|x: &usize| (1..=64).contains(x)).map(|x| s.shards = x).is_some())}
                {number("GPUs per node", "cl-gpus", |s| s.gpus_per_node.to_string(), |s, v| v.parse().ok().filter(|x: &usize| (1..=64).contains(x)).map(|x| s.gpus_per_node = x).is_some())}
                {link_select("Link inside a node", "cl-intra", |s| s.intra, |s, i| s.intra = i)}
                {link_select("Link between nodes", "cl-inter", |s| s.inter, |s, i| s.inter = i)}
                {check("Overlap: allreduce each layer as soon as backward has produced it", "cl-overlap", |s| s.overlap, |s, on| s.overlap = on)}
                <h2>"Consistency and compression"</h2>
                {check("Asynchronous SGD (through a parameter server)", "cl-async", |s| s.asynchronous, |s, on| s.asynchronous = on)}
                <Show when=move || settings.with(|s| s.asynchronous)>
                    <p class="small muted" data-testid="cl-async-note">"Asynchronous workers push and pull through one parameter server, whatever algorithm is ticked (one run); the server's link is shared, so pushes and pulls queue for it."</p>
                </Show>
                {number("Staleness bound (iterations ahead of the slowest; empty = none)", "cl-bound", |s| s.bound.clone(), |s, v| { s.bound = v.trim().into(); v.trim().is_empty() || v.trim().parse::<usize>().is_ok() })}
                <label>"Gradient compression"
                    <select data-testid="cl-compression" on:change=move |ev| { if let Ok(i) = event_target_value(&ev).parse::<usize>() { set(&|s| s.compression = i) } }>
                        {COMPRESSIONS.iter().enumerate().map(|(i, c)| view! { <option value=i.to_string() selected=move || settings.with(|s| s.compression == i)>{*c}</option> }).collect_view()}
                    </select>
                </label>
                {number("k: percent of coordinates kept", "cl-percent", |s| s.percent.to_string(), |s, v| v.parse().ok().filter(|x: &f32| *x > 0.0 && *x <= 100.0).map(|x| s.percent = x).is_some())}
                <label>"Quantization bits"
                    <select data-testid="cl-bits" on:change=move |ev| { if let Ok(b) = event_target_value(&ev).parse::<u32>() { set(&|s| s.bits = b) } }>
                        {[8u32, 4, 2, 1].map(|b| view! { <option value=b.to_string() selected=move || settings.with(|s| s.bits == b)>{format!("{b}-bit")}</option> }).collect_view()}
                    </select>
                </label>
                <Show when=move || settings.with(|s| s.compression().supports_error_feedback())>
                    {check("Error feedback (keep what compression dropped for the next step)", "cl-ef", |s| s.error_feedback, |s, on| s.error_feedback = on)}
                </Show>
                <p class="small muted" data-testid="cl-compression-note">{move || settings.with(|s| s.compression_note().unwrap_or_default())}</p>
                <label>"Backend"
                    <select data-testid="cl-backend" on:change=move |ev| webgpu.set(event_target_value(&ev) == "webgpu")>
                        <option value="cpu" selected=true>"CPU path"</option>
                        <option value="webgpu">"WebGPU (CPU path if missing)"</option>
                    </select>
                </label>
                {number("Worker counts for time to accuracy", "cl-study", |s| s.study.clone(), |s, v| { s.study = v.into(); true })}
                <div class="buttons">
                    <button class="primary" data-lab-start="true" data-testid="cl-train" disabled=move || running.get() on:click=go_train>"Train"</button>
                    <button data-testid="cl-run-study" disabled=move || running.get() on:click=go_study>"Time to accuracy"</button>
                    <button data-lab-pause="true" data-testid="cl-cancel" disabled=move || !running.get() on:click=stop>"Cancel"</button>
                </div>
                <progress data-testid="cl-progress" max="1" prop:value=move || progress.get()></progress>
                <p data-lab-status="true" data-testid="cl-status">{move || status.get()}</p>
                <div class="buttons wrap">
                    <button data-testid="cl-export-csv" disabled=move || record.with(Option::is_none) on:click=export_csv>"runs CSV"</button>
                    <button data-testid="cl-export-record" disabled=move || record.with(Option::is_none) on:click=export_record>"results JSON"</button>
                    <button data-testid="cl-export-curve" on:click=export_curve>"speed-up CSV"</button>
                    <button data-testid="cl-export-config" on:click=export_config>"engine config JSON"</button>
                </div>
                <label>"Reload saved results (their JSON)"
                    <input type="file" accept=".json,application/json" data-testid="cl-load" on:change=load_record/>
                </label>
            </section>
            <section class="views">
                <figure>
                    <canvas node_ref=canvases.animation data-testid="cl-animation" width="440" height="360"></canvas>
                    <div class="buttons">
                        <select data-testid="cl-animate" on:change=move |ev| { if let Ok(i) = event_target_value(&ev).parse::<usize>() { playing.set(false); frame.set(0); set(&|s| s.animate = i) } }>
                            {(0..7).map(|i| view! { <option value=i.to_string() selected=move || settings.with(|s| s.animate == i)>{ALGORITHMS[i].1}</option> }).collect_view()}
                        </select>
                        <button data-testid="cl-back" on:click=move |_| frame.update(|k| *k = k.saturating_sub(1))>"◀ step"</button>
                        <button data-testid="cl-play" on:click=play>{move || if playing.get() { "pause" } else { "play" }}</button>
                        <button data-testid="cl-step" on:click=move |_| { let n = total_frames(); frame.update(|k| *k = (*k + 1).min(n - 1)) }>"step ▶"</button>
                        <select data-testid="cl-speed" on:change=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<f64>() { interval.set(v) } }>
                            <option value="1200">"slow"</option>
                            <option value="600" selected=true>"normal"</option>
                            <option value="150">"fast"</option>
                        </select>
                    </div>
                    <figcaption data-testid="cl-animation-caption">{move || animation.with(|a| a.as_ref().map(|a| {
                        let k = frame.get();
                        let steps = a.schedule.steps.len();
                        if k == 0 {
                            format!("{}: {steps} steps. Before the first step each worker holds only its own gradient.", a.schedule_label())
                        } else {
                            let msgs = &a.schedule.steps[k - 1];
                            let elems: usize = msgs.iter().map(|m| m.len).sum();
                            format!("step {k} of {steps}: {} messages, {} values in all, {} ({}). {}", msgs.len(), elems,
                                charts::seconds(a.step_seconds[k - 1]),
                                if msgs.iter().all(|m| m.reduce) { "each receiver adds" } else if msgs.iter().all(|m| !m.reduce) { "each receiver copies" } else { "adds and copies" },
                                if k == steps { "Every worker now holds the sum of all gradients." } else { "" })
                        }
                    }).unwrap_or_default())}</figcaption>
                </figure>
                <figure>
                    <canvas node_ref=canvases.timeline data-testid="cl-timeline" width="440" height="300"></canvas>
                    <figcaption>"One iteration per worker: compute above, communication below. Synchronous: everyone waits for the slowest worker and the allreduce; with overlap each layer's bucket is sent while backward goes on. An asynchronous run shows its first updates instead: compute, then push and pull, and grey waits where the staleness bound holds a fast worker back."</figcaption>
                </figure>
                <figure>
                    <canvas node_ref=canvases.speedup data-testid="cl-speedup" width="420" height="300"></canvas>
                    <figcaption>"Speed-up of synchronous training (samples per second over one worker training the batch alone) against worker count, from the same schedules and cost model as the runs."</figcaption>
                </figure>
                <figure>
                    <canvas node_ref=canvases.efficiency data-testid="cl-efficiency" width="420" height="300"></canvas>
                    <figcaption>"Efficiency: speed-up divided by workers; 1 is perfect."</figcaption>
                </figure>
                <figure>
                    <canvas node_ref=canvases.bytes data-testid="cl-bytes" width="420" height="300"></canvas>
                    <figcaption>"Bytes on the wire per iteration, all links together (with the chosen compression)."</figcaption>
                </figure>
                <figure>
                    <canvas node_ref=canvases.loss data-testid="cl-loss" width="420" height="300"></canvas>
                    <figcaption>"Training loss of each run against modelled time; a compressed or asynchronous run is shown beside its uncompressed synchronous twin."</figcaption>
                </figure>
                <figure>
                    <canvas node_ref=canvases.tta data-testid="cl-tta" width="420" height="300"></canvas>
                    <figcaption>"Time to accuracy: modelled seconds until the target, against worker count (Time to accuracy button). The honest measure of scaling (Hoefler 2018)."</figcaption>
                </figure>
                <figure>
                    <table class="results" data-testid="cl-table">
                        <tr><th>"run"</th><th>"updates"</th><th>"to target"</th><th>"bytes / update"</th><th>"saved"</th><th>"staleness (mean / max)"</th><th>"test acc."</th></tr>
                        {move || record.get().map(|r| r.runs.iter().map(|x| view! {
                            <tr>
                                <td>{x.label.clone()}</td>
                                <td>{x.losses.len()}</td>
                                <td>{match (x.diverged_at, x.reached, x.stalled_at) {
                                    (Some(s), _, _) => format!("diverged at update {s}"),
                                    (None, Some(c), _) => format!("{} updates, {}", c.step, charts::seconds(c.time)),
                                    (None, None, Some(s)) => format!("stalled at update {s}: no progress for {STALL_CHECKS} checks"),
                                    (None, None, None) => "not reached".into(),
                                }}</td>
                                <td>{human_bytes(x.bytes_per_step)}</td>
                                <td>{if x.dense_bytes_per_step > 0.0 { format!("{:.0} %", 100.0 * (1.0 - x.bytes_per_step / x.dense_bytes_per_step)) } else { "–".into() }}</td>
                                <td>{format!("{:.1} / {}", x.staleness_mean, x.staleness_max)}</td>
                                <td>{x.test_accuracy.map_or("–".into(), |a| format!("{:.1} %", a * 100.0))}</td>
                            </tr>
                        }).collect_view())}
                    </table>
                </figure>
            </section>
        </main>
    }
}

impl Animation {
    fn schedule_label(&self) -> String {
        format!("{} workers", self.schedule.workers)
    }
}

fn link_label(name: &str) -> String {
    let l = Link::preset(name).expect("a preset");
    let label = match name {
        "nvlink" => "NVLink",
        "pcie" => "PCIe",
        "infiniband" => "InfiniBand",
        "100gbe" => "100 Gb Ethernet",
        "10gbe" => "10 Gb Ethernet",
        "wifi" => "Wi-Fi",
        other => other,
    };
    format!(
        "{label} (α {}, {:.2} GB/s)",
        charts::seconds(l.alpha),
        1e-9 / l.beta
    )
}

fn human_bytes(b: f64) -> String {
    if b >= 1e6 {
        format!("{:.2} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.1} kB", b / 1e3)
    } else {
        format!("{b:.0} B")
    }
}

/// The timeline of one synchronous iteration as set (an asynchronous run draws its own trace).
fn draw_timeline(c: &Canvases, s: &Settings) {
    let Some(canvas) = c.timeline.get_untracked() else {
        return;
    };
    let (Ok(work), Ok(config)) = (s.work(), s.config(s.workers, s.animate)) else {
        return;
    };
    let sync = ClusterConfig {
        consistency: Consistency::Synchronous,
        ..config
    };
    let t = sync.iteration(&work, s.per_worker(s.workers));
    let title = format!(
        "{}: {} compute + {} exposed comm.",
        ALGORITHMS[s.animate].1,
        charts::seconds(t.compute_seconds),
        charts::seconds(t.exposed_comm_seconds)
    );
    charts::timeline(&canvas, &t.segments, s.workers, &title);
}

/// What to train: (label, workers, algorithm index, compression, forced synchronous) per run.
type Plan = Vec<(String, usize, usize, Compression, bool)>;

fn plan(s: &Settings, study: bool) -> Result<Plan, String> {
    let mut runs = Vec::new();
    // Asynchronous workers talk to a parameter server whatever allreduce is ticked: one run.
    let algorithms: Vec<usize> = if s.asynchronous {
        s.chosen().into_iter().take(1).collect()
    } else {
        s.chosen()
    };
    if study {
        for p in s.study()? {
            for &i in &algorithms {
                runs.push((
                    format!("study {}", s.run_label(p, i, s.compression())),
                    p,
                    i,
                    s.compression(),
                    false,
                ));
            }
        }
    } else {
        for &i in &algorithms {
            runs.push((
                s.run_label(s.workers, i, s.compression()),
                s.workers,
                i,
                s.compression(),
                false,
            ));
        }
        // The twin without compression (and synchronous), for what compression or staleness cost.
        if s.compression() != Compression::None || s.asynchronous {
            let i = s.chosen()[0];
            runs.push((
                format!("{} × {} · sync, uncompressed", s.workers, ALGORITHMS[i].1),
                s.workers,
                i,
                Compression::None,
                true,
            ));
        }
    }
    Ok(runs)
}

#[allow(clippy::too_many_arguments)]
async fn run_all(
    s: &Settings,
    plan: Plan,
    study: bool,
    webgpu: bool,
    status: RwSignal<String>,
    progress: RwSignal<f64>,
    cancel: &Cell<bool>,
    record: RwSignal<Option<ClusterRecord>>,
    canvases: Canvases,
) -> Result<(), String> {
    let gpu = crate::task::gpu_if(webgpu, status).await;
    status.set("loading data…".into());
    let (train, test) = fetch::data(&s.train_config(1)).await?;
    let target = Target::Accuracy(s.target);
    let mut kept = record.get_untracked().map(|r| r.runs).unwrap_or_default();
    // A new Train replaces the runs of the last Train; a study replaces the last study.
    kept.retain(|r| r.label.starts_with("study") != study);
    record.set(Some(ClusterRecord::new(
        target,
        kept,
        curve(s).unwrap_or_default(),
    )));
    let total = plan.len();
    for (k, (label, workers, i, compression, sync)) in plan.into_iter().enumerate() {
        if cancel.get() {
            break;
        }
        status.set(format!("run {} of {total}: {label}…", k + 1));
        let mut config = s.config(workers, i)?;
        if sync {
            config.consistency = Consistency::Synchronous;
        }
        config.compression = compression;
        let mut trainer = Trainer::with_data(s.train_config(workers), train.clone(), gpu.clone(), 1).await?;
        let mut cluster = Cluster::new(config, &trainer.compiled, trainer.config.batch);
        let share = 1.0 / total as f64;
        let last_frame = Cell::new(now_ms());
        let run = train_to_target(
            label,
            &mut cluster,
            &mut trainer,
            target,
            s.max_steps,
            Some(&test),
            |done, max| {
                progress.set(share * (k as f64 + done as f64 / max as f64));
                let last_frame = &last_frame;
                async move {
                    if now_ms() - last_frame.get() > 50.0 {
                        next_frame().await;
                        last_frame.set(now_ms());
                    }
                    !cancel.get()
                }
            },
        )
        .await?;
        if matches!(cluster.config.consistency, Consistency::Asynchronous { .. }) {
            if let Some(c) = canvases.timeline.get_untracked() {
                let title = format!("first updates of {}", run.label);
                charts::timeline(&c, &cluster.trace, workers, &title);
            }
        }
        record.update(|r| {
            if let Some(r) = r {
                r.runs.push(run);
            }
        });
        record.with_untracked(|r| {
            if let Some(r) = r {
                draw_runs(&canvases, s, r);
            }
        });
        next_frame().await;
    }
    progress.set(1.0);
    Ok(())
}
