//! The benchmark page's settings (`/bench`): the workload, the backend, and what scripts ask for
//! (start at once, a step count, test images, or a landscape slice instead).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::lab::{clamp, one_of, LabState};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BenchLab {
    /// "W1" (MLP 784-128-10) or "W2" (LeNet-like CNN).
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
            hide: BTreeSet::new(),
        }
    }
}

impl LabState for BenchLab {
    const LAB: &'static str = "bench";
    const VERSION: u32 = 1;
    /// Test-id suffixes of the page's controls (`bench-<name>`).
    const CONTROLS: &'static [&'static str] = &["workload", "backend", "run", "share", "loss-chart"];

    fn check(&mut self, notices: &mut Vec<String>) {
        one_of(notices, "workload", &mut self.workload, &["W1", "W2"]);
        one_of(notices, "backend", &mut self.backend, &["webgpu", "cpu"]);
        for (name, v, lo, hi) in [
            ("steps", &mut self.steps, 2, 100_000),
            ("test", &mut self.test, 1, 10_000),
            ("slice", &mut self.slice, 2, 41),
        ] {
            if let Some(n) = v {
                clamp(notices, name, n, lo, hi);
            }
        }
    }
}
