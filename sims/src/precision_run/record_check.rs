//! What a precision results file must be before the page draws it: within what the precision lab
//! writes (its settings table's bounds: at most 20,000 steps, six runs) and consistent where the
//! views index one part by another (a run's curves within its steps). A file beyond them was not
//! written by the lab: 10⁸ losses freeze the curves, accuracies of 7 draw off the chart.

use super::record::PrecisionRecord;
use crate::record::{within, RecordFault};

/// The lab's bounds (`state/src/labs/precision`), and what a record holds with room to spare.
pub const MOST_STEPS: usize = 20_000;
pub const MOST_RUNS: usize = 16;
/// Layers with weights a histogram may cover.
pub const MOST_LAYERS: usize = 64;
/// An exponent histogram's bins: f32's exponents run from −149 to 127.
pub const MOST_BINS: usize = 512;
/// Bytes of one class of tensor (the largest network the lab trains keeps far fewer).
pub const MOST_TENSOR_BYTES: u64 = 1 << 40;

impl PrecisionRecord {
    /// Why this record cannot be the lab's own, or nothing.
    pub fn check(&self) -> Result<(), RecordFault> {
        let share = |what: &str, v: f64| match (0.0..=1.0).contains(&v) {
            true => Ok(()),
            false => Err(format!("{what} from 0 to 1, not {v}").into()),
        };
        within("steps", self.steps, 1, MOST_STEPS)?;
        within("runs", self.runs.len(), 0, MOST_RUNS)?;
        self.base.validate().map_err(|e| format!("its network: {e}"))?;
        let points = self.steps + 1;
        for (i, r) in self.runs.iter().enumerate() {
            let at = |why: RecordFault| why.at("run", i + 1);
            within("losses", r.losses.len(), 0, points).map_err(at)?;
            within("scale events", r.scale_events.len(), 0, points).map_err(at)?;
            within("checks", r.checks.len(), 0, points).map_err(at)?;
            share("an accuracy", f64::from(r.train_accuracy)).map_err(at)?;
            if let Some(a) = r.test_accuracy {
                share("a test accuracy", f64::from(a)).map_err(at)?;
            }
            if r.skipped_steps > self.steps as u64 || r.diverged_at.is_some_and(|s| s > self.steps as u64) {
                return Err(at(format!("steps within its {}", self.steps).into()));
            }
            let b = &r.bytes;
            let classes = [b.weights, b.master, b.activations, b.gradients, b.optimizer_state];
            if classes.iter().any(|x| *x > MOST_TENSOR_BYTES) {
                return Err(at(format!("tensor bytes of at most {MOST_TENSOR_BYTES}").into()));
            }
            for c in &r.checks {
                within("histograms", c.histograms.len(), 0, MOST_LAYERS).map_err(at)?;
                for h in &c.histograms {
                    within("histogram bins", h.counts.len(), 0, MOST_BINS).map_err(at)?;
                }
                // Two parameter tensors a layer (weights, bias), each scale within the engine's.
                within("tensor scales", c.gradient_scales.len(), 0, 2 * MOST_LAYERS).map_err(at)?;
                let most = engine::precision::MAX_EXPONENT;
                if let Some(k) = c.gradient_scales.iter().find(|k| k.abs() > most) {
                    return Err(at(format!(
                        "a tensor scale from 2^-{most} to 2^{most}, not 2^{k}"
                    )
                    .into()));
                }
                if c.step > self.steps as u64 {
                    return Err(at(format!(
                        "checks within its {} steps, not at {}",
                        self.steps, c.step
                    )
                    .into()));
                }
            }
        }
        Ok(())
    }
}
