//! The playground's data controls: the generator, the user's own points, and the features the
//! network sees.

use std::rc::Rc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use engine::data::features::Feature;
use engine::data::toy::ToyKind;
use lab_state::playground::Playground;

use super::controls::{choice, on, plain};
use super::lab::Lab;
use crate::browser;
use crate::share::hidden;

pub fn data_panel(
    lab: &Rc<Lab>,
    file_notices: RwSignal<Vec<String>>,
    loaded: RwSignal<Option<Playground>>,
) -> impl IntoView {
    let state = lab.state;
    let r = lab.readouts;
    let datasets = ToyKind::ALL
        .into_iter()
        .chain(ToyKind::REGRESSION)
        .map(|k| (k.key().to_string(), k.label().to_string(), k))
        .collect();
    let classes = plain(&[2usize, 3, 4, 5]);
    let on_upload = {
        let lab = lab.clone();
        move |ev: leptos::ev::Event| {
            let Some(input) = ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            else {
                return;
            };
            let lab = lab.clone();
            leptos::task::spawn_local(async move {
                match browser::read_file(&input).await {
                    Ok((name, text)) => lab.use_points(&name, &text),
                    Err(e) => lab.readouts.error.set(Some(e.to_string())),
                }
                input.set_value("");
            });
        }
    };
    let slider = |testid: &'static str,
                  max: &'static str,
                  step: &'static str,
                  get: fn(&Playground) -> f32,
                  set: fn(&mut Playground, f32)| {
        let lab = lab.clone();
        view! {
            <input type="range" min="0" max=max step=step data-testid=testid
                prop:value=move || state.with(|s| get(s).to_string())
                on:change=move |ev| {
                    if let Ok(v) = event_target_value(&ev).parse::<f32>() { lab.update(move |s| set(s, v)); }
                } />
        }
    };
    view! {
        <section class="controls data" aria-label="data">
            <div class:hidden=hidden("share")>
                <crate::share::StateBar state=state notices=file_notices loaded=loaded/>
            </div>
            <h2>"Data"</h2>
            <label class:hidden=hidden("dataset")>"Data set"
                {choice(lab, "dataset", datasets, |s| s.dataset, |s, v| s.dataset = v, |_| false)}
            </label>
            <label class:hidden=hidden("classes")>"Classes"
                {choice(lab, "classes", classes, |s| s.effective_classes(), |s, v| s.classes = v, |s| s.dataset.max_classes() < 3)}
            </label>
            <label class:hidden=hidden("noise")>
                {move || format!("Noise: {:.2}", state.with(|s| s.noise))}
                {slider("noise", "0.5", "0.01", |s| s.noise, |s, v| s.noise = v)}
            </label>
            <label class:hidden=hidden("test")>
                {move || format!("Test data: {:.0} %", state.with(|s| s.test_ratio * 100.0))}
                {slider("test-ratio", "0.9", "0.05", |s| s.test_ratio, |s, v| s.test_ratio = v)}
            </label>
            <label class="inline" class:hidden=hidden("show_test")>
                <input type="checkbox" data-testid="show-test" prop:checked=move || state.with(|s| s.show_test)
                    on:change={ let lab = lab.clone(); move |ev| {
                        let on = event_target_checked(&ev);
                        lab.update(move |s| s.show_test = on);
                    }} />
                "Show test data (hollow)"
            </label>
            <label class:hidden=hidden("points")>
                {move || format!("Points: {}", state.with(|s| s.points))}
                <input type="range" min="10" max="2000" step="10" data-testid="points"
                    prop:value=move || state.with(|s| s.points.to_string())
                    on:change={ let lab = lab.clone(); move |ev| {
                        if let Ok(n) = event_target_value(&ev).parse::<usize>() { lab.update(move |s| s.points = n); }
                    }} />
            </label>
            <div class="buttons">
                <button data-testid="regenerate" class:hidden=hidden("regenerate") on:click=on(lab, Lab::regenerate)>"Regenerate"</button>
                <span class="muted" data-testid="seed" class:hidden=hidden("seed")>{move || format!("seed {}", state.with(|s| s.seed))}</span>
            </div>
            <details class="advanced" data-testid="data-advanced">
            <summary>"Your own points"</summary>
            <label class:hidden=hidden("upload")>"Upload a CSV (x,y,label)"
                <input type="file" accept=".csv,text/csv,text/plain" data-testid="upload" on:change=on_upload />
            </label>
            <label class:hidden=hidden("add-point")>"Click the plot to add a point of class"
                <select data-testid="add-class" on:change={ let lab = lab.clone(); move |ev| {
                    if let Ok(c) = event_target_value(&ev).parse::<u32>() { lab.add_class.set(c); }
                }}>
                    {(0..5u32).map(|c| view! { <option value=c.to_string()>{c}</option> }).collect_view()}
                </select>
            </label>
            </details>
            <button data-testid="forget-points" class:hidden=move || !r.custom_data.get()
                on:click=on(lab, Lab::forget_points)>"Back to generated data"</button>
            {features(lab)}
        </section>
    }
}

/// One checkbox per input feature; unticking the last brings back x and y.
fn features(lab: &Rc<Lab>) -> impl IntoView {
    let state = lab.state;
    view! {
        <h2 class:hidden=hidden("features")>"Features"</h2>
        <div class="features" class:hidden=hidden("features")>
            {Feature::ALL.into_iter().map(|f| {
                let lab = lab.clone();
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
    }
}
