//! The memory and parallelism lab (`/parallelism`): a deep MLP that does not fit one simulated
//! device, made to fit by checkpointing, ZeRO and a pipeline (and the fastest layout a device
//! budget allows), each trained for real on the same batches (docs/theory.md §8). The layouts'
//! bytes, times and training are the engine's (`lab_sims::parallelism`); `page` lays the lab out,
//! `run` trains, `figures` shows.

pub mod draw;
mod animation;
mod figures;
mod lesson;
mod page;
mod run;

use leptos::html::Canvas;
use leptos::prelude::*;

use lab_sims::parallelism::layout::step_curve;
use lab_sims::parallelism::record::ParallelismRecord;

use crate::parallelism::draw as charts;

/// The lab's page, under the name the registry's generated router mounts (`build.rs`).
pub use page::ParallelismPage as Page;

#[derive(Clone, Copy)]
struct Canvases {
    memory: NodeRef<Canvas>,
    step: NodeRef<Canvas>,
    pipeline: NodeRef<Canvas>,
    losses: NodeRef<Canvas>,
    remat: NodeRef<Canvas>,
    /// Pieces of the pipeline's step shown (None: all), for its animation.
    pipe_shown: RwSignal<Option<usize>>,
}

/// The numbers behind each chart, as CSV.
fn tables(record: &ParallelismRecord, segment: usize) {
    use crate::figures::{csv, set_table};
    let bars = record.estimates.iter().flat_map(|e| {
        e.devices.iter().enumerate().map(move |(s, d)| {
            [
                e.layout.label(),
                (s + 1).to_string(),
                d.weights.to_string(),
                d.gradients.to_string(),
                d.optimizer.to_string(),
                d.workspace.to_string(),
                d.activations.to_string(),
                record.machine.memory.to_string(),
            ]
        })
    });
    set_table(
        "par-memory",
        csv(
            "layout,stage,weights_bytes,gradients_bytes,optimizer_bytes,workspace_bytes,activations_bytes,device_memory_bytes",
            bars,
        ),
    );
    let rows = record.config.batch;
    let curve = [("plain", None), ("checkpointed", Some(segment))]
        .into_iter()
        .flat_map(|(name, k)| {
            step_curve(&record.profile, rows, k)
                .into_iter()
                .enumerate()
                .map(move |(i, (what, bytes))| [name.to_string(), i.to_string(), what, bytes.to_string()])
        });
    set_table("par-step", csv("step,event,after,activation_bytes", curve));
    let trade = lab_sims::parallelism::remat::trade(&record.profile, rows)
        .into_iter()
        .map(|(k, peak, rerun)| [k.to_string(), peak.to_string(), rerun.to_string()]);
    set_table(
        "par-remat",
        csv("segment_layers,peak_activation_bytes,rerun_flops_per_step", trade),
    );
    let slots = record.pipeline().into_iter().flat_map(|t| {
        t.slots.iter().map(|x| {
            [
                (x.stage + 1).to_string(),
                (x.work.micro + 1).to_string(),
                format!("{:?}", x.work.pass).to_lowercase(),
                x.start.to_string(),
                x.end.to_string(),
            ]
        })
    });
    set_table(
        "par-pipeline",
        csv("stage,micro_batch,pass,start_seconds,end_seconds", slots),
    );
    let losses = record.runs.iter().flat_map(|r| {
        r.losses
            .iter()
            .enumerate()
            .map(move |(k, l)| [r.label.clone(), (k + 1).to_string(), l.to_string()])
    });
    set_table("par-losses", csv("layout,step,loss", losses));
    let tensor = record.tensor.iter().map(|c| {
        [
            c.split.clone(),
            c.devices.to_string(),
            c.max_gap.to_string(),
            c.sent_per_device.to_string(),
        ]
    });
    set_table(
        "par-tensor",
        csv("split,devices,max_abs_gap,values_sent_per_device", tensor),
    );
}

fn redraw_losses(c: &Canvases, record: &ParallelismRecord) {
    if let Some(x) = c.losses.get_untracked() {
        charts::losses(x, &record.runs);
    }
}

/// The pipeline chart, showing `c.pipe_shown` pieces (all when None).
fn redraw_pipeline(c: &Canvases, record: &ParallelismRecord) {
    if let Some(x) = c.pipeline.get_untracked() {
        charts::pipeline(x, record.pipeline(), c.pipe_shown.get_untracked());
    }
}

fn redraw(c: &Canvases, record: &ParallelismRecord, segment: usize) {
    tables(record, segment);
    if let Some(x) = c.memory.get_untracked() {
        charts::memory_bars(x, record);
    }
    if let Some(x) = c.step.get_untracked() {
        charts::step_memory(x, record, segment);
    }
    redraw_pipeline(c, record);
    if let Some(x) = c.remat.get_untracked() {
        charts::remat_trade(x, record, segment);
    }
    redraw_losses(c, record);
}
