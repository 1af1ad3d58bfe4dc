//! Training a sweep: one run per batch size (and rate), one after another, drawn as each ends.

use crate::error::RunError;
use leptos::prelude::*;

use engine::train::Trainer;
use lab_sims::scaling::{run as run_one, Sweep, SweepRecord};

use super::{redraw, Canvases};
use crate::fetch;
use crate::recorded::Run;

pub async fn run_sweep(sweep: Sweep, run: Run<SweepRecord>, canvases: Canvases) -> Result<(), RunError> {
    let mut gpu = run.gpu().await;
    run.status.set("loading data…".into());
    let (train, test) = fetch::data(&sweep.base).await?;
    run.record.set(Some(SweepRecord::new(sweep.clone(), Vec::new())));
    // A batch larger than the data cannot be drawn: said, and left out.
    let (runs, skipped): (Vec<_>, Vec<_>) = sweep
        .runs()
        .into_iter()
        .partition(|&(batch, _)| batch <= train.len());
    if let Some((batch, _)) = skipped.first() {
        run.status.set(format!(
            "batch {batch} is larger than the {} training samples: skipped",
            train.len()
        ));
    }
    let n = runs.len();
    run.each(
        &mut gpu,
        &runs,
        |&(batch, lr)| format!("batch {batch}, η {lr:.4},"),
        async |i, &(batch, lr), gpu, pacer| {
            let config = sweep.config(batch, lr, train.len());
            let mut trainer = Trainer::with_data(config, train.clone(), gpu, 1).await?;
            let r = run_one(&mut trainer, &sweep, Some(&test), |done, max| {
                run.go_on(pacer, (i, n, done as f64 / max.max(1) as f64))
            })
            .await?;
            Ok(r)
        },
        |rec, r| rec.runs.push(r),
        |rec| redraw(&canvases, rec),
    )
    .await
}
