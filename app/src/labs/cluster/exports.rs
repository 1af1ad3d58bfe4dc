//! The cluster lab's downloads (runs CSV, results JSON, speed-up CSV, engine config) and the
//! reloading of saved results.

use leptos::prelude::*;

use lab_sims::cluster_run::ClusterRecord;

use super::{curve, draw_runs, Canvases, Settings};
use crate::browser;
use crate::layout::{record_files, RecordFiles};
use crate::share::hidden;

pub fn exports(
    settings: RwSignal<Settings>,
    record: RwSignal<Option<ClusterRecord>>,
    error: RwSignal<Option<String>>,
    status: RwSignal<String>,
    canvases: Canvases,
) -> impl IntoView {
    let export_curve = move |_| match curve(&settings.get_untracked()) {
        Ok(points) => {
            let rows = points.iter().map(|p| {
                [
                    p.algorithm.label().to_string(),
                    p.workers.to_string(),
                    format!("{:e}", p.seconds),
                    p.samples.to_string(),
                    p.speedup.to_string(),
                    p.efficiency.to_string(),
                    p.bytes.to_string(),
                ]
            });
            let csv = crate::figures::csv(
                "algorithm,workers,seconds_per_iteration,samples,speedup,efficiency,bytes",
                rows,
            );
            browser::download("cluster-speedup.csv", "text/csv", &csv);
        }
        Err(e) => error.set(Some(e.to_string())),
    };
    let export_config = move |_| {
        let s = settings.get_untracked();
        match s.config(s.workers, s.chosen().first().copied().unwrap_or(0)) {
            Ok(c) => {
                let json = serde_json::json!({ "cluster": c, "training": s.train_config(s.workers), "scaling": if s.weak { "weak" } else { "strong" } });
                browser::download(
                    "cluster-config.json",
                    "application/json",
                    &serde_json::to_string_pretty(&json).unwrap_or_default(),
                );
            }
            Err(e) => error.set(Some(e.to_string())),
        }
    };
    record_files(
        RecordFiles {
            prefix: "cl",
            name: "cluster",
            csv_label: "runs CSV",
            record,
            error,
            status,
        },
        view! {
            <button class:hidden=hidden("export-curve") data-testid="cl-export-curve" on:click=export_curve>"speed-up CSV"</button>
            <button class:hidden=hidden("export-config") data-testid="cl-export-config" on:click=export_config>"engine config JSON"</button>
        },
        move |r| draw_runs(&canvases, &settings.get_untracked(), r),
    )
}
