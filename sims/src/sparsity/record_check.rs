//! What a sparsity results file must be before the page draws it: within what the lab writes
//! (its settings table's bounds: 1 to 10 rounds, shares below 1) and consistent where the views
//! index one part by another (a run's round within the plan's, its layers' sparsities one per
//! layer). A file beyond them was not written by the lab: 4·10⁹ rounds took the tab's memory,
//! 10⁵ layer sparsities froze the drawing.

use super::record::SparsityRecord;
use crate::record::{within, RecordFault};

/// The lab's settings table's bounds (`state/src/labs/sparsity`), and what a record holds with
/// room to spare.
pub const MOST_ROUNDS: usize = 10;
pub const MOST_STEPS: u64 = 20_000;
pub const MOST_LAYERS: usize = 64;
pub const MOST_RUNS: usize = 200;
pub const MOST_POINTS: usize = 100_000;
pub const MOST_INPUTS: usize = 1 << 20;

impl SparsityRecord {
    /// Why this record cannot be the lab's own, or nothing.
    pub fn check(&self) -> Result<(), RecordFault> {
        let share = |what: &str, v: f64| match (0.0..=1.0).contains(&v) {
            true => Ok(()),
            false => Err(format!("a {what} from 0 to 1, not {v}").into()),
        };
        let p = &self.plan;
        within("rounds", p.rounds, 1, MOST_ROUNDS)?;
        share("share pruned", p.prune)?;
        if p.steps > MOST_STEPS || p.rewind_step > MOST_STEPS {
            return Err(format!("at most {MOST_STEPS} steps").into());
        }
        let layers = self.layers.len();
        within("layers", layers, 1, MOST_LAYERS)?;
        within("runs", self.runs.len(), 0, MOST_RUNS)?;
        within("one-shot points", self.one_shot.len(), 0, MOST_RUNS)?;
        within("structured rows", self.structured.len(), 0, MOST_RUNS)?;
        for (i, r) in self.runs.iter().enumerate() {
            let at = |why: RecordFault| why.at("run", i + 1);
            within("a round", r.round, 0, p.rounds).map_err(at)?;
            share("sparsity", r.sparsity).map_err(at)?;
            within("layer sparsities", r.layer_sparsity.len(), 0, layers).map_err(at)?;
            within("curve points", r.curve.len(), 0, MOST_POINTS).map_err(at)?;
            within("inputs kept", r.input_kept.len(), 0, MOST_INPUTS).map_err(at)?;
            r.layer_sparsity
                .iter()
                .try_for_each(|s| share("layer's sparsity", *s))
                .map_err(at)?;
        }
        for (i, o) in self.one_shot.iter().enumerate() {
            let at = |why: RecordFault| why.at("one-shot point", i + 1);
            share("sparsity", o.sparsity).map_err(at)?;
            within("layer sparsities", o.layer_sparsity.len(), 0, layers).map_err(at)?;
        }
        for (i, s) in self.structured.iter().enumerate() {
            let at = |why: RecordFault| why.at("structured row", i + 1);
            share("sparsity", s.sparsity).map_err(at)?;
            // Each weighted layer's units with the input's first: one more than the layers.
            within("widths", s.widths.len(), 0, layers + 1).map_err(at)?;
        }
        Ok(())
    }
}
