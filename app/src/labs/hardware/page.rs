//! The hardware page: the settings and the run bar on the left, the roofline, the kernels and
//! the systolic array on the right.

use leptos::prelude::*;

use lab_sims::hardware::record::HardwareRecord;
use lab_sims::hardware::systolic::Dataflow;
use lab_state::hardware::HardwareLab as Settings;

use super::run::run_all;
use super::{redraw, Canvases};
use crate::layout::{record_files, RecordFiles};
use crate::recorded::{RecordedPage, Signals};
use crate::share::hidden;

#[component]
pub fn HardwarePage() -> impl IntoView {
    let page = RecordedPage::<Settings, HardwareRecord>::new(
        "press Run to measure this device's roofline and time the step's kernels",
        "what was measured so far is shown",
    );
    let Signals { settings, error, record, status, running } = page.signals();
    let canvases = Canvases {
        roofline: NodeRef::new(),
        tiles: NodeRef::new(),
        graph: NodeRef::new(),
        distributed: NodeRef::new(),
    };
    let go = {
        let page = page.clone();
        move |_| {
            let s = settings.get_untracked();
            page.start(move |run| run_all(s, run, canvases));
        }
    };
    let set = move |f: &dyn Fn(&mut Settings)| settings.update(|s| f(s));
    // The distributed roofline is counted, not measured: it follows its settings at once.
    let experiment = Memo::new(move |_| settings.with(|s| (s.cluster_batch, s.worker_gflops, s.link)));
    Effect::new(move |_| {
        // Read, not only tracked: a memo nobody reads is never computed, so never changes.
        let _ = experiment.get();
        let (points, roofs) = settings.with_untracked(|s| s.distributed());
        record.update(|r| {
            if let Some(r) = r {
                (r.distributed, r.cluster_roofs) = (points, Some(roofs));
                redraw(&canvases, r);
            }
        });
    });
    let number_input = crate::controls::numbers(settings, error);
    page.frame(
        ("hardware", "Measure your device's roofline, place a training step's kernels under it, and count a matrix product on a systolic array.", "hw"),
        view! {
            <button class:hidden=hidden("run") class="primary" data-lab-start="true" data-testid="hw-run" disabled=move || running.get() on:click=go>"Run"</button>
        },
        view! {
            <label class:hidden=hidden("workload")>"Training step"
                <select data-testid="hw-workload" on:change=move |ev| {
                    let w = event_target_value(&ev);
                    set(&|s| s.workload = w.clone());
                }>
                    <option value="W1" selected=move || settings.with(|s| s.workload == "W1")>"W1: MLP 784-128-10, batch 64"</option>
                    <option value="W2" selected=move || settings.with(|s| s.workload == "W2")>"W2: CNN conv 5×5×8, pool, conv 5×5×16, pool, 10"</option>
                </select>
            </label>
            <label class:hidden=hidden("fused")>
                <input type="checkbox" data-testid="hw-fused" prop:checked=move || settings.with(|s| s.fused)
                    on:change=move |ev| { let on = event_target_checked(&ev); set(&|s| s.fused = on); }/>
                " fused step (off: one kernel per op)"
            </label>
            {number_input("Timed runs of each kernel", "hw-reps", |s| s.reps.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.reps = x).is_some())}
            {crate::controls::backend_select("hw-backend", settings)}
            <h3 class="small">"Systolic array"</h3>
            {number_input("Array side (PEs per row and column)", "hw-array", |s| s.array.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.array = x).is_some())}
            <label class:hidden=hidden("flow")>"Dataflow (the picture)"
                <select data-testid="hw-flow" on:change=move |ev| {
                    let f = if event_target_value(&ev) == "output_stationary" { Dataflow::OutputStationary } else { Dataflow::WeightStationary };
                    set(&|s| s.flow = f);
                }>
                    <option value="weight_stationary" selected=move || settings.with(|s| s.flow == Dataflow::WeightStationary)>"weight-stationary (the TPU's)"</option>
                    <option value="output_stationary" selected=move || settings.with(|s| s.flow == Dataflow::OutputStationary)>"output-stationary"</option>
                </select>
            </label>
            {number_input("m (rows of A: the batch)", "hw-m", |s| s.m.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.m = x).is_some())}
            {number_input("k (A's columns, B's rows)", "hw-k", |s| s.k.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.k = x).is_some())}
            {number_input("n (B's columns)", "hw-n", |s| s.n.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.n = x).is_some())}
            <h3 class="small">"Distributed roofline"</h3>
            {number_input("Global batch (split among the workers)", "hw-cluster_batch", |s| s.cluster_batch.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.cluster_batch = x).is_some())}
            {number_input("A worker's speed (GFLOP/s)", "hw-worker_gflops", |s| s.worker_gflops.to_string(), |s, v| v.parse::<f64>().ok().map(|x| s.worker_gflops = x).is_some())}
            {crate::controls::link_select(settings, "hw-link", "Network between workers", |s| s.link, |s, i| s.link = i)}
            {record_files(
                RecordFiles { prefix: "hw", name: "hardware", csv_label: "results CSV", record, error, status },
                (),
                move |r| redraw(&canvases, r),
            )}
        },
        super::figures::figures(canvases, record, settings),
    )
}
