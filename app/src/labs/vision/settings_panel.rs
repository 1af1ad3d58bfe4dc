//! The vision lab's settings: data set and size, architecture, optimizer and its numbers,
//! backend.

use lab_state::playground::BackendChoice;
use leptos::prelude::*;

use crate::share::hidden;
use engine::optim::Optimizer;
use lab_state::layers::{self, PRESETS};
use lab_state::vision::{VisionLab as Settings, TRAIN_SIZES};

pub fn settings_panel(settings: RwSignal<Settings>, error: RwSignal<Option<String>>) -> impl IntoView {
    let set = move |f: &dyn Fn(&mut Settings)| settings.update(|s| f(s));
    let number = crate::controls::numbers(settings, error);
    view! {
        <label class:hidden=hidden("set")>"Data set"
            <select data-testid="vision-set" on:change=move |ev| {
                let v = if event_target_value(&ev) == "fashion" { "fashion" } else { "mnist" };
                set(&|s| s.set = v.into());
            }>
                <option value="mnist" selected=move || settings.with(|s| s.set == "mnist")>"MNIST digits"</option>
                <option value="fashion" selected=move || settings.with(|s| s.set == "fashion")>"Fashion-MNIST"</option>
            </select>
        </label>
        <label class:hidden=hidden("train")>"Training images"
            <select data-testid="vision-train" on:change=move |ev| { if let Ok(n) = event_target_value(&ev).parse::<usize>() { set(&|s| s.train = n) } }>
                {TRAIN_SIZES.map(|n| view! { <option value=n.to_string() selected=move || settings.with(|s| s.train == n)>{n.to_string()}</option> }).collect_view()}
            </select>
        </label>
        <label class:hidden=hidden("preset")>"Architecture"
            <select data-testid="vision-preset" on:change=move |ev| {
                if let Ok(i) = event_target_value(&ev).parse::<usize>() {
                    set(&|s| { s.preset = i; let p = PRESETS[i.min(PRESETS.len() - 1)]; s.layers = p.2.into(); s.epochs = p.3; });
                }
            }>
                {PRESETS.iter().enumerate().map(|(i, p)| view! { <option value=i.to_string() selected=move || settings.with(|s| s.preset == i)>{format!("{} ({} epochs)", p.1, p.3)}</option> }).collect_view()}
            </select>
        </label>
        <label class:hidden=hidden("layers")>"Layers (edit: conv F KxK sS pP, maxpool N, avgpool N, dense N, dropout R, bn, ln, res [ … ], res proj [ … ], relu, tanh…)"
            <textarea data-testid="vision-layers" rows="4" prop:value=move || settings.with(|s| s.layers.clone()) on:change=move |ev| {
                let v = event_target_value(&ev);
                match layers::parse(&v, 10) {
                    Ok(parsed) => { set(&|s| s.layers = layers::format(&parsed)); error.set(None); }
                    Err(e) => error.set(Some(format!("layers: {e} (kept the last network)"))),
                }
            }></textarea>
        </label>
        {crate::controls::optimizer_select(settings, "vision-optimizer", |s| s.optimizer, |s, i| {
            s.optimizer = i;
            s.lr = Optimizer::all()[i.min(Optimizer::all().len() - 1)].default_learning_rate();
        })}
        {number("Learning rate", "vision-lr", |s| s.lr.to_string(), |s, v| v.parse().ok().filter(|x: &f32| *x > 0.0 && x.is_finite()).map(|x| s.lr = x).is_some())}
        {number("Batch size", "vision-batch", |s| s.batch.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.batch = x).is_some())}
        {number("Epochs", "vision-epochs", |s| s.epochs.to_string(), |s, v| v.parse().ok().map(|x| s.epochs = x).is_some())}
        {number("Seed (the weights' start and the batches' order)", "vision-seed", |s| s.seed.to_string(), |s, v| v.parse().ok().map(|x| s.seed = x).is_some())}
        <label class:hidden=hidden("backend")>"Backend"
            <select data-testid="vision-backend" on:change=move |ev| {
                let w = match event_target_value(&ev).as_str() { "webgpu" => BackendChoice::Webgpu, "cpu" => BackendChoice::Cpu, _ => BackendChoice::Auto };
                set(&|s| s.webgpu = w)
            }>
                <option value="auto" selected=move || settings.with(|s| s.webgpu == BackendChoice::Auto)>"auto (the faster, timed on this model)"</option>
                <option value="webgpu" selected=move || settings.with(|s| s.webgpu == BackendChoice::Webgpu)>"WebGPU (CPU path if missing)"</option>
                <option value="cpu" selected=move || settings.with(|s| s.webgpu == BackendChoice::Cpu)>"CPU path"</option>
            </select>
        </label>
    }
}
