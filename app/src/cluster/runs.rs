//! The cluster's training runs: which runs the buttons ask for, and running them one after
//! another, drawing as they go.

use leptos::prelude::*;

use engine::train::Trainer;
use lab_sims::cluster::{Cluster, Consistency};
use lab_sims::cluster_run::{train_to_target, ClusterRecord};
use lab_sims::compress::Compression;
use lab_sims::scaling::Target;

use super::{charts, curve, draw_runs, Canvases, Settings, ALGORITHMS};
use crate::fetch;
use crate::recorded::Run;

/// What to train: (label, workers, algorithm index, compression, forced synchronous) per run.
pub type Plan = Vec<(String, usize, usize, Compression, bool)>;

pub fn plan(s: &Settings, study: bool) -> Result<Plan, String> {
    let mut runs = Vec::new();
    // Asynchronous workers talk to a parameter server whatever allreduce is ticked: one run.
    let algorithms: Vec<usize> = if s.asynchronous {
        s.chosen().into_iter().take(1).collect()
    } else {
        s.chosen()
    };
    if study {
        for p in s.study()? {
            for &i in &algorithms {
                runs.push((
                    format!("study {}", s.run_label(p, i, s.compression())),
                    p,
                    i,
                    s.compression(),
                    false,
                ));
            }
        }
    } else {
        for &i in &algorithms {
            runs.push((
                s.run_label(s.workers, i, s.compression()),
                s.workers,
                i,
                s.compression(),
                false,
            ));
        }
        // The twin without compression (and synchronous), for what compression or staleness cost.
        if s.compression() != Compression::None || s.asynchronous {
            let i = s.chosen()[0];
            runs.push((
                format!("{} × {} · sync, uncompressed", s.workers, ALGORITHMS[i].1),
                s.workers,
                i,
                Compression::None,
                true,
            ));
        }
    }
    Ok(runs)
}

#[allow(clippy::too_many_arguments)]
pub async fn run_all(
    s: &Settings,
    plan: Plan,
    study: bool,
    run: Run<ClusterRecord>,
    canvases: Canvases,
) -> Result<(), String> {
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
            let mut config = s.config(*workers, *i)?;
            if *sync {
                config.consistency = Consistency::Synchronous;
            }
            config.compression = *compression;
            let mut trainer = Trainer::with_data(s.train_config(*workers), train.clone(), gpu, 1).await?;
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
