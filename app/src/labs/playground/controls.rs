//! The playground's control helpers: a select or a number bound to one field of the settings,
//! a click handler bound to the model, and how readouts print.

use std::rc::Rc;

use leptos::prelude::*;

use lab_state::playground::Playground;

use super::lab::Lab;

pub fn fmt_opt(v: Option<f32>, digits: usize) -> String {
    v.map_or("–".into(), |v| format!("{v:.digits$}"))
}

pub fn percent(v: Option<f32>) -> String {
    v.map_or("–".into(), |a| format!("{:.0} %", a * 100.0))
}

/// An event handler that calls `f` on the model.
pub fn on<E>(lab: &Rc<Lab>, f: impl Fn(&Lab) + 'static) -> impl Fn(E) + 'static {
    let lab = lab.clone();
    move |_| f(&lab)
}

/// A `<select>` over `options` (value, label) bound to one field of the state; `off` says when
/// the choice does not apply (it is then disabled).
pub fn choice<T: Clone + PartialEq + Send + Sync + 'static>(
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

/// A `<select>` over the numbers `offered`, bound to one field; a value from a link or a file
/// that is not offered joins the list, so the control always shows what the model uses.
pub fn number_choice<T>(
    lab: &Rc<Lab>,
    testid: &'static str,
    offered: &'static [T],
    get: fn(&Playground) -> T,
    set: fn(&mut Playground, T),
) -> impl IntoView
where
    T: Copy + PartialOrd + ToString + std::str::FromStr + Send + Sync + 'static,
{
    let state = lab.state;
    let lab = lab.clone();
    view! {
        <select data-testid=testid on:change=move |ev| {
            if let Ok(v) = event_target_value(&ev).parse::<T>() {
                lab.update(move |s| set(s, v));
            }
        }>
            {move || {
                let current = state.with(get);
                crate::controls::offered_with(offered, current).into_iter().map(|o| view! {
                    <option value=o.to_string() selected=o == current>{o.to_string()}</option>
                }).collect_view()
            }}
        </select>
    }
}

/// A number `<input>` bound to one f32 field; unparsable input is ignored.
pub fn number(
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

/// Options keyed by their serde name.
pub fn keyed<T: Copy + serde::Serialize>(items: &[T], label: fn(T) -> String) -> Vec<(String, String, T)> {
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

/// Options whose value is their label.
pub fn plain<T: ToString + Clone>(items: &[T]) -> Vec<(String, String, T)> {
    items
        .iter()
        .map(|v| (v.to_string(), v.to_string(), v.clone()))
        .collect()
}
