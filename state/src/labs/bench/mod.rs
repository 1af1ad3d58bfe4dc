//! The benchmark page's settings (`/bench`): the workload, the backend, and what scripts ask for
//! (start at once, a step count, test images, or a landscape slice instead).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::lab::{clamp, one_of, LabState};
use crate::table::{field, hide_field, no_check, Setting, Table};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BenchLab {
    /// "W1" (MLP 784-128-10), "W2" (LeNet-like CNN) or "T1" (the attention lab's transformer).
    pub workload: String,
    /// "webgpu" or "cpu".
    pub backend: String,
    /// Start on load (for scripts).
    pub autostart: bool,
    /// Steps to time (default: one epoch).
    pub steps: Option<usize>,
    /// Test images to evaluate on (default all 10,000).
    pub test: Option<usize>,
    /// Time an N × N landscape slice instead.
    pub slice: Option<usize>,
    /// CPU cores the CPU path splits each step over (Web Workers); none: one or all the browser
    /// has, whichever the run's first steps time faster (as the labs choose).
    pub threads: Option<usize>,
    /// The GPU's product tiles: "auto" as the labs choose them (remembered for this GPU, timed
    /// on a real one, 64 × 64 on an emulated one), "time" timed now, or "64" / "32" / "128" /
    /// "32k4" (32 × 32 with k split four ways) forced for every product.
    pub tiles: String,
    /// Controls an instructor hid.
    pub hide: BTreeSet<String>,
}

impl Default for BenchLab {
    fn default() -> Self {
        Self {
            workload: "W1".into(),
            backend: "webgpu".into(),
            autostart: false,
            steps: None,
            test: None,
            slice: None,
            threads: None,
            tiles: "auto".into(),
            hide: BTreeSet::new(),
        }
    }
}

impl LabState for BenchLab {
    const LAB: &'static str = "bench";
    const VERSION: u32 = 1;
}

/// One row per setting; a control's name is its test id without `bench-`.
impl Table for BenchLab {
    const SETTINGS: &'static [Setting<Self>] = &[
        field!("workload", |s, n| one_of(
            n,
            "workload",
            &mut s.workload,
            &["W1", "W2", lab_sims::attention::bench::T1]
        )),
        field!("backend", |s, n| one_of(
            n,
            "backend",
            &mut s.backend,
            &["webgpu", "cpu"]
        )),
        // What scripts ask for: not controls on the page.
        field!("autostart", None, no_check),
        field!("steps", None, |s, n| optional(
            n,
            "steps",
            &mut s.steps,
            2,
            100_000
        )),
        field!("test", None, |s, n| optional(n, "test", &mut s.test, 1, 10_000)),
        field!("slice", None, |s, n| optional(n, "slice", &mut s.slice, 2, 41)),
        field!("threads", |s, n| optional(n, "threads", &mut s.threads, 1, 64)),
        field!("tiles", |s, n| one_of(
            n,
            "tiles",
            &mut s.tiles,
            &["auto", "time", "64", "32", "128", "32k4"]
        )),
    ];
    const OTHER_CONTROLS: &'static [&'static str] = &["run", "cancel", "share", "loss-chart", "lesson"];

    hide_field!();
}

/// Workload T1's model, data and optimizer: the attention lab's defaults (copying, 2 blocks, 2
/// heads, Adam), so the benchmark times what a student's first run trains.
pub fn transformer_plan() -> lab_sims::attention::AttentionPlan {
    crate::attention::AttentionLab::default().plan()
}

fn optional(notices: &mut Vec<String>, name: &str, v: &mut Option<usize>, lo: usize, hi: usize) {
    if let Some(n) = v {
        clamp(notices, name, n, lo, hi);
    }
}

/// The lab's settings under the name the registry's generated list reads (`build.rs`).
pub type State = BenchLab;
