//! The vision lab (`/vision`): train an MLP or a small CNN on MNIST or Fashion-MNIST in the browser,
//! then look inside it — the first layer's filters, every layer's feature maps for one input, the
//! confusion matrix, per-class accuracy, the misclassified test images — and try it on a digit
//! drawn with the mouse. Models save and load as files (the `lab` tool's `--save-model` too).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use leptos::html::Canvas;
use leptos::prelude::*;

use engine::data::Dataset;
use engine::export::{export_model, ModelExport};
use engine::inspect::{evaluation, first_filters, mnist_digit, Evaluation};
use engine::model::Layer;
use engine::optim::Optimizer;
use engine::train::{DataConfig, ImageConfig, TrainConfig, TrainError, Trainer};
use lab_state::layers::{self, PRESETS};

use crate::draw::vision as draw;
use crate::frame::{next_frame, now_ms};
use crate::{browser, fetch};

const DIGITS: [&str; 10] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];
const FASHION: [&str; 10] = [
    "T-shirt/top",
    "Trouser",
    "Pullover",
    "Dress",
    "Coat",
    "Sandal",
    "Shirt",
    "Sneaker",
    "Bag",
    "Ankle boot",
];
/// Training images scored at each epoch's end.
const TRAIN_CHECK: usize = 2000;
/// The drawing pad's side in pixels.
const PAD: usize = 196;

use lab_state::vision::{VisionLab as Settings, TEST_IMAGES, TRAIN_SIZES};

fn names(set: &str) -> &'static [&'static str; 10] {
    if set == "fashion" {
        &FASHION
    } else {
        &DIGITS
    }
}

/// The losses per step and the points at each epoch's end.
type History = (Vec<f32>, Vec<draw::EpochPoint>);

/// A trained (or loaded) model with its data and what was measured.
struct Session {
    trainer: Trainer,
    test: Dataset,
    set: String,
    evaluation: Option<Evaluation>,
}

#[derive(Clone, Copy)]
struct Canvases {
    loss: NodeRef<Canvas>,
    accuracy: NodeRef<Canvas>,
    filters: NodeRef<Canvas>,
    maps: NodeRef<Canvas>,
    confusion: NodeRef<Canvas>,
    misses: NodeRef<Canvas>,
    pad: NodeRef<Canvas>,
}

/// What the page shows about a run, also published as `window.__labVision` for scripts.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Figures {
    epochs_done: f64,
    steps: usize,
    samples_per_sec: f64,
    wall_ms: f64,
    test_accuracy: Option<f32>,
    /// Frames the page painted per second while training, and the longest gap between two.
    fps: f64,
    longest_frame_ms: f64,
    done: bool,
}

fn publish(f: &Figures) {
    if let (Some(w), Ok(v)) = (web_sys::window(), serde_wasm_value(f)) {
        let _ = js_sys::Reflect::set(&w, &"__labVision".into(), &v);
    }
}

fn serde_wasm_value(f: &Figures) -> Result<wasm_bindgen::JsValue, ()> {
    let text = serde_json::to_string(f).map_err(|_| ())?;
    js_sys::JSON::parse(&text).map_err(|_| ())
}

