//! The optimizer lab (`/optimizers`): pick a 2-D surface, start every chosen optimizer from the
//! same point (click the plot to move it), and watch their paths over the contours and their
//! losses side by side. On the quadratic, Goh's theory (optimal step and momentum, predicted
//! rates) sits beside the measured rates. The math is the engine's (`lab_sims::surfaces`); every
//! change of the settings races again, animated by one task (`race::animator`).

use leptos::prelude::*;

use lab_sims::surfaces::{momentum_theory, Surface};
use lab_state::optimizers::OptimizersLab;

use crate::share::hidden;

pub mod draw;
mod figures;
mod lesson;
mod race;
mod racers;
mod surface_panel;
mod theory;

#[component]
pub fn OptimizersPage() -> impl IntoView {
    let (state, notices) = crate::share::url_state::<OptimizersLab>();
    let outcomes = RwSignal::new(Vec::new());
    let canvases = race::Canvases {
        contour: NodeRef::new(),
        chart: NodeRef::new(),
    };
    let log = RwSignal::new(true);
    // Set by a slider while it is dragged: that change is drawn whole at once.
    let instant = RwSignal::new(false);
    let races = race::animator(canvases, outcomes, log);
    // The first render and every change of the settings (or of the axis) race again.
    Effect::new({
        let races = races.clone();
        move |was_log: Option<bool>| {
            let now_log = log.get();
            // A slider's change, or only the axis, is drawn whole at once.
            let whole = instant.get_untracked() || was_log.is_some_and(|w| w != now_log);
            instant.set(false);
            races.send((state.get(), whole));
            now_log
        }
    });
    let quadratic = move || matches!(state.with(|s| s.surface()), Surface::Quadratic { .. });
    let on_goh = move |_| {
        let Surface::Quadratic { kappa } = state.with_untracked(|s| s.surface()) else {
            return;
        };
        let th = momentum_theory(kappa);
        state.update(|s| {
            s.lr[0] = th.gd_step;
            s.lr[1] = th.alpha;
            s.momentum[1] = th.beta;
        });
    };
    let goh_hidden = hidden("goh");
    view! {
        {crate::layout::lab_header("optimizers", "Race optimizers on surfaces you can see. Click the map (or focus it and use the arrow keys) to move the start.")}
        <main class="lab">
            <section class="runbar" aria-label="run">
            <div class="buttons">
                <button class:hidden=hidden("run") class="primary" data-lab-start="true" data-testid="opt-run" on:click=move |_| races.send((state.get_untracked(), false))>"Race again"</button>
                <button data-testid="opt-goh" class:hidden=move || goh_hidden() || !quadratic() on:click=on_goh>"Use Goh's optimal η, μ"</button>
            </div>
            </section>
            <section class="controls" aria-label="surface and race">
                <crate::share::StateBar state=state notices=notices/>
                {surface_panel::surface_panel(state)}
                {racers::racers_panel(state, notices, instant)}
            </section>
            <section class="views">
                {figures::contour_figure(state, canvases)}
                {figures::loss_figure(state, outcomes, canvases, log)}
                {theory::theory_figure(state)}
                {theory::conventions()}
                {crate::lessons::lesson("opt", crate::optimizers::lesson::STEPS)}
            </section>
        </main>
    }
}

/// The lab's page, under the name the registry's generated router mounts (`build.rs`).
pub use OptimizersPage as Page;
