//! The parallelism page: the network, the simulated devices and the layouts on the left with the
//! run bar, the charts on the right.

use leptos::prelude::*;

use lab_sims::parallelism::record::ParallelismRecord;
use lab_state::parallelism::{ParallelismLab as Settings, PipeSchedule};

use super::run::run_all;
use super::{redraw, Canvases};
use crate::layout::{record_files, RecordFiles};
use crate::recorded::{RecordedPage, Signals};
use crate::share::hidden;

#[component]
pub fn ParallelismPage() -> impl IntoView {
    let page = RecordedPage::<Settings, ParallelismRecord>::new(
        "press Run to lay the step over the devices and train each layout",
        "the layouts done so far are shown",
    );
    let Signals { settings, error, record, running, .. } = page.signals();
    let canvases = Canvases {
        memory: NodeRef::new(),
        step: NodeRef::new(),
        pipeline: NodeRef::new(),
        losses: NodeRef::new(),
        remat: NodeRef::new(),
        pipe_shown: RwSignal::new(None),
    };
    let go = {
        let page = page.clone();
        move |_| {
            let s = settings.get_untracked();
            if let Err(e) = s.ways() {
                return error.set(Some(e.to_string()));
            }
            canvases.pipe_shown.set(None);
            page.start(move |run| run_all(s, run, canvases));
        }
    };
    let set = move |f: &dyn Fn(&mut Settings)| settings.update(|s| f(s));
    let number_input = crate::controls::numbers(settings, error);
    let segment = move || settings.with(|s| s.segment_length());
    page.frame(
        ("memory and parallelism", "A network too big for one device, made to fit by checkpointing, ZeRO and a pipeline: each trained for real, its memory, time and traffic side by side.", "par"),
        view! {
            <button class:hidden=hidden("run") class="primary" data-lab-start="true" data-testid="par-run" disabled=move || running.get() on:click=go>"Run"</button>
        },
        view! {
            <fieldset class="group">
                <legend>"The network (an MLP of ReLU layers)"</legend>
                {crate::controls::image_set_select(settings, "par-data", |s| &s.data, |s, d| s.data = d)}
                {number_input("Hidden layers", "par-depth", |s| s.depth.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.depth = x).is_some())}
                {number_input("Units per layer", "par-width", |s| s.width.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.width = x).is_some())}
                {crate::controls::optimizer_select(settings, "par-optimizer", |s| s.optimizer, |s, i| s.optimizer = i)}
                {number_input("Learning rate (cosine-decayed to 1 %)", "par-lr", |s| s.lr.to_string(), |s, v| v.parse().ok().filter(|x: &f32| *x > 0.0 && x.is_finite()).map(|x| s.lr = x).is_some())}
                {number_input("Batch", "par-batch", |s| s.batch.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.batch = x).is_some())}
                {number_input("Steps per layout", "par-steps", |s| s.steps.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.steps = x).is_some())}
                {number_input("Training images", "par-images", |s| s.images.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.images = x).is_some())}
            </fieldset>
            <fieldset class="group">
                <legend>"The simulated devices"</legend>
                {number_input("Memory per device (MB)", "par-memory", |s| s.memory.to_string(), |s, v| v.parse::<f64>().ok().map(|x| s.memory = x).is_some())}
                {number_input("Speed (GFLOP/s)", "par-gflops", |s| s.gflops.to_string(), |s, v| v.parse::<f64>().ok().map(|x| s.gflops = x).is_some())}
                {number_input("Fixed cost per pass (ms)", "par-overhead", |s| s.overhead.to_string(), |s, v| v.parse::<f64>().ok().map(|x| s.overhead = x).is_some())}
                {crate::controls::link_select(settings, "par-link", "Link between devices", |s| s.link, |s, i| s.link = i)}
            </fieldset>
            <fieldset class="group">
                <legend>"The layouts"</legend>
                {number_input("Runs (plain, checkpoint, zero, pipeline, best)", "par-runs", |s| s.runs.clone(), |s, v| lab_state::parallelism::parse_runs(v).map(|_| s.runs = v.into()).is_ok())}
                {number_input("Checkpoint every k layers (0: √layers)", "par-segment", |s| s.segment.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.segment = x).is_some())}
                <p class="small muted">{move || format!("{} layers: checkpoints every {} layers.", settings.with(|s| s.layers()), segment())}</p>
                {number_input("ZeRO: data-parallel workers", "par-workers", |s| s.workers.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.workers = x).is_some())}
                {number_input("ZeRO stage (1 optimizer state, 2 + gradients, 3 + weights)", "par-stage", |s| s.stage.to_string(), |s, v| v.parse::<u8>().ok().map(|x| s.stage = x).is_some())}
                {number_input("Pipeline stages", "par-stages", |s| s.stages.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.stages = x).is_some())}
                {number_input("Micro-batches", "par-micro", |s| s.micro.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.micro = x).is_some())}
                <label class:hidden=hidden("schedule")>"Schedule"
                    <select data-testid="par-schedule" on:change=move |ev| {
                        let k = if event_target_value(&ev) == "gpipe" { PipeSchedule::GPipe } else { PipeSchedule::OneFOneB };
                        set(&|s| s.schedule = k);
                    }>
                        <option value="1f1b" selected=move || settings.with(|s| s.schedule == PipeSchedule::OneFOneB)>"1F1B (one forward, one backward)"</option>
                        <option value="gpipe" selected=move || settings.with(|s| s.schedule == PipeSchedule::GPipe)>"GPipe (all forwards, then all backwards)"</option>
                    </select>
                </label>
                {number_input("Best layout: devices at most", "par-devices", |s| s.devices.to_string(), |s, v| v.parse::<usize>().ok().map(|x| s.devices = x).is_some())}
            </fieldset>
            {number_input("Seed (the weights' start, the batches' order)", "par-seed", |s| s.seed.to_string(), |s, v| v.parse::<u64>().ok().map(|x| s.seed = x).is_some())}
            {crate::controls::backend_select("par-backend", settings)}
            {record_files(
                RecordFiles { prefix: "par", name: "parallelism", csv_label: "results CSV", record, error, status: page.job.status },
                (),
                move |r| redraw(&canvases, r, segment()),
            )}
        },
        super::figures::figures(canvases, record, settings),
    )
}