#[component]
pub fn VisionPage() -> impl IntoView {
    let (settings, notices) = crate::share::url_state::<Settings>();
    let status = RwSignal::new("choose a data set and an architecture, then Train".to_string());
    let error = RwSignal::new(None::<String>);
    let running = RwSignal::new(false);
    let epoch_progress = RwSignal::new(0.0f64);
    let figures = RwSignal::new(Figures::default());
    let eta = RwSignal::new(String::new());
    let probs = RwSignal::new(Vec::<f32>::new());
    let pad_note = RwSignal::new("draw a digit here once a model is trained".to_string());
    let per_class = RwSignal::new(Vec::<f32>::new());
    let has_model = RwSignal::new(false);
    let selected = RwSignal::new(0usize);
    let session: Rc<RefCell<Option<Session>>> = Rc::new(RefCell::new(None));
    let history: Rc<RefCell<History>> = Rc::new(RefCell::new((Vec::new(), Vec::new())));
    // The curves' CSVs, built when asked: the curves redraw after every chunk of training.
    for (id, accuracy) in [("vision-loss", false), ("vision-accuracy", true)] {
        let history = history.clone();
        crate::figures::provide(id, move || {
            let h = history.try_borrow().ok()?;
            (!h.0.is_empty()).then(|| draw::curves_table(&h.0, &h.1, accuracy))
        });
    }
    let pad = Rc::new(RefCell::new(vec![0.0f32; PAD * PAD]));
    let drawing = Rc::new(Cell::new(false));
    let stop = Rc::new(Cell::new(false));
    let c = Canvases {
        loss: NodeRef::new(),
        accuracy: NodeRef::new(),
        filters: NodeRef::new(),
        maps: NodeRef::new(),
        confusion: NodeRef::new(),
        misses: NodeRef::new(),
        pad: NodeRef::new(),
    };

    // Classifies an input (784 values) and draws its feature maps; the session is lent out while
    // the prediction is awaited.
    let classify = {
        let session = session.clone();
        move |input: Vec<f32>, note: String| {
            let pixels = input.iter().enumerate().map(|(i, v)| {
                [i / 28, i % 28]
                    .map(|x| x.to_string())
                    .into_iter()
                    .chain([v.to_string()])
            });
            crate::figures::set_table("vision-pad", crate::figures::csv("row,column,ink", pixels));
            let session = session.clone();
            leptos::task::spawn_local(async move {
                let Some(mut s) = take(&session).await else {
                    return;
                };
                match s.trainer.predict_layers(&input).await {
                    Ok((p, outputs)) => {
                        // The note changes with the probabilities, not before them.
                        pad_note.set(note);
                        // Scripts compare these with `lab predict` on the same model.
                        if let (Some(w), Ok(v)) = (web_sys::window(), serde_json::to_string(&p)) {
                            if let Ok(v) = js_sys::JSON::parse(&v) {
                                let _ = js_sys::Reflect::set(&w, &"__labVisionProbs".into(), &v);
                            }
                        }
                        probs.set(p);
                        let maps: Vec<(String, [usize; 3], Vec<f32>)> = s
                            .trainer
                            .compiled
                            .layers
                            .iter()
                            .zip(outputs)
                            .enumerate()
                            .filter(|(_, (l, _))| {
                                l.out_shape[1] > 1 && !matches!(l.layer, Layer::Activation { .. })
                            })
                            .map(|(i, (l, o))| {
                                (
                                    format!(
                                        "layer {i}: {} {}×{}×{}",
                                        layer_name(&l.layer),
                                        l.out_shape[0],
                                        l.out_shape[1],
                                        l.out_shape[2]
                                    ),
                                    l.out_shape,
                                    o,
                                )
                            })
                            .collect();
                        if let Some(x) = c.maps.get_untracked() {
                            let mut all = vec![("input 28×28".to_string(), [1, 28, 28], input.clone())];
                            all.extend(maps);
                            draw::feature_maps(&x, &all);
                        }
                    }
                    Err(e) => error.set(Some(e)),
                }
                *session.borrow_mut() = Some(s);
            });
        }
    };

    // Shows test image `i` on the pad and classifies it.
    let show_test = {
        let session = session.clone();
        let classify = classify.clone();
        move |i: usize| {
            let image = session.borrow().as_ref().map(|s| {
                let i = i % s.test.len().max(1);
                (i, s.test.point(i).to_vec(), s.test.y[i] as usize, s.set.clone())
            });
            let Some((i, image, label, set)) = image else {
                return;
            };
            selected.set(i);
            if let Some(canvas) = c.pad.get_untracked() {
                if let Some(ctx) = crate::draw::context(&canvas) {
                    draw::gray(&ctx, &image, 28, 28, 0.0, 0.0, PAD as f64 / 28.0, false);
                }
            }
            classify(image, format!("test image {i}: a {}", names(&set)[label]));
        }
    };

    let after_training = {
        let session = session.clone();
        let show_test = show_test.clone();
        move || {
            let session = session.clone();
            let show_test = show_test.clone();
            leptos::task::spawn_local(async move {
                let Some(mut s) = take(&session).await else {
                    return;
                };
                if let Err(e) = inspect(&mut s, c, per_class).await {
                    error.set(Some(e));
                }
                *session.borrow_mut() = Some(s);
                has_model.set(true);
                show_test(selected.get_untracked());
            });
        }
    };

    let train = {
        let session = session.clone();
        let history = history.clone();
        let stop = stop.clone();
        let after_training = after_training.clone();
        move |_| {
            if running.get_untracked() {
                return;
            }
            let s = settings.get_untracked();
            let config = match s.config() {
                Ok(c) => c,
                Err(e) => {
                    error.set(Some(e));
                    return;
                }
            };
            error.set(None);
            running.set(true);
            stop.set(false);
            session.borrow_mut().take();
            has_model.set(false);
            let (session, history, stop, after_training) = (
                session.clone(),
                history.clone(),
                stop.clone(),
                after_training.clone(),
            );
            leptos::task::spawn_local(async move {
                let result = run(
                    &s,
                    config,
                    c,
                    status,
                    epoch_progress,
                    figures,
                    eta,
                    &history,
                    &stop,
                    &session,
                )
                .await;
                if let Err(e) = result {
                    error.set(Some(e));
                    status.set("failed (see the message above)".into());
                }
                running.set(false);
                after_training();
            });
        }
    };

    let on_stop = {
        let stop = stop.clone();
        move |_| stop.set(true)
    };
    let save = {
        let session = session.clone();
        move |_| {
            let session = session.clone();
            leptos::task::spawn_local(async move {
                let Some(s) = take(&session).await else {
                    return;
                };
                match export_model(&s.trainer).await {
                    Ok(m) => browser::download(
                        "model.json",
                        "application/json",
                        &serde_json::to_string(&m).unwrap_or_default(),
                    ),
                    Err(e) => error.set(Some(e)),
                }
                *session.borrow_mut() = Some(s);
            });
        }
    };
    let load = {
        let session = session.clone();
        let after_training = after_training.clone();
        move |ev: leptos::ev::Event| {
            if running.get_untracked() {
                return;
            }
            let input: web_sys::HtmlInputElement = event_target(&ev);
            let (session, after_training) = (session.clone(), after_training.clone());
            leptos::task::spawn_local(async move {
                let loaded = match browser::read_file(&input).await {
                    Ok((name, text)) => {
                        load_model(&name, &text, settings.get_untracked().webgpu, status).await
                    }
                    Err(e) => Err(e),
                };
                input.set_value("");
                match loaded {
                    Ok(s) => {
                        error.set(None);
                        status.set(format!(
                            "loaded a model trained for {} steps on {}",
                            s.trainer.step(),
                            s.set
                        ));
                        *session.borrow_mut() = Some(s);
                        after_training();
                    }
                    Err(e) => error.set(Some(format!("{e} (the current model is kept)"))),
                }
            });
        }
    };

    // The drawing pad: ink follows the mouse; releasing it classifies the digit.
    let paint = {
        let pad = pad.clone();
        move |x: f64, y: f64| {
            let mut buf = pad.borrow_mut();
            let r = 10.0;
            for py in (y - r).max(0.0) as usize..((y + r) as usize).min(PAD) {
                for px in (x - r).max(0.0) as usize..((x + r) as usize).min(PAD) {
                    let d = ((px as f64 - x).powi(2) + (py as f64 - y).powi(2)).sqrt();
                    let v = (1.3 - d / r).clamp(0.0, 1.0) as f32;
                    let cell = &mut buf[py * PAD + px];
                    *cell = cell.max(v);
                }
            }
            if let Some(canvas) = c.pad.get_untracked() {
                if let Some(ctx) = crate::draw::context(&canvas) {
                    ctx.set_fill_style_str("#111");
                    ctx.begin_path();
                    let _ = ctx.arc(x, y, r * 0.9, 0.0, std::f64::consts::TAU);
                    ctx.fill();
                }
            }
        }
    };
    let down = {
        let (drawing, paint) = (drawing.clone(), paint.clone());
        move |ev: leptos::ev::MouseEvent| {
            drawing.set(true);
            paint(ev.offset_x() as f64, ev.offset_y() as f64);
        }
    };
    let moved = {
        let (drawing, paint) = (drawing.clone(), paint.clone());
        move |ev: leptos::ev::MouseEvent| {
            if drawing.get() {
                paint(ev.offset_x() as f64, ev.offset_y() as f64);
            }
        }
    };
    let up = {
        let (drawing, pad, classify) = (drawing.clone(), pad.clone(), classify.clone());
        move |_| {
            if !drawing.replace(false) {
                return;
            }
            if !has_model.get_untracked() {
                pad_note.set("train or load a model first, then draw".into());
                return;
            }
            classify(
                mnist_digit(&pad.borrow(), PAD, PAD),
                "your drawing, fitted to 20×20 and centred like MNIST's digits".into(),
            );
        }
    };
    let clear_pad = {
        let pad = pad.clone();
        move |_| {
            pad.borrow_mut().iter_mut().for_each(|v| *v = 0.0);
            if let Some(canvas) = c.pad.get_untracked() {
                if let Some(ctx) = crate::draw::context(&canvas) {
                    ctx.set_fill_style_str("#ffffff");
                    ctx.fill_rect(0.0, 0.0, PAD as f64, PAD as f64);
                }
            }
            probs.set(Vec::new());
        }
    };
    let next_image = {
        let show_test = show_test.clone();
        move |_| show_test(selected.get_untracked() + 1)
    };
    let pick_miss = {
        let (session, show_test) = (session.clone(), show_test.clone());
        move |ev: leptos::ev::MouseEvent| {
            let Some(canvas) = c.misses.get_untracked() else {
                return;
            };
            let k = draw::miss_at(&canvas, ev.offset_x() as f64, ev.offset_y() as f64);
            let index = session
                .borrow()
                .as_ref()
                .and_then(|s| s.evaluation.as_ref()?.misclassified.get(k).map(|m| m.index));
            if let Some(i) = index {
                show_test(i);
            }
        }
    };

    // The keyboard's way through the misclassified images: arrows step, starting at the first.
    let miss_cursor = Rc::new(Cell::new(None::<usize>));
    let step_miss = {
        let (session, show_test) = (session.clone(), show_test.clone());
        move |ev: leptos::ev::KeyboardEvent| {
            let delta: isize = match ev.key().as_str() {
                "ArrowRight" | "ArrowDown" | "Enter" => 1,
                "ArrowLeft" | "ArrowUp" => -1,
                _ => return,
            };
            ev.prevent_default();
            let misses: Vec<usize> = session
                .borrow()
                .as_ref()
                .and_then(|s| {
                    s.evaluation
                        .as_ref()
                        .map(|e| e.misclassified.iter().take(32).map(|m| m.index).collect())
                })
                .unwrap_or_default();
            if misses.is_empty() {
                return;
            }
            let k = match miss_cursor.get() {
                None => 0,
                Some(k) => (k as isize + delta).rem_euclid(misses.len() as isize) as usize,
            };
            miss_cursor.set(Some(k));
            show_test(misses[k]);
        }
    };

    let set = move |f: &dyn Fn(&mut Settings)| settings.update(|s| f(s));
    let number = move |label: &'static str,
                       id: &'static str,
                       get: fn(&Settings) -> String,
                       put: fn(&mut Settings, &str) -> bool| {
        crate::controls::number_input(settings, error, label, id, get, put)
    };
    let class_names = move || names(&settings.with(|s| s.set.clone()));

    view! {
        <header class="top">
            <h1>"Training Lab · vision"</h1>
            <p class="tagline">"A convolutional network learns to see digits and clothes, on your GPU."</p>
            <a href="./">"playground"</a>
        </header>
        <crate::banner::ErrorBanner error=error id="vision-error"/>
        <main class="lab">
            <section class="controls" aria-label="settings">
                <crate::share::StateBar state=settings notices=notices/>
                <label>"Data set"
                    <select data-testid="vision-set" on:change=move |ev| {
                        let v = if event_target_value(&ev) == "fashion" { "fashion" } else { "mnist" };
                        set(&|s| s.set = v.into());
                    }>
                        <option value="mnist" selected=move || settings.with(|s| s.set == "mnist")>"MNIST digits"</option>
                        <option value="fashion" selected=move || settings.with(|s| s.set == "fashion")>"Fashion-MNIST"</option>
                    </select>
                </label>
                <label>"Training images"
                    <select data-testid="vision-train" on:change=move |ev| { if let Ok(n) = event_target_value(&ev).parse::<usize>() { set(&|s| s.train = n) } }>
                        {TRAIN_SIZES.map(|n| view! { <option value=n.to_string() selected=move || settings.with(|s| s.train == n)>{n.to_string()}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Architecture"
                    <select data-testid="vision-preset" on:change=move |ev| {
                        if let Ok(i) = event_target_value(&ev).parse::<usize>() {
                            set(&|s| { s.preset = i; s.layers = PRESETS[i.min(2)].2.into(); s.epochs = PRESETS[i.min(2)].3; });
                        }
                    }>
                        {PRESETS.iter().enumerate().map(|(i, p)| view! { <option value=i.to_string() selected=move || settings.with(|s| s.preset == i)>{format!("{} ({} epochs)", p.1, p.3)}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Layers (edit: conv F KxK sS pP, maxpool N, avgpool N, dense N, dropout R, relu, tanh…)"
                    <textarea data-testid="vision-layers" rows="4" prop:value=move || settings.with(|s| s.layers.clone()) on:change=move |ev| {
                        let v = event_target_value(&ev);
                        match layers::parse(&v, 10) {
                            Ok(parsed) => { set(&|s| s.layers = layers::format(&parsed)); error.set(None); }
                            Err(e) => error.set(Some(format!("layers: {e} (kept the last network)"))),
                        }
                    }></textarea>
                </label>
                <label>"Optimizer"
                    <select data-testid="vision-optimizer" on:change=move |ev| {
                        if let Ok(i) = event_target_value(&ev).parse::<usize>() { set(&|s| { s.optimizer = i; s.lr = Optimizer::all()[i.min(Optimizer::all().len() - 1)].default_learning_rate(); }) }
                    }>
                        {Optimizer::all().into_iter().enumerate().map(|(i, o)| view! { <option value=i.to_string() selected=move || settings.with(|s| s.optimizer == i)>{o.label()}</option> }).collect_view()}
                    </select>
                </label>
                {number("Learning rate", "vision-lr", |s| s.lr.to_string(), |s, v| v.parse().ok().filter(|x: &f32| *x > 0.0 && x.is_finite()).map(|x| s.lr = x).is_some())}
                {number("Batch size", "vision-batch", |s| s.batch.to_string(), |s, v| v.parse().ok().filter(|x: &usize| (1..=1024).contains(x)).map(|x| s.batch = x).is_some())}
                {number("Epochs", "vision-epochs", |s| s.epochs.to_string(), |s, v| v.parse().ok().filter(|x: &usize| (1..=50).contains(x)).map(|x| s.epochs = x).is_some())}
                <label>"Backend"
                    <select data-testid="vision-backend" on:change=move |ev| { let w = event_target_value(&ev) == "webgpu"; set(&|s| s.webgpu = w) }>
                        <option value="webgpu" selected=move || settings.with(|s| s.webgpu)>"WebGPU (CPU path if missing)"</option>
                        <option value="cpu" selected=move || settings.with(|s| !s.webgpu)>"CPU path"</option>
                    </select>
                </label>
                <div class="buttons">
                    <button class="primary" data-lab-start="true" data-testid="vision-run" disabled=move || running.get() on:click=train>"Train"</button>
                    <button data-lab-pause="true" data-testid="vision-stop" disabled=move || !running.get() on:click=on_stop>"Stop"</button>
                </div>
                <label>"Epoch progress" <progress data-testid="vision-progress" max="1" prop:value=move || epoch_progress.get()></progress></label>
                <p data-lab-status="true" data-testid="vision-status">{move || status.get()}</p>
                <dl class="readouts">
                    <dt>"epochs"</dt><dd data-testid="vision-epoch">{move || format!("{:.2}", figures.with(|f| f.epochs_done))}</dd>
                    <dt>"samples/s"</dt><dd data-testid="vision-speed">{move || format!("{:.0}", figures.with(|f| f.samples_per_sec))}</dd>
                    <dt>"time left"</dt><dd data-testid="vision-eta">{move || eta.get()}</dd>
                    <dt>"test accuracy"</dt><dd data-testid="vision-test-accuracy">{move || figures.with(|f| f.test_accuracy.map_or("–".into(), |a| format!("{:.2} %", a * 100.0)))}</dd>
                    <dt>"page frames/s"</dt><dd data-testid="vision-fps">{move || format!("{:.0}", figures.with(|f| f.fps))}</dd>
                </dl>
                <div class="buttons wrap">
                    <button data-testid="vision-save" disabled=move || !has_model.get() on:click=save>"Save model"</button>
                </div>
                <label>"Load a model (JSON from this page or lab train --save-model)"
                    <input type="file" accept=".json,application/json" data-testid="vision-load" on:change=load/>
                </label>
            </section>
            <section class="views">
                <figure>
                    <canvas node_ref=c.loss data-testid="vision-loss" width="400" height="260"></canvas>
                    <figcaption>"Training loss per batch (smoothed) and the test loss at each epoch's end (all 10,000 test images)."</figcaption>
                </figure>
                <figure>
                    <canvas node_ref=c.accuracy data-testid="vision-accuracy" width="400" height="260"></canvas>
                    <figcaption>"Accuracy at each epoch's end on 2,000 training images and on the 10,000 test images."</figcaption>
                </figure>
                <figure>
                    <canvas node_ref=c.pad data-testid="vision-pad" width=PAD.to_string() height=PAD.to_string() class="pad"
                        on:mousedown=down on:mousemove=moved on:mouseup=up.clone() on:mouseleave=up></canvas>
                    <div class="buttons">
                        <button data-testid="vision-clear" on:click=clear_pad>"Clear"</button>
                        <button data-testid="vision-next" disabled=move || !has_model.get() on:click=next_image>"Next test image"</button>
                    </div>
                    <p class="small muted" data-testid="vision-pad-note">{move || pad_note.get()}</p>
                    <div class="probs" data-testid="vision-probs">
                        {move || {
                            let p = probs.get();
                            let best = if p.is_empty() { usize::MAX } else { engine::inspect::argmax(&p) };
                            class_names().iter().enumerate().map(|(k, name)| {
                                let v = p.get(k).copied().unwrap_or(0.0);
                                view! {
                                    <div class="prob" class:best=k == best>
                                        <span class="name">{*name}</span>
                                        <span class="bar" style=format!("width: {:.0}px", v * 120.0)></span>
                                        <span data-testid=format!("vision-prob-{k}")>{format!("{:.1} %", v * 100.0)}</span>
                                    </div>
                                }
                            }).collect_view()
                        }}
                    </div>
                    <figcaption>"Draw a digit (press, drag, release), or step through test images: the class probabilities and the feature maps follow."</figcaption>
                </figure>
                <figure>
                    <canvas node_ref=c.maps data-testid="vision-maps" width="420" height="360"></canvas>
                    <figcaption>"Feature maps: what each convolution and pooling layer computes from this input (first 16 channels; darker is larger)."</figcaption>
                </figure>
                <figure>
                    <canvas node_ref=c.filters data-testid="vision-filters" width="420" height="130"></canvas>
                    <figcaption>"The first convolution's filters (orange positive, blue negative weights): edge and stroke detectors after training."</figcaption>
                </figure>
                <figure>
                    <canvas node_ref=c.confusion data-testid="vision-confusion" width="420" height="400"></canvas>
                    <table class="results" data-testid="vision-per-class">
                        <tr><th>"class"</th><th>"accuracy"</th></tr>
                        {move || per_class.get().into_iter().enumerate().map(|(k, a)| view! {
                            <tr><td>{class_names()[k]}</td><td>{format!("{:.1} %", a * 100.0)}</td></tr>
                        }).collect_view()}
                    </table>
                    <figcaption>"Confusion matrix on the 10,000 test images: rows are the true classes, columns the predictions; off the diagonal are the mistakes. Below, accuracy per class."</figcaption>
                </figure>
                <figure>
                    <canvas node_ref=c.misses data-testid="vision-misses" width="420" height="300" on:click=pick_miss tabindex="0" on:keydown=step_miss aria-label="the misclassified test images; click one, or focus here and use the arrow keys, to inspect it"></canvas>
                    <figcaption>"The misclassified test images the model was most sure about: predicted (true). Click one to inspect it."</figcaption>
                </figure>
            </section>
        </main>
    }
}

/// `Trainer::evaluate` in slices of 500 images with a frame between them, so the page keeps
/// painting while a large test set is scored on the CPU path.
async fn evaluate_yielding(trainer: &mut Trainer, data: &Dataset) -> Result<(f32, f32), String> {
    let (mut loss, mut correct) = (0.0f64, 0.0f64);
    for start in (0..data.len()).step_by(500) {
        let rows: Vec<usize> = (start..(start + 500).min(data.len())).collect();
        let (l, a) = trainer.evaluate(&data.rows(&rows)).await?;
        loss += l as f64 * rows.len() as f64;
        correct += a as f64 * rows.len() as f64;
        next_frame().await;
    }
    let n = data.len().max(1) as f64;
    Ok(((loss / n) as f32, (correct / n) as f32))
}

/// Takes the session for an awaited job, waiting (a few seconds at most) while another job has it;
/// None when there is no model.
async fn take(session: &RefCell<Option<Session>>) -> Option<Session> {
    for _ in 0..300 {
        if let Some(s) = session.borrow_mut().take() {
            return Some(s);
        }
        next_frame().await;
    }
    None
}

fn layer_name(l: &Layer) -> &'static str {
    match l {
        Layer::Conv2d { .. } => "conv",
        Layer::Pool { .. } => "pool",
        Layer::Dense { .. } => "dense",
        Layer::Dropout { .. } => "dropout",
        Layer::Flatten => "flatten",
        Layer::Activation { .. } => "activation",
    }
}

/// Scores the test images and draws filters, confusion matrix and misses.
async fn inspect(s: &mut Session, c: Canvases, per_class: RwSignal<Vec<f32>>) -> Result<(), String> {
    let mut probs = Vec::new();
    for start in (0..s.test.len()).step_by(500) {
        let rows: Vec<usize> = (start..(start + 500).min(s.test.len())).collect();
        probs.extend(s.trainer.probabilities(&s.test.rows(&rows)).await?);
        next_frame().await;
    }
    let e = evaluation(&probs, &s.test.y, 10);
    per_class.set(e.per_class.clone());
    if let Some(x) = c.confusion.get_untracked() {
        draw::confusion(&x, &e, names(&s.set));
    }
    if let Some(x) = c.misses.get_untracked() {
        let test = &s.test;
        draw::misses(&x, &e.misclassified[..e.misclassified.len().min(32)], &|i| {
            test.point(i).to_vec()
        });
    }
    if let Some(x) = c.filters.get_untracked() {
        let params = s.trainer.params().await?;
        match first_filters(&s.trainer.compiled, &params) {
            Some((f, ch, k, w)) => draw::filters(&x, f.min(16), ch, k, &w),
            None => {
                if let Some(ctx) = crate::draw::context(&x) {
                    ctx.set_fill_style_str("#ffffff");
                    ctx.fill_rect(0.0, 0.0, x.width() as f64, x.height() as f64);
                    ctx.set_fill_style_str("#333");
                    let _ = ctx.fill_text("this network has no convolution", 10.0, 20.0);
                }
                Some(())
            }
        };
    }
    s.evaluation = Some(e);
    Ok(())
}

async fn load_model(
    name: &str,
    text: &str,
    webgpu: bool,
    status: RwSignal<String>,
) -> Result<Session, String> {
    let saved = ModelExport::from_json(text).map_err(|e| format!("{name}: {e}"))?;
    let DataConfig::Images(images) = &saved.config.data else {
        return Err(format!(
            "{name}: not an image model (the vision lab loads MNIST and Fashion-MNIST models)"
        ));
    };
    let set = images.set.clone();
    let config = TrainConfig {
        data: DataConfig::Images(ImageConfig {
            set: set.clone(),
            // Only predictions are needed, but a trainer wants at least a batch of data.
            train_limit: saved.config.batch.clamp(1, 1000),
            test_limit: TEST_IMAGES,
        }),
        ..saved.config.clone()
    };
    let gpu = crate::task::gpu_if(webgpu, status).await;
    let (train, test) = fetch::data(&config).await?;
    let mut trainer = Trainer::with_data(config, train, gpu, 500).await?;
    let flat = saved
        .flat_params(&trainer.compiled)
        .map_err(|e| format!("{name}: {e}"))?;
    trainer.set_params(&flat)?;
    Ok(Session {
        trainer,
        test,
        set,
        evaluation: None,
    })
}

#[allow(clippy::too_many_arguments)]
async fn run(
    s: &Settings,
    config: TrainConfig,
    c: Canvases,
    status: RwSignal<String>,
    epoch_progress: RwSignal<f64>,
    figures: RwSignal<Figures>,
    eta: RwSignal<String>,
    history: &RefCell<History>,
    stop: &Cell<bool>,
    session: &RefCell<Option<Session>>,
) -> Result<(), String> {
    let gpu = crate::task::gpu_if(s.webgpu, status).await;
    status.set("loading images…".into());
    let (train, test) = fetch::data(&config).await?;
    let check = train.head(TRAIN_CHECK);
    let mut trainer = Trainer::with_data(config, train.clone(), gpu, 500).await?;
    let steps_per_epoch = train.len().div_ceil(s.batch.max(1));
    let total = steps_per_epoch * s.epochs;
    *history.borrow_mut() = (Vec::new(), Vec::new());
    let mut f = Figures::default();
    publish(&f);
    status.set(format!("training on {}…", trainer.backend_name()));
    let start = now_ms();
    let (mut trained_ms, mut chunk) = (0.0, 1usize);
    let meter = crate::frame::FrameMeter::start();
    let mut outcome = Ok(());
    while f.steps < total && !stop.get() {
        let to_epoch_end = steps_per_epoch - f.steps % steps_per_epoch;
        let t0 = now_ms();
        match trainer.train(chunk.min(to_epoch_end)).await {
            Ok(m) => {
                f.steps += m.len();
                history.borrow_mut().0.extend(m.iter().map(|m| m.loss));
            }
            Err(TrainError::Diverged { step }) => {
                outcome = Err(format!("the loss became NaN or infinite at step {step}: training stopped (try a smaller learning rate)"));
                break;
            }
            Err(e) => {
                outcome = Err(e.to_string());
                break;
            }
        }
        let dt = now_ms() - t0;
        trained_ms += dt;
        // About 30 ms of training between frames keeps the page responsive.
        chunk = if dt < 15.0 {
            chunk * 2
        } else if dt > 45.0 {
            (chunk / 2).max(1)
        } else {
            chunk
        }
        .min(256);
        f.epochs_done = f.steps as f64 / steps_per_epoch as f64;
        f.samples_per_sec = (f.steps * s.batch) as f64 / (trained_ms / 1000.0);
        epoch_progress.set((f.steps % steps_per_epoch) as f64 / steps_per_epoch as f64);
        let left = (total - f.steps) as f64 * s.batch as f64 / f.samples_per_sec.max(1e-9);
        eta.set(format!("{left:.0} s"));
        if f.steps % steps_per_epoch == 0 {
            epoch_progress.set(1.0);
            status.set("scoring the test set…".into());
            let (train_loss, train_acc) = evaluate_yielding(&mut trainer, &check).await?;
            let (test_loss, test_acc) = evaluate_yielding(&mut trainer, &test).await?;
            f.test_accuracy = Some(test_acc);
            history
                .borrow_mut()
                .1
                .push((f.steps, train_loss, train_acc, test_loss, test_acc));
            status.set(format!(
                "epoch {} of {}: test accuracy {:.2} %",
                f.steps / steps_per_epoch,
                s.epochs,
                test_acc * 100.0
            ));
        }
        {
            let h = history.borrow();
            if let Some(x) = c.loss.get_untracked() {
                draw::curves(x, &h.0, &h.1, false);
            }
            if let Some(x) = c.accuracy.get_untracked() {
                draw::curves(x, &h.0, &h.1, true);
            }
        }
        next_frame().await;
        f.wall_ms = now_ms() - start;
        (f.fps, f.longest_frame_ms) = meter.read();
        figures.set(f.clone());
    }
    f.done = true;
    f.wall_ms = now_ms() - start;
    figures.set(f.clone());
    publish(&f);
    eta.set(String::new());
    if outcome.is_ok() {
        status.set(match f.test_accuracy {
            Some(a) if !stop.get() => format!(
                "done: {} epoch{} in {:.1} s, test accuracy {:.2} %",
                s.epochs,
                if s.epochs == 1 { "" } else { "s" },
                f.wall_ms / 1000.0,
                a * 100.0
            ),
            _ => format!("stopped after {} steps; the model so far is kept", f.steps),
        });
    }
    *session.borrow_mut() = Some(Session {
        trainer,
        test,
        set: s.set.clone(),
        evaluation: None,
    });
    outcome
}
