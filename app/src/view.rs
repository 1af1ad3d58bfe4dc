//! The playground page: data, features and network settings on the left, the decision boundary
//! and the loss curves on the right. Every control and readout carries a `data-testid` (listed
//! in the README); any control can be hidden from the URL with `<name>_hide=true`.

use std::rc::Rc;

use leptos::ev::MouseEvent;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use engine::data::features::Feature;
use engine::data::toy::ToyKind;
use engine::model::Init;
use engine::ops::activation::Activation;
use engine::plan::Loss;
use lab_state::playground::{BackendChoice, Playground, DECAYS, MAX_LAYERS, MAX_NEURONS, OPTIMIZERS};

use crate::browser;
use crate::lab::{GpuStatus, Lab, Speed};

const LEARNING_RATES: [f32; 9] = [0.0001, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0];
const BATCHES: [usize; 8] = [1, 4, 8, 16, 32, 64, 128, 256];

fn fmt_opt(v: Option<f32>, digits: usize) -> String {
    v.map_or("–".into(), |v| format!("{v:.digits$}"))
}

fn percent(v: Option<f32>) -> String {
    v.map_or("–".into(), |a| format!("{:.0} %", a * 100.0))
}

/// A `<select>` over `options` (value, label) bound to one field of the state; `off` says when
/// the choice does not apply (it is then disabled).
fn choice<T: Clone + PartialEq + Send + Sync + 'static>(
    lab: &Rc<Lab>,
    testid: &'static str,
    options: Vec<(String, String, T)>,
    get: fn(&Playground) -> T,
    set: fn(&mut Playground, T),
    off: fn(&Playground) -> bool,
) -> impl IntoView {
    let state = lab.state;
    let lab = lab.clone();
    let values = options.clone();
    view! {
        <select data-testid=testid prop:disabled=move || state.with(off) on:change=move |ev| {
            let v = event_target_value(&ev);
            if let Some((_, _, t)) = values.iter().find(|(k, _, _)| *k == v) {
                let t = t.clone();
                lab.update(move |s| set(s, t));
            }
        }>
            {options.into_iter().map(|(key, label, t)| view! {
                <option value=key selected=move || state.with(|s| get(s) == t)>{label}</option>
            }).collect_view()}
        </select>
    }
}

/// A number `<input>` bound to one f32 field; unparsable input is ignored.
fn number(
    lab: &Rc<Lab>,
    testid: &'static str,
    step: &'static str,
    get: fn(&Playground) -> f32,
    set: fn(&mut Playground, f32),
) -> impl IntoView {
    let state = lab.state;
    let lab = lab.clone();
    view! {
        <input type="number" step=step min="0" data-testid=testid
            prop:value=move || state.with(|s| get(s).to_string())
            on:change=move |ev| {
                if let Ok(v) = event_target_value(&ev).trim().parse::<f32>() {
                    lab.update(move |s| set(s, v));
                }
            } />
    }
}

fn keyed<T: Copy + serde::Serialize>(items: &[T], label: fn(T) -> String) -> Vec<(String, String, T)> {
    items
        .iter()
        .map(|&t| {
            let key = serde_json::to_value(t)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            (key, label(t), t)
        })
        .collect()
}

