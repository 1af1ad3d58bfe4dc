//! The page: controls on the left, the decision boundary and the loss curve on the right.
//! Every control and readout carries a `data-testid` (listed in the README) for tests and
//! tutorial authors.

use leptos::prelude::*;

use engine::data::toy::ToyKind;

use crate::lab::{GpuStatus, Lab};

const LEARNING_RATES: [f32; 7] = [0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0];

fn fmt_opt(v: Option<f32>, digits: usize) -> String {
    v.map_or("–".into(), |v| format!("{v:.digits$}"))
}

#[component]
pub fn App() -> impl IntoView {
    let lab = Lab::new();
    let s = lab.settings;
    let r = lab.readouts;
    leptos::task::spawn_local(lab.clone().detect_gpu());

    let on_settings = {
        let lab = lab.clone();
        move || lab.reset()
    };
    let (train, pause, reset) = (lab.clone(), lab.clone(), lab.clone());
    let on_dataset = {
        let f = on_settings.clone();
        move |ev| {
            if let Some(k) = ToyKind::from_key(&event_target_value(&ev)) {
                s.dataset.set(k);
                f();
            }
        }
    };
    let on_layers = {
        let f = on_settings.clone();
        move |ev| {
            if let Ok(n) = event_target_value(&ev).parse::<usize>() {
                s.layers.set(n.clamp(1, 4));
                f();
            }
        }
    };
    let on_width = {
        let f = on_settings.clone();
        move |ev| {
            if let Ok(n) = event_target_value(&ev).parse::<usize>() {
                s.width.set(n.clamp(1, 64));
                f();
            }
        }
    };
    let on_lr = move |ev| {
        if let Ok(v) = event_target_value(&ev).parse::<f32>() {
            s.learning_rate.set(v);
            on_settings();
        }
    };
    let busy = move || r.gpu.get() == GpuStatus::Detecting;

    view! {
        <header class="top">
            <h1>"Training Lab"</h1>
            <p class="tagline">"Train a neural network in your browser and watch it learn."</p>
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
        {move || r.error.get().map(|e| view! {
            <div class="error" data-testid="error" role="alert">{e}</div>
        })}
        <main class="lab">
            <section class="controls" aria-label="settings">
                <label>"Data set"
                    <select data-testid="dataset" on:change=on_dataset>
                        {ToyKind::ALL.into_iter().map(|k| view! {
                            <option value=k.key() selected=move || s.dataset.get() == k>{k.label()}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label>"Hidden layers"
                    <select data-testid="layers" on:change=on_layers>
                        {(1..=4usize).map(|n| view! {
                            <option value=n.to_string() selected=move || s.layers.get() == n>{n}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label>"Neurons per layer"
                    <input type="number" min="1" max="64" data-testid="width"
                        prop:value=move || s.width.get().to_string() on:change=on_width />
                </label>
                <label>"Learning rate (Adam)"
                    <select data-testid="learning-rate" on:change=on_lr>
                        {LEARNING_RATES.into_iter().map(|v| view! {
                            <option value=v.to_string() selected=move || s.learning_rate.get() == v>{v.to_string()}</option>
                        }).collect_view()}
                    </select>
                </label>
                <div class="buttons">
                    <button data-testid="train" class="primary" disabled=move || busy() || r.running.get()
                        on:click=move |_| train.train()>"Train"</button>
                    <button data-testid="pause" disabled=move || !r.running.get()
                        on:click=move |_| pause.pause()>"Pause"</button>
                    <button data-testid="reset" disabled=busy on:click=move |_| reset.reset()>"Reset"</button>
                </div>
                <dl class="readouts">
                    <dt>"Step"</dt><dd data-testid="step">{move || r.step.get()}</dd>
                    <dt>"Epoch"</dt><dd data-testid="epoch">{move || r.epoch.get()}</dd>
                    <dt>"Loss"</dt><dd data-testid="loss">{move || fmt_opt(r.loss.get(), 4)}</dd>
                    <dt>"Loss at step 1"</dt><dd data-testid="loss-start">{move || fmt_opt(r.first_loss.get(), 4)}</dd>
                    <dt>"Batch accuracy"</dt>
                    <dd data-testid="accuracy">{move || r.accuracy.get().map_or("–".into(), |a| format!("{:.0} %", a * 100.0))}</dd>
                    <dt>"Steps / s"</dt>
                    <dd data-testid="speed">{move || r.steps_per_second.get().map_or("–".into(), |v| format!("{v:.0}"))}</dd>
                    <dt>"Runs on"</dt><dd data-testid="device">{move || r.backend.get()}</dd>
                </dl>
            </section>
            <section class="views">
                <figure>
                    <canvas node_ref=lab.heatmap data-testid="heatmap" width="360" height="360"
                        aria-label="decision boundary of the network over the data"></canvas>
                    <figcaption>"Decision boundary: the colour is the class the network predicts, paler where it is unsure. Dots are the training data."</figcaption>
                </figure>
                <figure>
                    <canvas node_ref=lab.chart data-testid="loss-chart" width="420" height="300"
                        aria-label="training loss per step"></canvas>
                    <figcaption>"Training loss per step (light) and its moving average (dark)."</figcaption>
                </figure>
            </section>
        </main>
    }
}
