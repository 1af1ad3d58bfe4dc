//! The racers: which optimizers run, each with its step size and momentum.

use leptos::prelude::*;

use lab_state::optimizers::{OptimizersLab, RACERS};

use crate::draw::optimizers::color;
use crate::share::hidden;

/// One row per optimizer: on or off, η, and μ (β for RMSProp) where it has one; an edit races
/// again. A bad number keeps the last one and says so in `notices`.
pub fn racers_panel(state: RwSignal<OptimizersLab>, notices: RwSignal<Vec<String>>) -> impl IntoView {
    view! {
        <div class:hidden=hidden("racers") data-testid="opt-racers">
        <h2>"Racers"</h2>
        {RACERS.iter().enumerate().map(|(i, r)| {
            let key = r.0.to_lowercase();
            view! {
                <div class="racer">
                    <label class="inline">
                        <span class="swatch" style=format!("background:{}", color(i))></span>
                        <input type="checkbox" data-testid=format!("opt-racer-{key}")
                            prop:checked=move || state.with(|s| s.is_on(i))
                            on:change=move |ev| { let on = event_target_checked(&ev); state.update(|s| s.set_on(i, on)); } />
                        {r.0}
                    </label>
                    <label class="inline small">"η"
                        <input type="number" step="any" min="0" data-testid=format!("opt-lr-{key}")
                            prop:value=move || state.with(|s| s.lr[i].to_string())
                            on:change=move |ev| {
                                match event_target_value(&ev).parse::<f32>() {
                                    Ok(v) if v.is_finite() && v > 0.0 && v <= 100.0 => { state.update(|s| s.lr[i] = v); notices.set(vec![]); }
                                    _ => notices.set(vec![format!("η of {}: a positive number up to 100 (kept {})", r.0, state.with_untracked(|s| s.lr[i]))]),
                                }
                            } />
                    </label>
                    <label class="inline small" class:hidden=r.3 == 0.0>{if r.0 == "RMSProp" { "β" } else { "μ/β₁" }}
                        <input type="number" step="any" min="0" max="0.999" data-testid=format!("opt-momentum-{key}")
                            prop:value=move || state.with(|s| s.momentum[i].to_string())
                            on:change=move |ev| {
                                match event_target_value(&ev).parse::<f32>() {
                                    Ok(v) if (0.0..1.0).contains(&v) => { state.update(|s| s.momentum[i] = v); notices.set(vec![]); }
                                    _ => notices.set(vec![format!("momentum of {}: from 0 to 0.999 (kept {})", r.0, state.with_untracked(|s| s.momentum[i]))]),
                                }
                            } />
                    </label>
                </div>
            }
        }).collect_view()}
        </div>
    }
}
