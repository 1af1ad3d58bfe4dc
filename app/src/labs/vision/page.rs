//! The vision page: settings and the run bar on the left, the curves, the pad and the model's
//! insides on the right.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;

use lab_state::vision::VisionLab as Settings;

use super::model::Command;
use super::session;
use super::{draw, names, History, View};
use crate::browser;
use crate::share::hidden;

#[component]
pub fn VisionPage() -> impl IntoView {
    let (settings, notices) = crate::share::url_state::<Settings>();
    let v = View::new();
    let history: Rc<RefCell<History>> = Rc::new(RefCell::new((Vec::new(), Vec::new())));
    // The curves' CSVs, built when asked: the curves redraw after every chunk of training.
    for (id, accuracy) in [("vision-loss", false), ("vision-accuracy", true)] {
        let history = history.clone();
        crate::figures::provide(id, move || {
            let h = history.try_borrow().ok()?;
            (!h.0.is_empty()).then(|| draw::curves_table(&h.0, &h.1, accuracy))
        });
    }
    // The log toggle redraws the curves so far.
    {
        let history = history.clone();
        Effect::new(move |_| {
            v.log_loss.track();
            if history.try_borrow().is_ok_and(|h| !h.0.is_empty()) {
                super::train::draw_curves(v, &history);
            }
        });
    }
    let (mailbox, inbox) = crate::session::mailbox();
    leptos::task::spawn_local(session::own(v, history, inbox));
    let send = {
        let mailbox = mailbox.clone();
        move |c: Command| {
            v.refusal.set(None);
            mailbox.send(c);
        }
    };
    let on = |c: fn() -> Command| {
        let send = send.clone();
        move |_| send(c())
    };
    let train = {
        let send = send.clone();
        move |_| send(Command::Train(Box::new(settings.get_untracked())))
    };
    let load = {
        let send = send.clone();
        move |ev: leptos::ev::Event| {
            let input: web_sys::HtmlInputElement = event_target(&ev);
            let send = send.clone();
            leptos::task::spawn_local(async move {
                match browser::read_file(&input).await {
                    Ok((name, text)) => send(Command::Load {
                        name,
                        text,
                        webgpu: settings.get_untracked().webgpu != lab_state::playground::BackendChoice::Cpu,
                    }),
                    Err(e) => v.error.set(Some(e.to_string())),
                }
                input.set_value("");
            });
        }
    };
    let pick_miss = {
        let send = send.clone();
        move |ev: leptos::ev::MouseEvent| {
            if let Some(canvas) = v.canvases.misses.get_untracked() {
                let (x, y) = crate::browser::canvas_point(&canvas, &ev);
                send(Command::ShowMiss(draw::miss_at(&canvas, x, y)));
            }
        }
    };
    // The keyboard's way through the misclassified images: arrows step, starting at the first.
    let step_miss = {
        let send = send.clone();
        move |ev: leptos::ev::KeyboardEvent| {
            let delta = match ev.key().as_str() {
                "ArrowRight" | "ArrowDown" | "Enter" => 1,
                "ArrowLeft" | "ArrowUp" => -1,
                _ => return,
            };
            ev.prevent_default();
            send(Command::StepMiss(delta));
        }
    };
    let class_names = move || names(&settings.with(|s| s.set.clone()));
    let f = v.figures;
    let c = v.canvases;
    view! {
        {crate::layout::lab_header("vision", "A convolutional network learns to see digits and clothes, on your GPU.")}
        <crate::banner::ErrorBanner error=v.error id="vision-error"/>
        <main class="lab">
            <section class="runbar" aria-label="run">
            <div class="buttons">
                <button class:hidden=hidden("run") class="primary" data-lab-start="true" data-testid="vision-run" disabled=move || v.running.get() on:click=train>"Train"</button>
                <button class:hidden=hidden("stop") data-lab-pause="true" data-testid="vision-stop" disabled=move || !v.running.get() on:click=on(|| Command::Stop)>"Stop"</button>
            </div>
            <label class="inline">"Epoch" <progress data-testid="vision-progress" max="1" prop:value=move || v.epoch_progress.get()></progress></label>
            <p class="status" data-lab-status="true" data-testid="vision-status">{move || v.status.get()}</p>
            <p class="sr-only" role="status" data-testid="vision-announce">{move || if v.running.get() { String::new() } else { v.status.get() }}</p>
            <p class="muted small refusal" data-testid="vision-refusal" role="status">{move || v.refusal.get().unwrap_or_default()}</p>
            <dl class="readouts">
                <div><dt>"epochs"</dt><dd data-testid="vision-epoch">{move || format!("{:.2}", f.with(|f| f.epochs_done))}</dd></div>
                <div><dt>"samples/s"</dt><dd data-testid="vision-speed">{move || format!("{:.0}", f.with(|f| f.samples_per_sec))}</dd></div>
                <div><dt>"time left"</dt><dd data-testid="vision-eta">{move || v.eta.get()}</dd></div>
                <div><dt>"test accuracy"</dt><dd data-testid="vision-test-accuracy" data-metric="test-accuracy">{move || f.with(|f| f.test_accuracy.map_or("–".into(), |a| format!("{:.2} %", a * 100.0)))}</dd></div>
                <div class="minor"><dt>"page frames/s"</dt><dd data-testid="vision-fps">{move || format!("{:.0}", f.with(|f| f.fps))}</dd></div>
            </dl>
            <p class="muted small minor" data-testid="vision-backend-reason">{move || v.backend_reason.get()}</p>
            </section>
            <section class="controls" aria-label="settings">
                <crate::share::StateBar state=settings notices=notices/>
                {super::settings_panel::settings_panel(settings, v.error)}
                <div class="buttons wrap">
                    <button class:hidden=hidden("save") data-testid="vision-save" disabled=move || !v.has_model.get() && !v.running.get()
                        title="the model so far, also while training" on:click=on(|| Command::Save)>"Save model"</button>
                    <button class:hidden=hidden("save") data-testid="vision-save-torch" disabled=move || !v.has_model.get() && !v.running.get()
                        title="for a notebook: the weights (safetensors), a PyTorch script that rebuilds the model and its training setup, its layer list"
                        on:click=on(|| Command::SaveTorch)>"For PyTorch"</button>
                </div>
                <label class:hidden=hidden("load")>"Load a model (JSON from this page or lab train --save-model)"
                    <input type="file" accept=".json,application/json" data-testid="vision-load" on:change=load/>
                </label>
            </section>
            <section class="views">
                <figure>
                    <canvas node_ref=c.loss data-testid="vision-loss" data-empty="Press Train: the training and test loss appear here." width="400" height="260"></canvas>
                    {crate::controls::log_toggle("vision-log", v.log_loss)}
                    <figcaption>"Training loss per batch (smoothed) and the test loss at each epoch's end (all 10,000 test images). Read it: the test loss turning up while the training loss still falls is overfitting."</figcaption>
                </figure>
                <figure>
                    <canvas node_ref=c.accuracy data-testid="vision-accuracy" data-empty="Press Train: train and test accuracy at each epoch's end." width="400" height="260"></canvas>
                    <figcaption>"Accuracy at each epoch's end on 2,000 training images and on the 10,000 test images. Read it: the gap between the two lines is what the network memorised rather than learned."</figcaption>
                </figure>
                {super::pad::pad(v, mailbox, class_names)}
                <figure class:hidden=hidden("maps")>
                    <canvas node_ref=c.maps data-testid="vision-maps" data-empty="Press Train: what each layer sees of one image." width="420" height="360"></canvas>
                    <figcaption>"Feature maps: what each convolution and pooling layer computes from this input (first 16 channels; darker is larger); while training, the first test image, redrawn about once a second."</figcaption>
                </figure>
                <figure class:hidden=hidden("filters")>
                    <canvas node_ref=c.filters data-testid="vision-filters" data-empty="Press Train: the first layer's filters." width="420" height="130"></canvas>
                    <p class="small figure-note" data-testid="vision-smoothness">{move || v.smoothness.get().map(|(now, change)| view! {
                        "Smoothness (correlation of neighbouring weights; random ≈ 0, smooth strokes near 1): filters "
                        <b data-metric="filter-smoothness">{format!("{now:.2}")}</b>
                        {change.map(|c| view! { ", change since the start " <b data-metric="change-smoothness">{format!("{c:.2}")}</b> })}
                    })}</p>
                    <figcaption>"The first convolution's filters (orange positive, blue negative weights, each filter on its own scale), redrawn about once a second while training, and below them what training changed: each filter minus its random start. Read it: the filters keep much of their random start; the change is smooth — strokes and edges — because neighbouring pixels of an image are alike, so neighbouring weights get alike gradients."</figcaption>
                </figure>
                <figure class:hidden=hidden("confusion")>
                    <canvas node_ref=c.confusion data-testid="vision-confusion" data-empty="After training: which digits are taken for which." width="420" height="400"></canvas>
                    <table class="results" data-testid="vision-per-class">
                        <tr><th>"class"</th><th>"accuracy"</th></tr>
                        {move || v.per_class.get().into_iter().enumerate().map(|(k, a)| view! {
                            <tr><td>{class_names()[k]}</td><td data-metric=lab_state::registry::metric_name("class", class_names()[k])>{format!("{:.1} %", a * 100.0)}</td></tr>
                        }).collect_view()}
                    </table>
                    <p class="muted small" data-testid="vision-hardest">{move || {
                        let per = v.per_class.get();
                        per.iter().enumerate().min_by(|a, b| a.1.total_cmp(b.1)).map(|(k, a)| view! {
                            "Hardest class: " <b data-metric="hardest-class">{class_names()[k]}</b>
                            {format!(" ({:.1} % right)", a * 100.0)}
                        })
                    }}</p>
                    <p class="muted small" data-testid="vision-most-confused">{move || v.most_confused.get().map(|(t, p, n)| {
                        let (t, p) = (class_names()[t], class_names()[p]);
                        view! {
                            "Most frequent mistake: a " <b data-metric="most-confused" data-metric-value=format!("{t} as {p}")>{t}</b>
                            " taken for a " <b>{p}</b> {format!(" ({n} times)")}
                        }
                    })}</p>
                    <figcaption>"Confusion matrix on the 10,000 test images: rows are the true classes, columns the predictions; off the diagonal are the mistakes. Below, accuracy per class."</figcaption>
                </figure>
                <figure class:hidden=hidden("misses")>
                    <canvas node_ref=c.misses data-testid="vision-misses" data-empty="After training: the test images the network got wrong." width="420" height="300" on:click=pick_miss tabindex="0" on:keydown=step_miss aria-label="the misclassified test images; click one, or focus here and use the arrow keys, to inspect it"></canvas>
                    <figcaption>"The misclassified test images the model was most sure about: predicted (true). Click one to inspect it."</figcaption>
                </figure>
                {crate::lessons::lesson("vision", crate::vision::lesson::STEPS)}
            </section>
        </main>
    }
}
