//! The allreduce schedule animated, step by step: who sends what to whom, and what each worker
//! holds after each step.

use std::sync::Arc;

use leptos::prelude::*;

use engine::collectives::{cost, Coverage, Schedule};

use super::{charts, Canvases, Settings, ALGORITHMS};
use crate::frame::{next_frame, now_ms};
use crate::share::hidden;

/// The animated schedule: the schedule, what each node holds after each step, and each step's
/// modelled seconds.
#[derive(PartialEq)]
struct Animation {
    schedule: Schedule,
    coverage: Coverage,
    step_seconds: Vec<f64>,
}

impl Animation {
    fn schedule_label(&self) -> String {
        format!("{} workers", self.schedule.workers)
    }
}

/// The animation's figure: the chart, its controls and its caption.
pub fn animation_figure(settings: RwSignal<Settings>, canvases: Canvases) -> impl IntoView {
    let frame = RwSignal::new(0usize);
    let playing = RwSignal::new(false);
    let interval = RwSignal::new(600.0f64);
    // The schedule animated: the chosen algorithm at the chosen worker count, on the model's
    // real gradient length.
    let animation = Memo::new(move |_| {
        let s = settings.get();
        let n = s.work().map(|w| w.params()).unwrap_or(1000);
        let config = s.config(s.workers, s.animate).ok()?;
        let schedule = Schedule::new(config.algorithm, s.workers, n, config.topology.gpus_per_node);
        let per_value = config.compression.bytes(n) / n.max(1) as f64;
        let step_seconds = cost(&schedule, &config.topology, per_value).step_seconds;
        Some(Arc::new(Animation {
            coverage: schedule.coverage(),
            schedule,
            step_seconds,
        }))
    });
    // Its messages as the animation chart's CSV, built when asked: the chart redraws every frame.
    crate::figures::provide("cl-animation", move || {
        animation.with_untracked(|a| {
            a.as_ref()
                .map(|a| crate::cluster::schedule_chart::schedule_table(&a.schedule))
        })
    });
    let total_frames = move || animation.with(|a| a.as_ref().map_or(1, |a| a.coverage.frames.len()));
    Effect::new(move |_| {
        let k = frame.get();
        animation.with(|a| {
            if let (Some(a), Some(c)) = (a, canvases.animation.get()) {
                crate::cluster::schedule_chart::animation(&c, &a.schedule, &a.coverage, k);
            }
        });
    });
    let play = move |_| {
        if playing.get_untracked() {
            playing.set(false);
            return;
        }
        playing.set(true);
        if frame.get_untracked() + 1 >= total_frames() {
            frame.set(0);
        }
        leptos::task::spawn_local(async move {
            let mut last = now_ms();
            while playing.get_untracked() {
                next_frame().await;
                if now_ms() - last < interval.get_untracked() {
                    continue;
                }
                last = now_ms();
                let next = frame.get_untracked() + 1;
                if next < total_frames() {
                    frame.set(next);
                }
                // Stop on the last frame, so it stays on screen.
                if next + 1 >= total_frames() {
                    playing.set(false);
                }
            }
        });
    };

    let set = move |f: &dyn Fn(&mut Settings)| settings.update(|s| f(s));
    view! {
                <figure>
                    <canvas node_ref=canvases.animation data-testid="cl-animation" width="440" height="360"></canvas>
                    <div class="buttons">
                        <select class:hidden=hidden("animate") data-testid="cl-animate" aria-label="the algorithm animated" on:change=move |ev| { if let Ok(i) = event_target_value(&ev).parse::<usize>() { playing.set(false); frame.set(0); set(&|s| s.animate = i) } }>
                            {(0..7).map(|i| view! { <option value=i.to_string() selected=move || settings.with(|s| s.animate == i)>{ALGORITHMS[i].1}</option> }).collect_view()}
                        </select>
                        <button data-testid="cl-back" on:click=move |_| frame.update(|k| *k = k.saturating_sub(1))>"◀ step"</button>
                        <button data-testid="cl-play" on:click=play>{move || if playing.get() { "pause" } else { "play" }}</button>
                        <button data-testid="cl-step" on:click=move |_| { let n = total_frames(); frame.update(|k| *k = (*k + 1).min(n - 1)) }>"step ▶"</button>
                        <select data-testid="cl-speed" aria-label="animation speed" on:change=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<f64>() { interval.set(v) } }>
                            <option value="1200">"slow"</option>
                            <option value="600" selected=true>"normal"</option>
                            <option value="150">"fast"</option>
                        </select>
                    </div>
                    <figcaption data-testid="cl-animation-caption">{move || animation.with(|a| a.as_ref().map(|a| {
                        let k = frame.get();
                        let steps = a.schedule.steps.len();
                        if k == 0 {
                            format!("{}: {steps} steps. Before the first step each worker holds only its own gradient.", a.schedule_label())
                        } else {
                            let msgs = &a.schedule.steps[k - 1];
                            let elems: usize = msgs.iter().map(|m| m.len).sum();
                            format!("step {k} of {steps}: {} messages, {} values in all, {} ({}). {}", msgs.len(), elems,
                                charts::seconds(a.step_seconds[k - 1]),
                                if msgs.iter().all(|m| m.reduce) { "each receiver adds" } else if msgs.iter().all(|m| !m.reduce) { "each receiver copies" } else { "adds and copies" },
                                if k == steps { "Every worker now holds the sum of all gradients." } else { "" })
                        }
                    }).unwrap_or_default())}</figcaption>
                </figure>
    }
}
