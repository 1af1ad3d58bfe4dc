//! The cluster's training runs: which runs the buttons ask for, and running them one after
//! another, drawing as they go.

use crate::error::RunError;
use leptos::prelude::*;

use engine::train::Trainer;
use lab_sims::cluster::{Cluster, Consistency};
use lab_sims::cluster_run::{train_to_target, ClusterRecord};
use lab_sims::scaling::Target;

use super::{charts, curve, draw_runs, Canvases, Settings};
use crate::fetch;
use crate::recorded::Run;
pub use lab_state::cluster::plan::{plan, Plan};

#[allow(clippy::too_many_arguments)]
pub async fn run_all(
    s: &Settings,
    plan: Plan,
    study: bool,
    run: Run<ClusterRecord>,
    canvases: Canvases,
) -> Result<(), RunError> {
    let mut gpu = run.gpu().await;
    run.status.set("loading data…".into());
    let (train, test) = fetch::data(&s.train_config(1)).await?;
    let target = Target::Accuracy(s.target);
    let mut kept = run.record.get_untracked().map(|r| r.runs).unwrap_or_default();
    // A new Train replaces the runs of the last Train; a study replaces the last study.
    kept.retain(|r| r.label.starts_with("study") != study);
    run.record.set(Some(ClusterRecord::new(
        target,
        kept,
        curve(s).unwrap_or_default(),
    )));
    let total = plan.len();
    run.each(
        &mut gpu,
        &plan,
        |(label, ..)| format!("{label},"),
        async |k, (label, workers, i, compression, sync), gpu, pacer| {
            let (config, train_config) = s.run_configs(*workers, *i, *compression, *sync)?;
            let mut trainer = Trainer::with_data(train_config, train.clone(), gpu, 1).await?;
            let mut cluster = Cluster::new(config, &trainer.compiled, trainer.config.batch);
            let trained = train_to_target(
                label.clone(),
                &mut cluster,
                &mut trainer,
                target,
                s.max_steps,
                Some(&test),
                |done, max| run.go_on(pacer, (k, total, done as f64 / max.max(1) as f64)),
            )
            .await?;
            if matches!(cluster.config.consistency, Consistency::Asynchronous { .. }) {
                if let Some(c) = canvases.timeline.get_untracked() {
                    let title = format!("first updates of {}", trained.label);
                    charts::timeline(&c, &cluster.trace, *workers, &title);
                }
            }
            Ok(trained)
        },
        |r, trained| r.runs.push(trained),
        |r| draw_runs(&canvases, s, r),
    )
    .await
}
