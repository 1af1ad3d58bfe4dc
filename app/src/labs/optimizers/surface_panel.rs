//! The surface and the race's conditions: which surface, its condition number (the quadratic),
//! the gradient noise and the number of steps.

use leptos::prelude::*;

use lab_sims::surfaces::Surface;
use lab_state::optimizers::{OptimizersLab, KAPPAS, NOISES, STEPS, SURFACES};

use crate::share::hidden;

/// A select over `options`, showing the state's value and setting it on change.
fn menu<T>(
    label: &'static str,
    id: &'static str,
    hide: impl Fn() -> bool + Send + Sync + 'static,
    state: RwSignal<OptimizersLab>,
    options: &'static [T],
    get: fn(&OptimizersLab) -> T,
    set: fn(&mut OptimizersLab, T),
) -> impl IntoView
where
    T: Copy + PartialEq + ToString + std::str::FromStr + Send + Sync + 'static,
{
    view! {
        <label class:hidden=hide>{label}
            <select data-testid=id on:change=move |ev| {
                if let Ok(v) = event_target_value(&ev).parse::<T>() {
                    state.update(|s| set(s, v));
                }
            }>
                {options.iter().map(|o| view! {
                    <option value=o.to_string() selected=move || state.with(|s| get(s) == *o)>{o.to_string()}</option>
                }).collect_view()}
            </select>
        </label>
    }
}

pub fn surface_panel(state: RwSignal<OptimizersLab>) -> impl IntoView {
    let on_quadratic = move || matches!(state.with(|s| s.surface()), Surface::Quadratic { .. });
    let kappa_hidden = hidden("kappa");
    view! {
        <label class:hidden=hidden("surface")>"Surface"
            <select data-testid="opt-surface" on:change=move |ev| {
                let i: usize = event_target_value(&ev).parse().unwrap_or(0);
                state.update(|s| s.switch_surface(SURFACES[i.min(SURFACES.len() - 1)]));
            }>
                {Surface::ALL.iter().enumerate().map(|(i, s)| view! { <option value=i.to_string() selected=move || state.with(|st| st.surface == SURFACES[i])>{s.label()}</option> }).collect_view()}
            </select>
        </label>
        {menu("Condition number κ", "opt-kappa", move || kappa_hidden() || !on_quadratic(), state, &KAPPAS, |s| s.kappa, |s, v| s.kappa = v)}
        {menu("Gradient noise (std of each component)", "opt-noise", hidden("noise"), state, &NOISES, |s| s.noise, |s, v| s.noise = v)}
        {menu("Steps", "opt-steps", hidden("steps"), state, &STEPS, |s| s.steps, |s, v| s.steps = v)}
    }
}
