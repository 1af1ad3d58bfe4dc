//! Training the runs: one after another on the chosen backend, each drawn as it ends.

use std::cell::Cell;

use leptos::prelude::*;

use engine::train::{TrainConfig, Trainer};
use lab_sims::precision_run::PrecisionRecord;

use super::{redraw, Canvases};
use crate::fetch;
use crate::frame::next_frame;

use lab_state::precision::{RUN_CHECKS as CHECKS, RUN_CHUNK as CHUNK, TRAIN_EVAL};

pub async fn run_all(
    runs: Vec<(String, TrainConfig)>,
    (steps, webgpu): (usize, bool),
    (status, progress): (RwSignal<String>, RwSignal<f64>),
    cancel: &Cell<bool>,
    record: RwSignal<Option<PrecisionRecord>>,
    canvases: Canvases,
) -> Result<(), String> {
    let Some((_, first)) = runs.first() else {
        return Err("no runs to train".into());
    };
    let mut gpu = crate::gpu::gpu_if(webgpu, status).await;
    status.set("loading data…".into());
    let (train, test) = fetch::data(first).await?;
    let train_eval = train.head(TRAIN_EVAL.min(train.len()));
    let base = TrainConfig {
        precision: Default::default(),
        ..first.clone()
    };
    record.set(Some(PrecisionRecord {
        base,
        steps,
        runs: Vec::new(),
    }));
    let share = 1.0 / runs.len() as f64;
    for (i, (name, config)) in runs.iter().enumerate() {
        if cancel.get() {
            break;
        }
        status.set(format!(
            "run {} of {}: {name}, {steps} steps on {}…",
            i + 1,
            runs.len(),
            crate::gpu::runs_on(&gpu)
        ));
        let pacer = crate::frame::Pacer::new();
        let checks_drawn = Cell::new(0);
        let r = crate::gpu::with_fallback(&mut gpu, async |gpu| {
            let mut t = Trainer::with_data(config.clone(), train.clone(), gpu, 1).await?;
            let every = (steps / CHECKS).max(1);
            let r = lab_sims::precision_run::run(
                &mut t,
                name,
                (steps, CHUNK, every),
                (&train_eval, Some(&test)),
                |so_far| {
                    let done = so_far.losses.len();
                    progress.set(share * (i as f64 + done as f64 / steps.max(1) as f64));
                    // Live: the charts again at each new check of the run.
                    if so_far.checks.len() > checks_drawn.get() {
                        checks_drawn.set(so_far.checks.len());
                        record.with_untracked(|rec| {
                            if let Some(rec) = rec {
                                super::redraw_live(&canvases, rec, so_far);
                            }
                        });
                    }
                    pacer.go_on(cancel)
                },
            )
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
