//! The playground's network and training controls.

use std::rc::Rc;

use leptos::prelude::*;

use engine::model::Init;
use engine::ops::activation::Activation;
use engine::plan::Loss;
use lab_state::playground::{BackendChoice, DECAYS, MAX_LAYERS, MAX_NEURONS, OPTIMIZERS};

use super::controls::{choice, keyed, number, number_choice, plain};
use super::lab::Lab;
use crate::share::hidden;

const LEARNING_RATES: [f32; 9] = [0.0001, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0];
const BATCHES: [usize; 8] = [1, 4, 8, 16, 32, 64, 128, 256];

pub fn network_panel(lab: &Rc<Lab>) -> impl IntoView {
    let state = lab.state;
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
    view! {
        <h2>"Network"</h2>
        <div class="layers" class:hidden=hidden("hidden")>
            <span data-testid="layers">{move || match state.with(|s| s.hidden.len()) {
                1 => "1 hidden layer".to_string(),
                n => format!("{n} hidden layers"),
            }}</span>
            <button data-testid="add-layer" aria-label="add a hidden layer"
                disabled=move || state.with(|s| s.hidden.len() >= MAX_LAYERS)
                on:click={ let lab = lab.clone(); move |_| lab.update(|s| { let n = s.hidden.last().copied().unwrap_or(4); s.hidden.push(n) }) }>"+"</button>
            <button data-testid="remove-layer" aria-label="remove a hidden layer"
                disabled=move || state.with(|s| s.hidden.is_empty())
                on:click={ let lab = lab.clone(); move |_| lab.update(|s| { s.hidden.pop(); }) }>"−"</button>
        </div>
        <div class="neurons" class:hidden=hidden("hidden")>
            {(0..MAX_LAYERS).map(|i| {
                let lab = lab.clone();
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
        <label class:hidden=hidden("activation")>"Activation"
            {choice(lab, "activation", activations, |s| s.activation, |s, v| s.activation = v, |_| false)}
        </label>
        <details class="advanced" data-testid="network-advanced">
        <summary>"Advanced"</summary>
        <label class:hidden=hidden("init")>"Initialization"
            {choice(lab, "init", inits, |s| s.init, |s, v| s.init = v, |_| false)}
        </label>
        <label class:hidden=hidden("dropout")>"Dropout rate"
            {number(lab, "dropout", "0.05", |s| s.dropout, |s, v| s.dropout = v)}
        </label>
        </details>
    }
}

pub fn training_panel(lab: &Rc<Lab>) -> impl IntoView {
    let state = lab.state;
    // Hidden by a lock, or because the chosen optimizer does not read it (β₂ for SGD).
    let applies = move |name: &'static str| {
        let locked = hidden(name);
        move || locked() || !state.with(|s| s.uses(name))
    };
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
    let optimizers = plain(&OPTIMIZERS.map(String::from));
    let decays = plain(&DECAYS.map(String::from));
    view! {
        <h2>"Training"</h2>
        <p class="muted small" data-testid="live-note">"Changes here apply to the running model; changes to the data, features or network start a fresh one."</p>
        <label class:hidden=hidden("optimizer")>"Optimizer"
            {choice(lab, "optimizer", optimizers, |s| s.optimizer.clone(), |s, v| s.optimizer = v, |_| false)}
        </label>
        <label class:hidden=hidden("lr")>"Learning rate"
            {number_choice(lab, "learning-rate", &LEARNING_RATES, |s| s.learning_rate, |s, v| s.learning_rate = v)}
        </label>
        <label class:hidden=applies("momentum")>"Momentum / β₁"
            {number(lab, "momentum", "0.05", |s| s.momentum, |s, v| s.momentum = v)}
        </label>
        <label class:hidden=hidden("batch")>"Batch size"
            {number_choice(lab, "batch", &BATCHES, |s| s.batch, |s, v| s.batch = v)}
        </label>
        <label class:hidden=hidden("l2")>"L2 rate"
            {number(lab, "l2", "0.001", |s| s.l2, |s, v| s.l2 = v)}
        </label>
        <details class="advanced" data-testid="training-advanced">
        <summary>"Advanced"</summary>
        <label class:hidden=applies("beta2")>"β₂ (Adam, AdamW) / β (RMSProp)"
            {number(lab, "beta2", "0.001", |s| s.beta2, |s, v| s.beta2 = v)}
        </label>
        <label class:hidden=applies("eps")>"ε"
            {number(lab, "eps", "any", |s| s.eps, |s, v| s.eps = v)}
        </label>
        <label class:hidden=applies("weight_decay")>"Weight decay (AdamW, LARS)"
            {number(lab, "weight-decay", "0.001", |s| s.weight_decay, |s, v| s.weight_decay = v)}
        </label>
        <label class:hidden=hidden("warmup")>"Warmup steps"
            {number(lab, "warmup", "10", |s| s.warmup as f32, |s, v| s.warmup = v.max(0.0) as u32)}
        </label>
        <label class:hidden=hidden("decay")>"Schedule after warmup"
            {choice(lab, "decay", decays, |s| s.decay.clone(), |s, v| s.decay = v, |_| false)}
        </label>
        <label class:hidden=hidden("decay")>"… over steps (step: halve every; exponential: half-life; cosine: to zero)"
            {number(lab, "decay-steps", "100", |s| s.decay_steps as f32, |s, v| s.decay_steps = v.max(1.0) as u32)}
        </label>
        <label class:hidden=hidden("l1")>"L1 rate"
            {number(lab, "l1", "0.001", |s| s.l1, |s, v| s.l1 = v)}
        </label>
        <label class:hidden=hidden("loss")>"Loss"
            {choice(lab, "loss-kind", losses, |s| s.effective_loss(), |s, v| s.loss = v, |s| s.dataset.is_regression())}
        </label>
        <label class:hidden=hidden("backend")>"Backend"
            {choice(lab, "backend-choice", backends, |s| s.backend, |s, v| s.backend = v, |_| false)}
        </label>
        </details>
    }
}
