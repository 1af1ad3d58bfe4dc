//! Training the experiment: the dense run, then each round's conditions, one after another on the
//! chosen backend, each drawn as it ends; after the dense run, its one-shot pruning curve.

use crate::error::RunError;
use std::cell::RefCell;

use leptos::prelude::*;

use engine::train::Trainer;
use lab_sims::sparsity::lottery::{self, Carry, Condition, LotteryPlan, SparseRun};
use lab_sims::sparsity::record::{after_dense, OneShot, SparsityRecord, Structured};
use lab_state::sparsity::{SparsityLab, CHUNK, PREDICT_ROWS};

use super::{redraw, Canvases};
use crate::fetch;
use crate::recorded::Run;

/// What the dense run adds: its one-shot curve and the structured rows.
type After = Option<(Vec<OneShot>, Vec<Structured>)>;

pub async fn run_all(s: SparsityLab, run: Run<SparsityRecord>, canvases: Canvases) -> Result<(), RunError> {
    let (config, plan): (_, LotteryPlan) = (s.config(), s.plan());
    let mut gpu = run.gpu().await;
    run.status.set("loading data…".into());
    let (train, test) = fetch::data(&config).await?;
    let compiled = config.spec(train.classes).compile()?;
    run.record
        .set(Some(SparsityRecord::new(config.clone(), plan.clone(), &compiled)));
    let jobs = plan.jobs();
    let n = jobs.len();
    let carry = RefCell::new(Carry::default());
    run.each(
        &mut gpu,
        &jobs,
        |(round, c)| {
            format!(
                "{} at {:.1} % pruned, {} steps",
                c.name(),
                100.0 * plan.sparsity_at(*round),
                plan.steps
            )
        },
        async |i, job, gpu, pacer| {
            let t_gpu = gpu.clone();
            let mut t = Trainer::with_data(config.clone(), train.clone(), gpu, PREDICT_ROWS)
                .await
                ?;
            let mut c = carry.take();
            let steps = plan.steps.max(1) as f64;
            let r = lottery::run(&mut t, &plan, *job, &mut c, (&test, CHUNK), |done| {
                run.go_on(pacer, (i, n, done as f64 / steps))
            })
            .await;
            carry.replace(c);
            // Stopped: nothing to keep (the job's end says so).
            let Some(r) = r? else {
                return Ok(None);
            };
            // After the dense run: its one-shot curve, and structured against unstructured
            // pruning at each round's sparsity, timed.
            let after = if job.1 == Condition::Dense {
                let (shots, mut rows) = after_dense(&mut t, &test, &plan)
                    .await
                    ?;
                super::timing::time_rows(&mut rows, &mut t, (&config, &train, &test), t_gpu).await?;
                Some((shots, rows))
            } else {
                None
            };
            Ok::<Option<(SparseRun, After)>, RunError>(Some((r, after)))
        },
        |rec, out| {
            let Some((r, after)) = out else { return };
            rec.runs.push(r);
            if let Some((shots, rows)) = after {
                rec.one_shot = shots;
                rec.structured = rows;
            }
        },
        |rec| redraw(&canvases, rec),
    )
    .await
}
