//! Training the runs: one after another on the chosen backend, each drawn as it ends.

use crate::error::RunError;
use std::cell::Cell;

use leptos::prelude::*;

use engine::train::{TrainConfig, Trainer};
use lab_sims::precision_run::PrecisionRecord;

use super::{redraw, Canvases};
use crate::fetch;
use crate::recorded::Run;

use lab_state::precision::{run_chunk, RUN_CHECKS as CHECKS, TRAIN_EVAL};

pub async fn run_all(
    runs: Vec<(String, TrainConfig)>,
    steps: usize,
    run: Run<PrecisionRecord>,
    canvases: Canvases,
) -> Result<(), RunError> {
    let Some((_, first)) = runs.first() else {
        return Err(RunError::NoRuns);
    };
    let mut gpu = run.gpu().await;
    run.status.set("loading data…".into());
    let (train, test) = fetch::data(first).await?;
    let train_eval = train.head(TRAIN_EVAL.min(train.len()));
    let base = TrainConfig {
        precision: Default::default(),
        ..first.clone()
    };
    run.record.set(Some(PrecisionRecord {
        base,
        steps,
        runs: Vec::new(),
    }));
    let n = runs.len();
    run.each(
        &mut gpu,
        &runs,
        |(name, _)| format!("{name}, {steps} steps"),
        async |i, (name, config), gpu, pacer| {
            let mut t = Trainer::with_data(config.clone(), train.clone(), gpu, 1).await?;
            let every = (steps / CHECKS).max(1);
            let work = lab_sims::timeline::Work::of(&t.compiled).flops_per_sample;
            let chunk = run_chunk(work * config.batch as f64);
            let checks_drawn = Cell::new(0);
            let r = lab_sims::precision_run::run(
                &mut t,
                name,
                (steps, chunk, every),
                (&train_eval, Some(&test)),
                |so_far| {
                    // Live: the charts again at each new check of the run.
                    if so_far.checks.len() > checks_drawn.get() {
                        checks_drawn.set(so_far.checks.len());
                        run.record.with_untracked(|rec| {
                            if let Some(rec) = rec {
                                super::redraw_live(&canvases, rec, so_far);
                            }
                        });
                    }
                    let done = so_far.losses.len() as f64 / steps.max(1) as f64;
                    run.go_on(pacer, (i, n, done))
                },
            )
            .await?;
            Ok(r)
        },
        |rec, r| rec.runs.push(r),
        |rec| redraw(&canvases, rec),
    )
    .await
}
