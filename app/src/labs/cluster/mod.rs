//! The cluster lab (`/cluster`): simulated data-parallel workers train one model through real
//! allreduce schedules, charged by the α-β-γ cost model (docs/theory.md §6). The animation, the
//! timeline, the curves and the runs all come from the engine's schedules (`lab_sims::cluster`,
//! `engine::collectives`); this page only chooses and draws. `page` lays it out; `animation`,
//! `settings_panel`, `exports` and `runs` are its parts.

pub mod draw;
pub mod schedule_chart;
mod animation;
mod exports;
mod lesson;
mod page;
mod runs;
mod settings_panel;

use crate::error::RunError;
use leptos::html::Canvas;
use leptos::prelude::*;

use engine::collectives::{Algorithm, Link};
use lab_sims::cluster::{scaling_curve, ClusterConfig, Consistency, ScalingPoint};
use lab_sims::cluster_run::{ClusterRecord, ClusterRun};

use crate::cluster::draw::{self as charts, Metric};

pub use lab_state::cluster::algorithm_index;
use lab_state::cluster::{ClusterLab as Settings, ALGORITHMS};
/// The lab's page, under the name the registry's generated router mounts (`build.rs`).
pub use page::ClusterPage as Page;

/// Worker counts of the speed-up curves.
const CURVE_WORKERS: [usize; 7] = [1, 2, 4, 8, 16, 32, 64];

#[derive(Clone, Copy)]
struct Canvases {
    animation: NodeRef<Canvas>,
    timeline: NodeRef<Canvas>,
    speedup: NodeRef<Canvas>,
    efficiency: NodeRef<Canvas>,
    bytes: NodeRef<Canvas>,
    loss: NodeRef<Canvas>,
    tta: NodeRef<Canvas>,
    /// Whether the loss chart's y axis is logarithmic.
    log_loss: RwSignal<bool>,
}

impl Canvases {
    fn new() -> Self {
        Self {
            animation: NodeRef::new(),
            timeline: NodeRef::new(),
            speedup: NodeRef::new(),
            efficiency: NodeRef::new(),
            bytes: NodeRef::new(),
            loss: NodeRef::new(),
            tta: NodeRef::new(),
            log_loss: RwSignal::new(false),
        }
    }
}

fn labels(s: &Settings) -> Vec<(usize, String)> {
    s.chosen()
        .into_iter()
        .map(|i| (i, ALGORITHMS[i].1.to_string()))
        .collect()
}

/// The analytic views: speed-up, efficiency and bytes for the chosen algorithms.
fn curve(s: &Settings) -> Result<Vec<ScalingPoint>, RunError> {
    let base = s.config(1, 0)?;
    let algorithms: Vec<Algorithm> = s.chosen().into_iter().map(|i| s.algorithm(i)).collect();
    Ok(scaling_curve(
        &base,
        &s.work()?,
        s.batch,
        s.scaling(),
        &algorithms,
        &CURVE_WORKERS,
    ))
}

fn draw_curves(c: &Canvases, s: &Settings, points: &[ScalingPoint]) {
    let l = labels(s);
    for (node, metric) in [
        (c.speedup, Metric::Speedup),
        (c.efficiency, Metric::Efficiency),
        (c.bytes, Metric::Bytes),
    ] {
        if let Some(x) = node.get_untracked() {
            charts::scaling(x, points, &l, metric);
        }
    }
}

fn draw_runs(c: &Canvases, s: &Settings, record: &ClusterRecord) {
    let (study, main): (Vec<ClusterRun>, Vec<ClusterRun>) = record
        .runs
        .iter()
        .cloned()
        .partition(|r| r.label.starts_with("study"));
    // After a study alone, its runs are the ones to draw against time.
    if let Some(x) = c.loss.get_untracked() {
        let runs = if main.is_empty() { &study } else { &main };
        charts::loss_vs_time(x, runs, c.log_loss.get_untracked());
    }
    if let Some(x) = c.tta.get_untracked() {
        charts::time_to_accuracy(x, &study, &labels(s));
    }
}

fn link_label(name: &str) -> String {
    let l = Link::preset(name).expect("a preset");
    let label = match name {
        "nvlink" => "NVLink",
        "pcie" => "PCIe",
        "infiniband" => "InfiniBand",
        "100gbe" => "100 Gb Ethernet",
        "10gbe" => "10 Gb Ethernet",
        "wifi" => "Wi-Fi",
        other => other,
    };
    format!(
        "{label} (α {}, {:.2} GB/s)",
        charts::seconds(l.alpha),
        1e-9 / l.beta
    )
}

/// The timeline of one synchronous iteration as set (an asynchronous run draws its own trace).
fn draw_timeline(c: &Canvases, s: &Settings) {
    let Some(canvas) = c.timeline.get_untracked() else {
        return;
    };
    let (Ok(work), Ok(config)) = (s.work(), s.config(s.workers, s.animate)) else {
        return;
    };
    let sync = ClusterConfig {
        consistency: Consistency::Synchronous,
        ..config
    };
    let t = sync.iteration(&work, s.per_worker(s.workers));
    let title = format!(
        "{}: {} compute + {} exposed comm.",
        ALGORITHMS[s.animate].1,
        charts::seconds(t.compute_seconds),
        charts::seconds(t.exposed_comm_seconds)
    );
    charts::timeline(&canvas, &t.segments, s.workers, &title);
}

/// Under the timeline: one synchronous iteration with and without overlap, and how much of the
/// overlapped iteration's communication the backward pass hides (`lab_state::cluster::overlap`).
fn overlap_readout(settings: RwSignal<Settings>) -> impl IntoView {
    move || {
        settings.with(|s| s.overlap()).ok().map(|o| {
            view! {
                <p class="muted small" data-testid="cl-overlap">
                    "One iteration (the timeline's algorithm, synchronous): "
                    <b data-metric="iteration-overlap" data-metric-value=o.overlapped.to_string()>{charts::seconds(o.overlapped)}</b>
                    " with overlap, "
                    <b data-metric="iteration-serial" data-metric-value=o.serial.to_string()>{charts::seconds(o.serial)}</b>
                    " with the allreduce after the backward pass; overlap hides "
                    <b data-metric="hidden-share" data-metric-value=(100.0 * o.hidden).to_string()>{format!("{:.0} %", 100.0 * o.hidden)}</b>
                    " of its communication behind the backward pass."
                </p>
            }
        })
    }
}
