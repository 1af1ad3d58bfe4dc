//! The two pictures: the contour map with the paths (click it, or use the arrow keys, to move the
//! start) and the loss chart with each racer's final loss and measured rate.

use leptos::prelude::*;

use lab_sims::surfaces::{predicted_rate, Surface};
use lab_state::optimizers::OptimizersLab;

use super::race::{Canvases, Outcome};
use crate::share::hidden;

/// The start moved by a click at (fx, fy), fractions of the map from its top-left corner.
fn start_at(s: &mut OptimizersLab, fx: f32, fy: f32) {
    let [x0, x1, y0, y1] = s.surface().view();
    s.start = Some([x0 + fx * (x1 - x0), y1 - fy * (y1 - y0)]);
}

/// The start nudged by 1/40 of the map per arrow key.
fn nudge(s: &mut OptimizersLab, dx: f32, dy: f32) {
    let [x0, x1, y0, y1] = s.surface().view();
    let [x, y] = s.start();
    let nx = (x + dx * (x1 - x0) / 40.0).clamp(x0, x1);
    let ny = (y + dy * (y1 - y0) / 40.0).clamp(y0, y1);
    s.start = Some([nx, ny]);
}

pub fn contour_figure(state: RwSignal<OptimizersLab>, canvases: Canvases) -> impl IntoView {
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(c) = canvases.contour.get_untracked() else {
            return;
        };
        let rect = c.get_bounding_client_rect();
        let fx = ((ev.client_x() as f64 - rect.left()) / rect.width()) as f32;
        let fy = ((ev.client_y() as f64 - rect.top()) / rect.height()) as f32;
        state.update(|s| start_at(s, fx, fy));
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let (dx, dy) = match ev.key().as_str() {
            "ArrowLeft" => (-1.0, 0.0),
            "ArrowRight" => (1.0, 0.0),
            "ArrowUp" => (0.0, 1.0),
            "ArrowDown" => (0.0, -1.0),
            _ => return,
        };
        ev.prevent_default();
        state.update(|s| nudge(s, dx, dy));
    };
    view! {
        <figure class:hidden=hidden("contour")>
            <canvas node_ref=canvases.contour data-testid="opt-contour" width="440" height="440" tabindex="0" on:click=on_click on:keydown=on_key
                aria-label="contour map of the surface with each optimizer's path; click, or use the arrow keys, to move the start"></canvas>
            <figcaption>"Bands of equal log-loss; darker is higher; ✕ marks the minimum (dashed: a valley of minima). Each line is one optimizer's path from the square; the dot is where it is now. Read it: a path that zig-zags across a valley has a step too large for the steep direction and too small for the flat one."</figcaption>
        </figure>
    }
}

/// The loss chart (log axis while `log`) and each racer's final loss; on the quadratic, its
/// measured rate beside the rate theory predicts for its η and μ (SGD and momentum).
pub fn loss_figure(
    state: RwSignal<OptimizersLab>,
    outcomes: RwSignal<Vec<Outcome>>,
    canvases: Canvases,
    log: RwSignal<bool>,
) -> impl IntoView {
    let kappa = move || match state.with(|s| s.surface()) {
        Surface::Quadratic { kappa } => Some(kappa),
        _ => None,
    };
    let not_quadratic = move || kappa().is_none();
    let predicted = move |i: usize| {
        let (optimizer, lr) = state.with(|s| (s.optimizer(i), s.lr[i]));
        kappa()
            .and_then(|k| predicted_rate(optimizer, lr, k))
            .map_or("–".to_string(), |r| format!("{r:.4}"))
    };
    view! {
        <figure class:hidden=hidden("loss-chart")>
            <canvas node_ref=canvases.chart data-testid="opt-loss-chart" width="440" height="300"></canvas>
            <label class="inline small">
                <input type="checkbox" data-testid="opt-log" prop:checked=move || log.get()
                    on:change=move |ev| log.set(event_target_checked(&ev)) />
                "log scale (a steady rate of convergence is a straight line)"
            </label>
            <table class="results" data-testid="opt-rates">
                <tr><th>"optimizer"</th><td>"final loss"</td>
                    <td class:hidden=not_quadratic>"measured rate"</td>
                    <td class:hidden=not_quadratic>"predicted rate"</td></tr>
                {move || outcomes.get().into_iter().map(|o| view! {
                    <tr>
                        <th>{o.name.clone()}</th>
                        <td data-metric=lab_state::registry::metric_name("final", &o.name) data-metric-value=if o.diverged { String::new() } else { o.last.to_string() }>{if o.diverged { "diverged".to_string() } else { format!("{:.4}", o.last) }}</td>
                        <td class:hidden=not_quadratic data-metric=lab_state::registry::metric_name("rate", &o.name) data-metric-value=if o.diverged { String::new() } else { o.rate.to_string() }>{if o.diverged { String::new() } else { format!("{:.4}", o.rate) }}</td>
                        <td class:hidden=not_quadratic data-testid=format!("opt-predicted-{}", o.name.to_lowercase())>{predicted(o.racer)}</td>
                    </tr>
                }).collect_view()}
            </table>
            <figcaption>"Loss per step. On the quadratic ½(x² + κy²), the measured rate is how much the distance to the minimum shrinks per step (fitted over the second half of the path); the predicted rate is Goh's for gradient descent and momentum at their η and μ (docs/theory.md §3; – where no single rate applies). Below 1 converges; closer to 0 is faster."</figcaption>
        </figure>
    }
}
