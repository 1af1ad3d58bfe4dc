//! What a sweep's results file must be before the page draws it: within what the scaling lab
//! writes (its settings table's bounds, with room to spare) and consistent where the views index
//! one part by another (a run's batch and its curves within the sweep's steps). A file beyond them
//! was not written by the lab: a batch of 0 divides the examples by nothing, 10⁸ losses freeze the
//! curves.

use super::record::SweepRecord;
use crate::record::{within, RecordFault};

/// The lab's bounds (`state/src/labs/scaling`: at most 100,000 steps, batches to 4096 and their
/// multiples), and what a sweep holds with room to spare.
pub const MOST_STEPS: usize = 100_000;
pub const MOST_BATCH: usize = 1 << 20;
pub const MOST_BATCHES: usize = 1024;
pub const MOST_FACTORS: usize = 64;

impl SweepRecord {
    /// Why this record cannot be the lab's own, or nothing.
    pub fn check(&self) -> Result<(), RecordFault> {
        let s = &self.sweep;
        within("steps", s.max_steps, 1, MOST_STEPS)?;
        within("batches", s.batches.len(), 1, MOST_BATCHES)?;
        within("learning-rate factors", s.lr_factors.len(), 0, MOST_FACTORS)?;
        within("the base batch", s.base_batch, 1, MOST_BATCH)?;
        s.batches
            .iter()
            .try_for_each(|b| within("a batch", *b, 1, MOST_BATCH))?;
        if let Some(f) = s.lr_factors.iter().find(|f| !(f.is_finite() && **f > 0.0)) {
            return Err(format!("learning-rate factors above 0, not {f}").into());
        }
        if !(s.base_lr.is_finite() && s.base_lr > 0.0) {
            return Err(format!("a learning rate above 0, not {}", s.base_lr).into());
        }
        let most_runs = s.batches.len() * s.lr_factors.len().max(1);
        within("runs", self.runs.len(), 0, most_runs)?;
        // A curve has a point a step, and one before the first.
        let points = s.max_steps + 1;
        for (i, r) in self.runs.iter().enumerate() {
            let at = |why: RecordFault| why.at("run", i + 1);
            within("a batch", r.batch, 1, MOST_BATCH).map_err(at)?;
            within("steps", r.steps, 0, s.max_steps).map_err(at)?;
            within("losses", r.losses.len(), 0, points).map_err(at)?;
            within("learning rates", r.learning_rates.len(), 0, points).map_err(at)?;
            within("checks", r.checks.len(), 0, points).map_err(at)?;
            within("noise measurements", r.noise_raw.len(), 0, points).map_err(at)?;
            within("noise scales", r.noise_scale.len(), 0, points).map_err(at)?;
            if let Some(t) = r.steps_to_target {
                within("steps to the target", t, 0, s.max_steps).map_err(at)?;
            }
        }
        Ok(())
    }
}