#[component]
pub fn App() -> impl IntoView {
    let lab = Lab::new();
    let state = lab.state;
    let r = lab.readouts;
    let notices = lab.notices;
    leptos::task::spawn_local(lab.clone().detect_gpu());
    let shown = move |name: &'static str| move || !state.with(|s| s.hide.contains(name));
    // A settings file goes through the same path as the controls: checked, then a fresh model.
    let (file_notices, loaded) = (
        RwSignal::new(Vec::<String>::new()),
        RwSignal::new(None::<Playground>),
    );
    {
        let lab = lab.clone();
        Effect::new(move |_| {
            if let Some(s) = loaded.get() {
                lab.update(move |st| *st = s);
            }
        });
    }
    let busy = move || r.gpu.get() == GpuStatus::Detecting;
    // Regression has no classes: accuracy does not apply.
    let regression = move || state.with(|s| s.dataset.is_regression());

    let datasets = ToyKind::ALL
        .into_iter()
        .chain(ToyKind::REGRESSION)
        .map(|k| (k.key().to_string(), k.label().to_string(), k))
        .collect();
    let activations = keyed(&Activation::ALL, |a| a.label().to_string());
    let inits = keyed(&[Init::Auto, Init::Glorot, Init::He, Init::Zero], |i| {
        match i {
            Init::Auto => "auto (He for ReLU, else Glorot)",
            Init::Glorot => "Glorot",
            Init::He => "He",
            Init::Zero => "zero",
        }
        .to_string()
    });
    let losses = keyed(&[Loss::CrossEntropy, Loss::Mse], |l| {
        match l {
            Loss::CrossEntropy => "cross-entropy",
            Loss::Mse => "mean squared error",
        }
        .to_string()
    });
    let backends = keyed(
        &[BackendChoice::Auto, BackendChoice::Webgpu, BackendChoice::Cpu],
        |b| {
            match b {
                BackendChoice::Auto => "auto (the faster)",
                BackendChoice::Webgpu => "WebGPU",
                BackendChoice::Cpu => "CPU",
            }
            .to_string()
        },
    );
    let optimizers = OPTIMIZERS
        .iter()
        .map(|o| (o.to_string(), o.to_string(), o.to_string()))
        .collect();
    let decays = DECAYS
        .iter()
        .map(|o| (o.to_string(), o.to_string(), o.to_string()))
        .collect();
    let rates = LEARNING_RATES
        .iter()
        .map(|v| (v.to_string(), v.to_string(), *v))
        .collect();
    let batches = BATCHES
        .iter()
        .map(|v| (v.to_string(), v.to_string(), *v))
        .collect();
    let classes = (2..=5usize).map(|c| (c.to_string(), c.to_string(), c)).collect();

    let (l_train, l_pause, l_step, l_reset) = (lab.clone(), lab.clone(), lab.clone(), lab.clone());
    let (l_regen, l_upload, l_forget, l_click) = (lab.clone(), lab.clone(), lab.clone(), lab.clone());
    let (l_add, l_remove, l_show, l_feat) = (lab.clone(), lab.clone(), lab.clone(), lab.clone());
    let (l_w, l_l, l_h) = (lab.clone(), lab.clone(), lab.clone());
    let l_neurons = lab.clone();
    let on_click = move |ev: MouseEvent| {
        let Some(canvas) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlCanvasElement>().ok())
        else {
            return;
        };
        let rect = canvas.get_bounding_client_rect();
        let x = ((ev.client_x() as f64 - rect.left()) / rect.width()) as f32 * 2.0 - 1.0;
        let y = 1.0 - ((ev.client_y() as f64 - rect.top()) / rect.height()) as f32 * 2.0;
        l_click.add_point(x, y);
    };
    let on_upload = move |ev: leptos::ev::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let lab = l_upload.clone();
        leptos::task::spawn_local(async move {
            match browser::read_file(&input).await {
                Ok((name, text)) => lab.use_points(&name, &text),
                Err(e) => lab.readouts.error.set(Some(e)),
            }
            input.set_value("");
        });
    };

    let settings = lab.state;
    view! {
        <header class="top">
            <h1>"Training Lab"</h1>
            <p class="tagline">"Train a neural network in your browser and watch it learn."</p>
            <nav class="labs" aria-label="other labs">
                <a href="labs" data-testid="nav-labs">"all labs"</a>
                <a href="optimizers" data-testid="nav-optimizers">"optimizers"</a>
                <a href=move || landscape_link(&settings.get()) data-testid="nav-landscape"
                    title="train this network and map its loss landscape">"loss landscape of this network"</a>
                <a href="scaling" data-testid="nav-scaling">"batch size and learning rate"</a>
                <a href="cluster" data-testid="nav-cluster">"data-parallel cluster"</a>
                <a href="vision" data-testid="nav-vision">"vision (CNNs on images)"</a>
                <a href="bench" data-testid="nav-bench">"benchmark"</a>
            </nav>
            <span class="backend" data-testid="backend" title="where the training runs">
                {move || match r.gpu.get() {
                    GpuStatus::Detecting => "Looking for WebGPU…".to_string(),
                    GpuStatus::Ready(label) => label,
                    GpuStatus::Unavailable(_) => "CPU".to_string(),
                }}
            </span>
        </header>
        {move || match r.gpu.get() {
            GpuStatus::Unavailable(why) => Some(view! {
                <div class="notice" data-testid="backend-notice" role="status">
                    <strong>"WebGPU is not available in this browser, so the lab trains on the CPU instead. "</strong>
                    "The math is the same, only slower. Reason: " {why}
                </div>
            }),
            _ => None,
        }}
        {move || (!notices.get().is_empty()).then(|| view! {
            <div class="notice" data-testid="url-notice" role="status">
                <strong>"Some settings in the link could not be used: "</strong>
                {notices.get().join("; ")}
            </div>
        })}
        <crate::banner::ErrorBanner error=r.error id="error"/>
        <main class="lab">
            <section class="controls" aria-label="data">
                <div class:hidden=move || !shown("share")()>
                    <crate::share::StateBar state=state notices=file_notices loaded=loaded/>
                </div>
                <h2>"Data"</h2>
                <label class:hidden=move || !shown("dataset")()>"Data set"
                    {choice(&lab, "dataset", datasets, |s| s.dataset, |s, v| s.dataset = v, |_| false)}
                </label>
                <label class:hidden=move || !shown("classes")()>"Classes"
                    {choice(&lab, "classes", classes, |s| s.effective_classes(), |s, v| s.classes = v, |s| s.dataset.max_classes() < 3)}
                </label>
                <label class:hidden=move || !shown("noise")()>
                    {move || format!("Noise: {:.2}", state.with(|s| s.noise))}
                    <input type="range" min="0" max="0.5" step="0.01" data-testid="noise"
                        prop:value=move || state.with(|s| s.noise.to_string())
                        on:change={ let lab = lab.clone(); move |ev| {
                            if let Ok(v) = event_target_value(&ev).parse::<f32>() { lab.update(move |s| s.noise = v); }
                        }} />
                </label>
                <label class:hidden=move || !shown("test")()>
                    {move || format!("Test data: {:.0} %", state.with(|s| s.test_ratio * 100.0))}
                    <input type="range" min="0" max="0.9" step="0.05" data-testid="test-ratio"
                        prop:value=move || state.with(|s| s.test_ratio.to_string())
                        on:change={ let lab = lab.clone(); move |ev| {
                            if let Ok(v) = event_target_value(&ev).parse::<f32>() { lab.update(move |s| s.test_ratio = v); }
                        }} />
                </label>
                <label class="inline" class:hidden=move || !shown("show_test")()>
                    <input type="checkbox" data-testid="show-test" prop:checked=move || state.with(|s| s.show_test)
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            l_show.update(move |s| s.show_test = on);
                        } />
                    "Show test data (hollow)"
                </label>
                <div class="buttons" class:hidden=move || !shown("regenerate")()>
                    <button data-testid="regenerate" on:click=move |_| l_regen.regenerate()>"Regenerate"</button>
                    <span class="muted" data-testid="seed">{move || format!("seed {}", state.with(|s| s.seed))}</span>
                </div>
                <label>"Your own points (CSV: x,y,label)"
                    <input type="file" accept=".csv,text/csv,text/plain" data-testid="upload" on:change=on_upload />
                </label>
                <label>"Click the plot to add a point of class"
                    <select data-testid="add-class" on:change={ let lab = lab.clone(); move |ev| {
                        if let Ok(c) = event_target_value(&ev).parse::<u32>() { lab.add_class.set(c); }
                    }}>
                        {(0..5u32).map(|c| view! { <option value=c.to_string()>{c}</option> }).collect_view()}
                    </select>
                </label>
                <button data-testid="forget-points" class:hidden=move || !r.custom_data.get()
                    on:click=move |_| l_forget.forget_points()>"Back to generated data"</button>
                <h2 class:hidden=move || !shown("features")()>"Features"</h2>
                <div class="features" class:hidden=move || !shown("features")()>
                    {Feature::ALL.into_iter().map(|f| {
                        let lab = l_feat.clone();
                        view! {
                            <label class="inline">
                                <input type="checkbox" data-testid=format!("feature-{}", f.key())
                                    prop:checked=move || state.with(|s| s.features.contains(&f))
                                    on:change=move |ev| {
                                        let on = event_target_checked(&ev);
                                        lab.update(move |s| {
                                            s.features.retain(|g| *g != f);
                                            if on { s.features.push(f); }
                                            s.features.sort_by_key(|g| Feature::ALL.iter().position(|h| h == g));
                                            if s.features.is_empty() { s.features = vec![Feature::X, Feature::Y]; }
                                        });
                                    } />
                                {f.label()}
                            </label>
                        }
                    }).collect_view()}
                </div>
            </section>
            <section class="controls" aria-label="network and training">
                <h2>"Network"</h2>
                <div class="layers" class:hidden=move || !shown("hidden")()>
                    <span data-testid="layers">{move || match state.with(|s| s.hidden.len()) {
                        1 => "1 hidden layer".to_string(),
                        n => format!("{n} hidden layers"),
                    }}</span>
                    <button data-testid="add-layer" aria-label="add a hidden layer"
                        disabled=move || state.with(|s| s.hidden.len() >= MAX_LAYERS)
                        on:click=move |_| l_add.update(|s| { let n = s.hidden.last().copied().unwrap_or(4); s.hidden.push(n) })>"+"</button>
                    <button data-testid="remove-layer" aria-label="remove a hidden layer"
                        disabled=move || state.with(|s| s.hidden.is_empty())
                        on:click=move |_| l_remove.update(|s| { s.hidden.pop(); })>"−"</button>
                </div>
                <div class="neurons" class:hidden=move || !shown("hidden")()>
                    {(0..MAX_LAYERS).map(|i| {
                        let lab = l_neurons.clone();
                        view! {
                            <label class:hidden=move || state.with(|s| i >= s.hidden.len())>{format!("layer {}", i + 1)}
                                <input type="number" min="1" max=MAX_NEURONS.to_string() data-testid=format!("neurons-{i}")
                                    prop:value=move || state.with(|s| s.hidden.get(i).copied().unwrap_or(1).to_string())
                                    on:change=move |ev| {
                                        if let Ok(n) = event_target_value(&ev).trim().parse::<usize>() {
                                            lab.update(move |s| if let Some(h) = s.hidden.get_mut(i) { *h = n.clamp(1, MAX_NEURONS) });
                                        }
                                    } />
                            </label>
                        }
                    }).collect_view()}
                </div>
                <label class:hidden=move || !shown("activation")()>"Activation"
                    {choice(&lab, "activation", activations, |s| s.activation, |s, v| s.activation = v, |_| false)}
                </label>
                <label class:hidden=move || !shown("init")()>"Initialization"
                    {choice(&lab, "init", inits, |s| s.init, |s, v| s.init = v, |_| false)}
                </label>
                <label class:hidden=move || !shown("dropout")()>"Dropout rate"
                    {number(&lab, "dropout", "0.05", |s| s.dropout, |s, v| s.dropout = v)}
                </label>
                <h2>"Training"</h2>
                <label class:hidden=move || !shown("loss")()>"Loss"
                    {choice(&lab, "loss-kind", losses, |s| s.effective_loss(), |s, v| s.loss = v, |s| s.dataset.is_regression())}
                </label>
                <label class:hidden=move || !shown("optimizer")()>"Optimizer"
                    {choice(&lab, "optimizer", optimizers, |s| s.optimizer.clone(), |s, v| s.optimizer = v, |_| false)}
                </label>
                <label class:hidden=move || !shown("momentum")()>"Momentum / β₁"
                    {number(&lab, "momentum", "0.05", |s| s.momentum, |s, v| s.momentum = v)}
                </label>
                <label class:hidden=move || !shown("beta2")()>"β₂ (Adam, AdamW) / β (RMSProp)"
                    {number(&lab, "beta2", "0.001", |s| s.beta2, |s, v| s.beta2 = v)}
                </label>
                <label class:hidden=move || !shown("eps")()>"ε"
                    {number(&lab, "eps", "any", |s| s.eps, |s, v| s.eps = v)}
                </label>
                <label class:hidden=move || !shown("weight_decay")()>"Weight decay (AdamW, LARS)"
                    {number(&lab, "weight-decay", "0.001", |s| s.weight_decay, |s, v| s.weight_decay = v)}
                </label>
                <label class:hidden=move || !shown("lr")()>"Learning rate"
                    {choice(&lab, "learning-rate", rates, |s| s.learning_rate, |s, v| s.learning_rate = v, |_| false)}
                </label>
                <label class:hidden=move || !shown("warmup")()>"Warmup steps"
                    {number(&lab, "warmup", "10", |s| s.warmup as f32, |s, v| s.warmup = v.max(0.0) as u32)}
                </label>
                <label class:hidden=move || !shown("decay")()>"Schedule after warmup"
                    {choice(&lab, "decay", decays, |s| s.decay.clone(), |s, v| s.decay = v, |_| false)}
                </label>
                <label class:hidden=move || !shown("decay")()>"… over steps (step: halve every; exponential: half-life; cosine: to zero)"
                    {number(&lab, "decay-steps", "100", |s| s.decay_steps as f32, |s, v| s.decay_steps = v.max(1.0) as u32)}
                </label>
                <label class:hidden=move || !shown("batch")()>"Batch size"
                    {choice(&lab, "batch", batches, |s| s.batch, |s, v| s.batch = v, |_| false)}
                </label>
                <label class:hidden=move || !shown("l1")()>"L1 rate"
                    {number(&lab, "l1", "0.001", |s| s.l1, |s, v| s.l1 = v)}
                </label>
                <label class:hidden=move || !shown("l2")()>"L2 rate"
                    {number(&lab, "l2", "0.001", |s| s.l2, |s, v| s.l2 = v)}
                </label>
                <label class:hidden=move || !shown("backend")()>"Backend"
                    {choice(&lab, "backend-choice", backends, |s| s.backend, |s, v| s.backend = v, |_| false)}
                </label>
            </section>
            <section class="controls" aria-label="run">
                <div class="buttons">
                    <button data-testid="train" data-lab-start="true" class="primary" disabled=move || busy() || r.running.get()
                        on:click=move |_| l_train.train()>"Train"</button>
                    <button data-testid="pause" data-lab-pause="true" disabled=move || !r.running.get()
                        on:click=move |_| l_pause.pause()>"Pause"</button>
                </div>
                <div class="buttons">
                    <button data-testid="step-once" class:hidden=move || !shown("step")() disabled=move || busy() || r.running.get()
                        on:click=move |_| l_step.step()>"Step"</button>
                    <button data-testid="reset" disabled=busy on:click=move |_| l_reset.reset()>"Reset"</button>
                </div>
                <label class:hidden=move || !shown("speed")()>"Speed"
                    <select data-testid="speed-choice" on:change={ let lab = lab.clone(); move |ev| {
                        lab.speed.set(match event_target_value(&ev).as_str() {
                            "1" => Speed::Steps(1),
                            "10" => Speed::Steps(10),
                            _ => Speed::Max,
                        });
                    }}>
                        <option value="max">"as fast as possible"</option>
                        <option value="10">"10 steps per frame"</option>
                        <option value="1">"1 step per frame"</option>
                    </select>
                </label>
                <dl class="readouts">
                    <dt>"Step"</dt><dd data-testid="step">{move || r.step.get()}</dd>
                    <dt>"Epoch"</dt><dd data-testid="epoch">{move || r.epoch.get()}</dd>
                    <dt>"Batch loss"</dt><dd data-testid="loss">{move || fmt_opt(r.loss.get(), 4)}</dd>
                    <dt>"Loss at step 1"</dt><dd data-testid="loss-start">{move || fmt_opt(r.first_loss.get(), 4)}</dd>
                    <dt>"Test loss"</dt><dd data-testid="test-loss">{move || fmt_opt(r.test_loss.get(), 4)}</dd>
                    <dt>"Batch accuracy"</dt><dd data-testid="accuracy">{move || percent(r.accuracy.get().filter(|_| !regression()))}</dd>
                    <dt>"Test accuracy"</dt><dd data-testid="test-accuracy">{move || percent(r.test_accuracy.get().filter(|_| !regression()))}</dd>
                    <dt>"Steps / s"</dt>
                    <dd data-testid="speed">{move || r.steps_per_second.get().map_or("–".into(), |v| format!("{v:.0}"))}</dd>
                    <dt>"Runs on"</dt><dd data-testid="device">{move || r.backend.get()}</dd>
                </dl>
                <p class="muted small" data-testid="backend-reason">{move || r.backend_reason.get().unwrap_or_default()}</p>
                <div class="buttons wrap" class:hidden=move || !shown("export")()>
                    <button data-testid="export-weights" on:click=move |_| l_w.export_weights()>"Weights (JSON)"</button>
                    <button data-testid="export-loss" on:click=move |_| l_l.export_losses()>"Loss (CSV)"</button>
                    <button data-testid="export-heatmap" on:click=move |_| l_h.export_heatmap()>"Heatmap (PNG)"</button>
                </div>
            </section>
            <section class="views">
                <figure>
                    <canvas node_ref=lab.heatmap data-testid="heatmap" width="360" height="360" on:click=on_click
                        aria-label="decision boundary of the network over the data; click to add a point"></canvas>
                    <figcaption>{move || if state.with(|s| s.dataset.is_regression()) {
                        "The network's output: orange above zero, blue below, stronger with the size. Dots are the data, coloured by target."
                    } else {
                        "Decision boundary: the colour is the class the network predicts, paler where it is unsure. Filled dots are training data, hollow ones test data."
                    }}</figcaption>
                </figure>
                <figure>
                    <canvas node_ref=lab.network data-testid="network" width="560" height="380"
                        on:mousemove={ let lab = lab.clone(); move |ev: MouseEvent| lab.hover(ev.offset_x() as f64, ev.offset_y() as f64) }
                        on:mouseleave={ let lab = lab.clone(); move |_| lab.hover(-1.0, -1.0) }
                        aria-label="the network: every neuron as the heatmap of what it computes, links coloured by the weight's sign"></canvas>
                    <figcaption>"The network: each square is what one neuron computes over the plot (orange above zero, blue below); links are weights, orange positive, blue negative, thicker when larger. Hover a neuron to enlarge it."</figcaption>
                </figure>
                <figure>
                    <canvas node_ref=lab.chart data-testid="loss-chart" width="420" height="300"
                        aria-label="training and test loss per step"></canvas>
                    <figcaption>"Training loss per step (light), its moving average (blue) and the test loss (orange)."</figcaption>
                </figure>
            </section>
        </main>
    }
}

/// The landscape lab, set to train and map the playground's current network.
fn landscape_link(state: &lab_state::playground::Playground) -> String {
    let mapped = lab_state::landscape::Landscape {
        network: lab_state::landscape::Network::Playground,
        playground: state.clone(),
        batch: state.batch,
        ..Default::default()
    };
    format!("landscape?{}", mapped.to_query())
}
