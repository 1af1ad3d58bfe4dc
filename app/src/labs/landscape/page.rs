//! The landscape page: settings and the run bar on the left, one panel of charts per batch size.

use leptos::prelude::*;

use lab_state::landscape::{
    hessian_verdict, keskar_setting, sharpness_verdict, skips_setting, skips_verdict, Landscape, SKIPS_KEY,
};

use super::runs::run_all;
use super::{Mapped, PanelCanvases};
use crate::job::{run_bar, Job};
use crate::share::hidden;

#[component]
pub fn LandscapePage() -> impl IntoView {
    let (state, notices) = crate::share::url_state::<Landscape>();
    let error = RwSignal::new(None::<String>);
    let job = Job::new("press Train and map", error, "what was done so far is shown");
    let running = job.running;
    let mapped = RwSignal::new(Vec::<Mapped>::new());
    let panels = [PanelCanvases::new(), PanelCanvases::new()];

    let go = {
        let job = job.clone();
        move |_| {
            let s = state.get_untracked();
            let (status, progress) = (job.status, job.progress);
            job.start(move |cancel| async move {
                mapped.set(Vec::new());
                run_all(&s, s.backend, status, progress, &cancel, mapped, panels).await
            });
        }
    };

    view! {
        {crate::layout::lab_header("loss landscape", "Where did training go? The loss around the trained weights, and the path that led there.")}
        <crate::banner::ErrorBanner error=error id="land-error"/>
        <main class="lab">
            {run_bar(&job, "land", view! {
                <button class:hidden=hidden("run") class="primary" data-lab-start="true" data-testid="land-run" disabled=move || running.get() on:click=go>"Train and map"</button>
            })}
            <section class="controls" aria-label="settings">
                <crate::share::StateBar state=state notices=notices/>
                {super::settings_panel::settings_panel(state, notices)}
                <ul class="muted small" data-testid="land-summary">
                    {move || mapped.get().into_iter().map(|m| view! {
                        <li>
                            <span data-metric=format!("sharpness-{}", m.key) data-metric-value=m.measured.1.to_string()>{m.summary}</span>
                            <span data-metric=format!("nonconvexity-{}", m.key) data-metric-value=m.nonconvexity.to_string()>{m.convexity_text}</span>
                            <span data-metric=format!("lambda-max-{}", m.key) data-metric-value=m.lambda_max.to_string()>{m.hessian_text}</span>
                            <span data-metric=format!("plane-share-{}", m.key) data-metric-value=m.plane_share.map_or(String::new(), |x| x.to_string())>{m.plane_text}</span>
                        </li>
                    }).collect_view()}
                </ul>
                <button data-testid="land-keskar" class:hidden=hidden("keskar") on:click=move |_| state.update(|s| {
                    let hide = std::mem::take(&mut s.hide);
                    *s = keskar_setting();
                    s.hide = hide;
                })>"Keskar et al.'s setting: MNIST MLP, batch 16 vs 256"</button>
                <button data-testid="land-skips" class:hidden=hidden("skips") on:click=move |_| state.update(|s| {
                    let hide = std::mem::take(&mut s.hide);
                    *s = skips_setting();
                    s.hide = hide;
                })>"Li et al.'s skips: a ResNet-26 with and without them (about a minute on the CPU path)"</button>
                <p data-testid="land-verdict" aria-live="polite">{move || mapped.with(|m| match m.as_slice() {
                    [a, b] if a.key == SKIPS_KEY => skips_verdict((a.nonconvexity, a.measured.2), (b.nonconvexity, b.measured.2)),
                    [a, b] => sharpness_verdict(a.measured, b.measured, state.with(|s| s.target)),
                    _ => String::new(),
                })}</p>
                <p data-testid="land-hessian-verdict" aria-live="polite">{move || mapped.with(|m| match m.as_slice() {
                    [a, b] if a.key != SKIPS_KEY => hessian_verdict((a.measured.0, a.lambda_max), (b.measured.0, b.lambda_max)),
                    _ => String::new(),
                })}</p>
            </section>
            <section class="views land-panels">
                {super::panels::panels_view(state, panels)}
                {crate::lessons::lesson("land", crate::landscape::lesson::STEPS)}
            </section>
        </main>
    }
}
