//! The pipeline chart played piece by piece: each stage's forwards and backwards appear in the
//! order they start, so the student sees the bubble fill at the start and drain at the end.

use leptos::prelude::*;

use lab_sims::parallelism::record::ParallelismRecord;

use super::Canvases;
use crate::frame::{next_frame, now_ms};
use crate::share::hidden;

/// Milliseconds between pieces while playing.
const INTERVAL: f64 = 120.0;

fn pieces(record: RwSignal<Option<ParallelismRecord>>) -> usize {
    record.with_untracked(|r| r.as_ref().and_then(|r| r.pipeline()).map_or(0, |t| t.slots.len()))
}

fn draw(canvases: Canvases, record: RwSignal<Option<ParallelismRecord>>) {
    record.with_untracked(|r| r.as_ref().map(|r| super::redraw_pipeline(&canvases, r)));
}

/// Back one piece, play or pause, forward one piece (test ids `par-pipe-back`, `par-pipe-play`,
/// `par-pipe-step`), disabled until a pipeline has been laid out; hidden with the Run button.
pub fn buttons(canvases: Canvases, record: RwSignal<Option<ParallelismRecord>>) -> impl IntoView {
    let playing = RwSignal::new(false);
    let shown = canvases.pipe_shown;
    let set = move |k: usize| {
        let n = pieces(record);
        shown.set(if k >= n { None } else { Some(k) });
        draw(canvases, record);
    };
    let current = move || shown.get_untracked().unwrap_or_else(|| pieces(record));
    let play = move |_| {
        if playing.get_untracked() {
            playing.set(false);
            return;
        }
        if pieces(record) == 0 {
            return;
        }
        playing.set(true);
        if shown.get_untracked().is_none() {
            set(0);
        }
        leptos::task::spawn_local(async move {
            let mut last = now_ms();
            while playing.get_untracked() {
                next_frame().await;
                if now_ms() - last < INTERVAL {
                    continue;
                }
                last = now_ms();
                set(current() + 1);
                if shown.get_untracked().is_none() {
                    playing.set(false);
                }
            }
        });
    };
    let none = move || record.with(|r| r.as_ref().is_none_or(|r| r.pipeline().is_none()));
    view! {
        <div class="buttons" class:hidden=hidden("run")>
            <button data-testid="par-pipe-back" disabled=none on:click=move |_| { playing.set(false); set(current().saturating_sub(1)) }>"◀ piece"</button>
            <button data-testid="par-pipe-play" disabled=none on:click=play>{move || if playing.get() { "pause" } else { "play the step" }}</button>
            <button data-testid="par-pipe-step" disabled=none on:click=move |_| { playing.set(false); set(current() + 1) }>"piece ▶"</button>
        </div>
    }
}
