//! Goh's theory of momentum on the quadratic, beside the measured rates, and the update rules'
//! conventions against PyTorch and optax.

use leptos::prelude::*;

use lab_sims::surfaces::{momentum_theory, Surface};
use lab_state::optimizers::OptimizersLab;

use crate::share::hidden;

/// The predicted steps and rates, on the quadratic only.
pub fn theory_figure(state: RwSignal<OptimizersLab>) -> impl IntoView {
    let theory = move || match state.with(|s| s.surface()) {
        Surface::Quadratic { kappa } => Some(momentum_theory(kappa)),
        _ => None,
    };
    view! {
        {move || theory().map(|th| view! {
            <figure class:hidden=hidden("theory") data-testid="opt-theory">
                <table class="results">
                    <tr><th>"gradient descent: best η = 2/(1+κ)"</th><td>{format!("{:.4}", th.gd_step)}</td></tr>
                    <tr><th>"… its rate (κ−1)/(κ+1)"</th><td>{format!("{:.4}", th.gd_rate)}</td></tr>
                    <tr><th>"momentum: optimal η = (2/(1+√κ))²"</th><td>{format!("{:.6}", th.alpha)}</td></tr>
                    <tr><th>"optimal μ = ((√κ−1)/(√κ+1))²"</th><td>{format!("{:.6}", th.beta)}</td></tr>
                    <tr><th>"… its rate (√κ−1)/(√κ+1)"</th><td>{format!("{:.4}", th.rate)}</td></tr>
                </table>
                <figcaption>"Goh, “Why Momentum Really Works” (Distill 2017), for ½(x² + κy²). Press “Use Goh's optimal η, μ” and compare the measured rates."</figcaption>
            </figure>
        })}
    }
}

/// How each update rule is written here, and where PyTorch and optax differ.
pub fn conventions() -> impl IntoView {
    view! {
        <details class="small" data-testid="opt-conventions">
            <summary>"Update rules and where they differ from PyTorch and optax"</summary>
            <ul>
                <li>"Momentum keeps η inside the velocity: v ← μv − ηg, w ← w + v (PyTorch: v ← μv + g, w ← w − ηv; the same at a constant rate, not when η changes)."</li>
                <li>"Nesterov runs in its look-ahead form: one gradient per step, at w + μv."</li>
                <li>"AdaGrad puts ε inside the root: w ← w − ηg/√(A + ε) (PyTorch and optax: √A + ε)."</li>
                <li>"RMSProp and Adam put ε outside: g/(√A + ε), m̂/(√v̂ + ε); AdamW decays w by ηλw apart from the gradient."</li>
                <li>"LARS has no separate trust coefficient: η_l = η‖w‖/(‖g‖ + λ‖w‖) per tensor."</li>
                <li>"MSE is the mean over every sample and output (PyTorch's reduction=\"mean\"); L1/L2 terms join the gradient in the update, not the reported loss."</li>
            </ul>
            <p>"All of them, with sources and the tests that check them: docs/theory.md §2 in the repository."</p>
        </details>
    }
}
