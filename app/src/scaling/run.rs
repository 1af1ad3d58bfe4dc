//! Training a sweep: one run per batch size (and rate), one after another, drawn as each ends.

use std::cell::Cell;

use leptos::prelude::*;

use engine::train::Trainer;
use lab_sims::scaling::{run, Sweep, SweepRecord};

use super::{redraw, Canvases};
use crate::fetch;
use crate::frame::next_frame;

#[allow(clippy::too_many_arguments)]
pub async fn run_sweep(
    sweep: Sweep,
    webgpu: bool,
    status: RwSignal<String>,
    progress: RwSignal<f64>,
    cancel: &Cell<bool>,
    record: RwSignal<Option<SweepRecord>>,
    canvases: Canvases,
) -> Result<(), String> {
    let mut gpu = crate::gpu::gpu_if(webgpu, status).await;
    status.set("loading data…".into());
    let (train, test) = fetch::data(&sweep.base).await?;
    let runs = sweep.runs();
    record.set(Some(SweepRecord::new(sweep.clone(), Vec::new())));
    for (i, &(batch, lr)) in runs.iter().enumerate() {
        if cancel.get() {
            break;
        }
        if batch > train.len() {
            status.set(format!(
                "batch {batch} is larger than the {} training samples: skipped",
                train.len()
            ));
            continue;
        }
        status.set(format!(
            "run {} of {}: batch {batch}, η {lr:.4}, on {}…",
            i + 1,
            runs.len(),
            crate::gpu::runs_on(&gpu)
        ));
        let share = 1.0 / runs.len() as f64;
        let pacer = crate::frame::Pacer::new();
        // A lost GPU: this run again, on the CPU path.
        let r = crate::gpu::with_fallback(&mut gpu, async |gpu| {
            let config = sweep.config(batch, lr, train.len());
            let mut trainer = Trainer::with_data(config, train.clone(), gpu, 1).await?;
            let r = run(&mut trainer, &sweep, Some(&test), |done, max| {
                progress.set(share * (i as f64 + done as f64 / max as f64));
                pacer.go_on(cancel)
            })
            .await?;
            Ok(r)
        })
        .await?;
        record.update(|rec| {
            if let Some(rec) = rec {
                rec.runs.push(r);
            }
        });
        record.with_untracked(|rec| {
            if let Some(rec) = rec {
                redraw(&canvases, rec);
            }
        });
        next_frame().await;
    }
    progress.set(1.0);
    Ok(())
}
