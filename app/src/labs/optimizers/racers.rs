//! The racers: which optimizers run, each with its step size and momentum.

use leptos::prelude::*;

use lab_state::optimizers::{OptimizersLab, RACERS};

use crate::optimizers::draw::color;
use crate::share::hidden;

/// One row per optimizer: on or off, η, and μ (β for RMSProp) where it has one; an edit races
/// again. A bad number keeps the last one and says so in `notices`.
/// Each chosen racer's η also has a slider (log scale, 0.001 to 10) and its μ one from 0 to
/// 0.99: dragging one sets `instant`, so the race is redrawn whole at once as the value moves.
pub fn racers_panel(
    state: RwSignal<OptimizersLab>,
    notices: RwSignal<Vec<String>>,
    instant: RwSignal<bool>,
) -> impl IntoView {
    view! {
        <div class:hidden=hidden("racers") data-testid="opt-racers">
        <h2>"Racers"</h2>
        {RACERS.iter().enumerate().map(|(i, r)| {
            let key = r.0.to_lowercase();
            let off = move || !state.with(|s| s.is_on(i));
            let slide = move |set: fn(&mut OptimizersLab, usize, f32), v: f32| {
                instant.set(true);
                state.update(|s| set(s, i, v));
            };
            view! {
                <div class="racer">
                    <label class="inline name">
                        <span class="swatch" style=format!("background:{}", color(i))></span>
                        <input type="checkbox" data-testid=format!("opt-racer-{key}")
                            prop:checked=move || state.with(|s| s.is_on(i))
                            on:change=move |ev| { let on = event_target_checked(&ev); state.update(|s| s.set_on(i, on)); } />
                        {r.0}
                    </label>
                    <div class="knob" class:hidden=off>
                        <span>"η"</span>
                        <input type="range" min="-3" max="1" step="0.01"
                            aria-label=format!("η of {} (log scale)", r.0) data-testid=format!("opt-lr-slider-{key}")
                            prop:value=move || state.with(|s| s.lr[i].log10().to_string())
                            on:input=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<f32>() {
                                slide(|s, i, v| s.lr[i] = (10f32.powf(v) * 1e4).round() / 1e4, v)
                            } } />
                        <input type="number" step="any" min="0" data-testid=format!("opt-lr-{key}") aria-label=format!("η of {}", r.0)
                            prop:value=move || state.with(|s| s.lr[i].to_string())
                            on:change=move |ev| {
                                match event_target_value(&ev).parse::<f32>() {
                                    Ok(v) if v.is_finite() && v > 0.0 && v <= 100.0 => { state.update(|s| s.lr[i] = v); notices.set(vec![]); }
                                    _ => notices.set(vec![format!("η of {}: a positive number up to 100 (kept {})", r.0, state.with_untracked(|s| s.lr[i]))]),
                                }
                            } />
                    </div>
                    <div class="knob" class:hidden=move || off() || r.3 == 0.0>
                        <span>{if r.0 == "RMSProp" { "β" } else { "μ/β₁" }}</span>
                        <input type="range" min="0" max="0.99" step="0.01"
                            aria-label=format!("momentum of {}", r.0) data-testid=format!("opt-momentum-slider-{key}")
                            prop:value=move || state.with(|s| s.momentum[i].to_string())
                            on:input=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<f32>() {
                                slide(|s, i, v| s.momentum[i] = v, v)
                            } } />
                        <input type="number" step="any" min="0" max="0.999" data-testid=format!("opt-momentum-{key}") aria-label=format!("momentum of {}", r.0)
                            prop:value=move || state.with(|s| s.momentum[i].to_string())
                            on:change=move |ev| {
                                match event_target_value(&ev).parse::<f32>() {
                                    Ok(v) if (0.0..1.0).contains(&v) => { state.update(|s| s.momentum[i] = v); notices.set(vec![]); }
                                    _ => notices.set(vec![format!("momentum of {}: from 0 to 0.999 (kept {})", r.0, state.with_untracked(|s| s.momentum[i]))]),
                                }
                            } />
                    </div>
                </div>
            }
        }).collect_view()}
        </div>
    }
}
