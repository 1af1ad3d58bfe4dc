//! The optimizer lab (`/optimizers`): pick a 2-D surface, start every chosen optimizer from the
//! same point (click the plot to move it), and watch their paths over the contours and their
//! losses side by side. On the quadratic, Goh's theory (optimal step and momentum, predicted
//! rates) sits beside the measured rates. The math is the engine's (`engine::surfaces`).

use std::cell::RefCell;
use std::rc::Rc;

use leptos::html::Canvas;
use leptos::prelude::*;

use engine::surfaces::{measured_rate, momentum_theory, race, Path, Racer, Surface};
use lab_state::optimizers::{OptimizersLab, KAPPAS, NOISES, RACERS, STEPS, SURFACES};

use crate::draw::optimizers::{draw_contours, draw_losses, draw_paths};
use crate::frame::next_frame;
use crate::share::hidden;

mod racers;
mod theory;

#[component]
pub fn OptimizersPage() -> impl IntoView {
    let (state, notices) = crate::share::url_state::<OptimizersLab>();
    let shown = RwSignal::new(0usize);
    // (name, final loss, measured rate, diverged) per racer.
    let rates = RwSignal::new(Vec::<(String, f32, f32, bool)>::new());
    let contour = NodeRef::<Canvas>::new();
    let chart = NodeRef::<Canvas>::new();
    let paths: Rc<RefCell<Vec<(usize, Path)>>> = Rc::default();
    let generation = Rc::new(std::cell::Cell::new(0u64));
    let names: Vec<&'static str> = RACERS.iter().map(|r| r.0).collect();

    let redraw = {
        let (paths, names) = (paths.clone(), names.clone());
        move || {
            let s = state.get_untracked();
            if let Some(c) = contour.get_untracked() {
                draw_contours(&c, s.surface());
                draw_paths(&c, s.surface(), &paths.borrow(), shown.get_untracked(), s.start());
            }
            if let Some(c) = chart.get_untracked() {
                draw_losses(c, &paths.borrow(), shown.get_untracked(), &names);
            }
        }
    };
    // Runs the race and animates it: the paths grow over about two seconds.
    let run = {
        let (paths, redraw, generation) = (paths.clone(), redraw.clone(), generation.clone());
        move || {
            let s = state.get_untracked();
            let chosen: Vec<(usize, Racer)> = (0..RACERS.len())
                .filter(|&i| s.is_on(i))
                .map(|i| {
                    let racer = Racer {
                        optimizer: s.optimizer(i),
                        learning_rate: s.lr[i],
                    };
                    (i, racer)
                })
                .collect();
            let racers: Vec<Racer> = chosen.iter().map(|(_, r)| *r).collect();
            let result = race(s.surface(), s.start(), &racers, s.steps, s.noise, 1);
            rates.set(
                chosen
                    .iter()
                    .zip(&result)
                    .map(|((i, _), p)| {
                        let last = p.losses.last().copied().unwrap_or(f32::NAN);
                        (
                            RACERS[*i].0.to_string(),
                            last,
                            measured_rate(&p.points),
                            p.diverged,
                        )
                    })
                    .collect(),
            );
            let rows = |f: &dyn Fn(&Path, usize) -> String| {
                let mut out = Vec::new();
                for ((i, _), p) in chosen.iter().zip(&result) {
                    out.extend(
                        (0..p.losses.len()).map(|k| [RACERS[*i].0.to_string(), k.to_string(), f(p, k)]),
                    );
                }
                out
            };
            crate::figures::set_table(
                "opt-contour",
                crate::figures::csv(
                    "optimizer,step,x,y",
                    rows(&|p, k| {
                        p.points
                            .get(k)
                            .map_or(String::new(), |q| format!("{},{}", q[0], q[1]))
                    }),
                ),
            );
            crate::figures::set_table(
                "opt-loss-chart",
                crate::figures::csv("optimizer,step,loss", rows(&|p, k| p.losses[k].to_string())),
            );
            *paths.borrow_mut() = chosen.iter().map(|(i, _)| *i).zip(result).collect();
            generation.set(generation.get() + 1);
            let (redraw, generation) = (redraw.clone(), generation.clone());
            let mine = generation.get();
            leptos::task::spawn_local(async move {
                let total = s.steps;
                let per_frame = (total / 120).max(1);
                let mut k = 0;
                while k < total && generation.get() == mine {
                    k = (k + per_frame).min(total);
                    shown.set(k);
                    redraw();
                    next_frame().await;
                }
            });
        }
    };
    request_animation_frame(run.clone());
    // Every change re-runs the race.
    let change = {
        let run = run.clone();
        move |f: &dyn Fn(&mut OptimizersLab)| {
            state.update(|s| f(s));
            run();
        }
    };
    let on_click = {
        let change = change.clone();
        move |ev: leptos::ev::MouseEvent| {
            let Some(c) = contour.get_untracked() else { return };
            let rect = c.get_bounding_client_rect();
            let [x0, x1, y0, y1] = state.with_untracked(|s| s.surface().view());
            let fx = ((ev.client_x() as f64 - rect.left()) / rect.width()) as f32;
            let fy = ((ev.client_y() as f64 - rect.top()) / rect.height()) as f32;
            change(&|s| s.start = Some([x0 + fx * (x1 - x0), y1 - fy * (y1 - y0)]));
        }
    };
    // The keyboard's way to move the start: arrows nudge it by 1/40 of the map.
    let on_key = {
        let change = change.clone();
        move |ev: leptos::ev::KeyboardEvent| {
            let (dx, dy) = match ev.key().as_str() {
                "ArrowLeft" => (-1.0, 0.0),
                "ArrowRight" => (1.0, 0.0),
                "ArrowUp" => (0.0, 1.0),
                "ArrowDown" => (0.0, -1.0),
                _ => return,
            };
            ev.prevent_default();
            change(&|s| {
                let [x0, x1, y0, y1] = s.surface().view();
                let [x, y] = s.start();
                let nx = (x + dx * (x1 - x0) / 40.0).clamp(x0, x1);
                let ny = (y + dy * (y1 - y0) / 40.0).clamp(y0, y1);
                s.start = Some([nx, ny]);
            });
        }
    };
    let on_goh = {
        let change = change.clone();
        move |_| {
            let Surface::Quadratic { kappa } = state.with_untracked(|s| s.surface()) else {
                return;
            };
            let th = momentum_theory(kappa);
            change(&|s| {
                s.lr[0] = th.gd_step;
                s.lr[1] = th.alpha;
                s.momentum[1] = th.beta;
            });
        }
    };
    let theory = move || match state.with(|s| s.surface()) {
        Surface::Quadratic { kappa } => Some(momentum_theory(kappa)),
        _ => None,
    };
    let on_surface = {
        let change = change.clone();
        move |ev| {
            let i: usize = event_target_value(&ev).parse().unwrap_or(0);
            change(&|s| s.switch_surface(SURFACES[i.min(SURFACES.len() - 1)]));
        }
    };
    let on_kappa = {
        let change = change.clone();
        move |ev| {
            if let Ok(k) = event_target_value(&ev).parse::<f32>() {
                change(&|s| s.kappa = k);
            }
        }
    };
    let on_noise = {
        let change = change.clone();
        move |ev| {
            let n = event_target_value(&ev).parse().unwrap_or(0.0);
            change(&|s| s.noise = n);
        }
    };
    let on_steps = {
        let change = change.clone();
        move |ev| {
            let n = event_target_value(&ev).parse().unwrap_or(100);
            change(&|s| s.steps = n);
        }
    };

    // Hidden by the URL, or when the surface has no theory to show.
    let (kappa_hidden, goh_hidden) = (hidden("kappa"), hidden("goh"));
    view! {
        {crate::layout::lab_header("optimizers", "Race optimizers on surfaces you can see. Click the map (or focus it and use the arrow keys) to move the start.")}
        <main class="lab">
            <section class="controls" aria-label="surface and race">
                <crate::share::StateBar state=state notices=notices/>
                <label class:hidden=hidden("surface")>"Surface"
                    <select data-testid="opt-surface" on:change=on_surface>
                        {Surface::ALL.iter().enumerate().map(|(i, s)| view! { <option value=i.to_string() selected=move || state.with(|st| st.surface == SURFACES[i])>{s.label()}</option> }).collect_view()}
                    </select>
                </label>
                <label class:hidden=move || kappa_hidden() || theory().is_none()>"Condition number κ"
                    <select data-testid="opt-kappa" on:change=on_kappa>
                        {KAPPAS.iter().map(|k| view! { <option value=k.to_string() selected=move || state.with(|s| s.kappa == *k)>{k.to_string()}</option> }).collect_view()}
                    </select>
                </label>
                <label class:hidden=hidden("noise")>"Gradient noise (std of each component)"
                    <select data-testid="opt-noise" on:change=on_noise>
                        {NOISES.iter().map(|n| view! { <option value=n.to_string() selected=move || state.with(|s| s.noise == *n)>{n.to_string()}</option> }).collect_view()}
                    </select>
                </label>
                <label class:hidden=hidden("steps")>"Steps"
                    <select data-testid="opt-steps" on:change=on_steps>
                        {STEPS.iter().map(|n| view! { <option value=n.to_string() selected=move || state.with(|s| s.steps == *n)>{n.to_string()}</option> }).collect_view()}
                    </select>
                </label>
                {racers::racers_panel(state, notices, change.clone())}
                <div class="buttons">
                    <button class:hidden=hidden("run") class="primary" data-lab-start="true" data-testid="opt-run" on:click={ let run = run.clone(); move |_| run() }>"Race again"</button>
                    <button data-testid="opt-goh" class:hidden=move || goh_hidden() || theory().is_none() on:click=on_goh>"Use Goh's optimal η, μ"</button>
                </div>
            </section>
            <section class="views">
                <figure class:hidden=hidden("contour")>
                    <canvas node_ref=contour data-testid="opt-contour" width="440" height="440" tabindex="0" on:click=on_click on:keydown=on_key
                        aria-label="contour map of the surface with each optimizer's path; click, or use the arrow keys, to move the start"></canvas>
                    <figcaption>"Bands of equal log-loss; darker is higher. Each line is one optimizer's path from the square; the dot is where it is now."</figcaption>
                </figure>
                <figure class:hidden=hidden("loss-chart")>
                    <canvas node_ref=chart data-testid="opt-loss-chart" width="440" height="300"></canvas>
                    <table class="results" data-testid="opt-rates">
                        <tr><th>"optimizer"</th><td>"final loss"</td><td class:hidden=move || theory().is_none()>"measured rate"</td></tr>
                        {move || rates.get().into_iter().map(|(name, last, rate, diverged)| view! {
                            <tr>
                                <th>{name}</th>
                                <td>{if diverged { "diverged".to_string() } else { format!("{last:.4}") }}</td>
                                <td class:hidden=move || theory().is_none()>{if diverged { String::new() } else { format!("{rate:.4}") }}</td>
                            </tr>
                        }).collect_view()}
                    </table>
                    <figcaption>"Loss per step. On the quadratic, the measured rate is the per-step shrink of the distance to the minimum over the second half of the path, to compare with the theory."</figcaption>
                </figure>
                {theory::theory_figure(state)}
                {theory::conventions()}
            </section>
        </main>
    }
}
