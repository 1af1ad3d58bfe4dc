//! The systolic array's part of the page: the product's first fold simulated register by register
//! (`lab_sims::hardware::systolic::simulate`) and drawn at a chosen cycle, and both dataflows'
//! cycles, utilization and traffic for the whole product (the closed forms the simulation is
//! tested to equal). It follows the settings; nothing to run.

use leptos::html::Canvas;
use leptos::prelude::*;

use lab_sims::hardware::record::{systolic_rows, SystolicRow};
use lab_sims::hardware::systolic::{first_fold_gemm, macs, simulate, Dataflow, Pe};
use lab_state::hardware::HardwareLab;

use crate::hardware::draw as charts;

/// The most multiply-adds the picture simulates (a first fold larger is counted, not animated).
const MOST_MACS: u64 = 2_000_000;
/// The widest array the picture draws.
const WIDEST: usize = 64;

/// The first fold's PEs cycle by cycle, or why it is not drawn.
fn frames(s: &HardwareLab) -> Result<Vec<Vec<Pe>>, String> {
    let g = first_fold_gemm(s.flow, s.gemm(), s.array);
    if s.array > WIDEST || macs(g) > MOST_MACS {
        return Err(format!(
            "An array of {0} × {0} on this fold is larger than the picture animates (at most {WIDEST} × {WIDEST} and {MOST_MACS} multiply-adds); the counts below hold for any size.",
            s.array
        ));
    }
    let a: Vec<f32> = (0..g.m * g.k).map(|i| (i % 7) as f32).collect();
    let b: Vec<f32> = (0..g.k * g.n).map(|i| (i % 5) as f32).collect();
    Ok(simulate(s.flow, g, (s.array, s.array), &a, &b).first_fold)
}

/// The fold's last cycle, read without tracking (the player's loop).
fn last_untracked(frames: Memo<Result<Vec<Vec<Pe>>, String>>) -> usize {
    frames.with_untracked(|f| f.as_ref().map_or(0, |f| f.len().saturating_sub(1)))
}

fn flow_name(f: Dataflow) -> &'static str {
    match f {
        Dataflow::WeightStationary => "weight-stationary",
        Dataflow::OutputStationary => "output-stationary",
    }
}

fn key(f: Dataflow) -> &'static str {
    match f {
        Dataflow::WeightStationary => "ws",
        Dataflow::OutputStationary => "os",
    }
}

fn rows_view(rows: Vec<SystolicRow>) -> impl IntoView {
    let body = rows.into_iter().map(|r| {
        let k = key(r.flow);
        let t = r.traffic;
        view! {
            <tr>
                <td>{flow_name(r.flow)}</td>
                <td data-metric=format!("cycles-{k}") data-metric-value=r.cycles.to_string()>{r.cycles.to_string()}</td>
                <td data-metric=format!("utilization-{k}") data-metric-value=(100.0 * r.utilization).to_string()>{format!("{:.1} %", 100.0 * r.utilization)}</td>
                <td data-metric=format!("traffic-{k}") data-metric-value=t.total().to_string()>{format!("{} (A {}, B {}, C {} read + {} written)", t.total(), t.a_reads, t.b_reads, t.c_reads, t.c_writes)}</td>
            </tr>
        }
    }).collect_view();
    view! { <tr><th>"dataflow"</th><th>"cycles"</th><th>"utilization"</th><th>"values moved to and from memory"</th></tr>{body} }
}

pub fn systolic(settings: RwSignal<HardwareLab>) -> impl IntoView {
    let canvas: NodeRef<Canvas> = NodeRef::new();
    let frames: Memo<Result<Vec<Vec<Pe>>, String>> = Memo::new(move |_| settings.with(frames));
    // Opens mid-fill, where the diagonal wave shows (two array sides in).
    let cycle = RwSignal::new(2 * settings.with_untracked(|s| s.array));
    let playing = RwSignal::new(false);
    // Plays the fold from the start, a cycle every few frames, until its end or a second press.
    let play = move |_| {
        if playing.get_untracked() {
            playing.set(false);
            return;
        }
        playing.set(true);
        leptos::task::spawn_local(async move {
            let mut t = 0;
            while playing.get_untracked() && t <= last_untracked(frames) {
                cycle.set(t);
                for _ in 0..4 {
                    crate::frame::next_frame().await;
                }
                t += 1;
            }
            playing.set(false);
        });
    };
    let last = move || frames.with(|f| f.as_ref().map_or(0, |f| f.len().saturating_sub(1)));
    // Draw the chosen cycle (clamped to the fold's last) whenever it or the settings change.
    Effect::new(move |_| {
        let at = cycle.get().min(last());
        let side = settings.with(|s| s.array);
        frames.with(|f| {
            if let (Some(c), Ok(f)) = (canvas.get(), f) {
                if let Some(grid) = f.get(at) {
                    charts::systolic(c, grid, side, at);
                    let cells = grid.iter().enumerate().map(|(p, pe)| {
                        [
                            (p / side).to_string(),
                            (p % side).to_string(),
                            format!("{pe:?}").to_lowercase(),
                        ]
                    });
                    crate::figures::set_table("hw-systolic", crate::figures::csv("row,column,state", cells));
                }
            }
        });
    });
    let summary = move || {
        settings.with(|s| {
            let g = s.gemm();
            format!(
                "A ({} × {}) times B ({} × {}) on a {} × {} array: {} multiply-adds.",
                g.m,
                g.k,
                g.k,
                g.n,
                s.array,
                s.array,
                macs(g)
            )
        })
    };
    view! {
        <figure class="wide">
            <canvas node_ref=canvas data-testid="hw-systolic" data-empty="The array's first fold, cycle by cycle." width="520" height="420"></canvas>
            <button data-testid="hw-play" on:click=play>{move || if playing.get() { "Stop" } else { "Play the fold" }}</button>
            <label>"Cycle of the first fold"
                <input type="range" data-testid="hw-cycle" min="0" max=move || last().to_string() prop:value=move || cycle.get().min(last()).to_string()
                    on:input=move |ev| cycle.set(event_target_value(&ev).parse().unwrap_or(0))/>
            </label>
            <p class="small" data-testid="hw-systolic-note">{move || frames.with(|f| f.as_ref().err().cloned())}</p>
            <p class="small" data-testid="hw-systolic-summary">{summary}</p>
            <table class="results" data-testid="hw-dataflows">{move || settings.with(|s| rows_view(systolic_rows(s.gemm(), s.array)))}</table>
            <figcaption>"A systolic array of processing elements (PEs), each doing one multiply-add a cycle on values its neighbours passed it. Weight-stationary (the TPU's): each PE first loads one weight of B, then rows of A stream in from the left, skewed a cycle per row, while partial sums move down and leave the bottom into accumulators. Output-stationary: each PE keeps one output, A streaming from the left and B from the top. Drag the cycle: the diagonal wave is the skew filling and draining the array. The table counts the whole product fold by fold (closed forms, equal to the simulation's count): a short stream (few rows of A for weight-stationary, a short k for output-stationary) leaves the array filling and draining much of the time."</figcaption>
        </figure>
    }
}
