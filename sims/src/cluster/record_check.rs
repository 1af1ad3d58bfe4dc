//! What a cluster results file (`cluster_run::ClusterRecord`) must be before the page draws it:
//! within what the cluster lab writes (its settings table's bounds: 1 to 64 workers, at most
//! 100,000 updates) and consistent where the views index one part by another (a time for every
//! loss, checks within the updates). A file beyond them was not written by the lab: a run with
//! fewer times than losses indexed past its end, 0 workers divide the batch by nothing.

use crate::cluster_run::ClusterRecord;
use crate::record::{within, RecordFault};

/// The lab's bounds (`state/src/labs/cluster`), and what a record holds with room to spare.
pub const MOST_WORKERS: usize = 64;
pub const MOST_STEPS: usize = 100_000;
pub const MOST_RUNS: usize = 256;
pub const MOST_POINTS: usize = 4096;
pub const MOST_BATCH: usize = 1 << 20;

impl ClusterRecord {
    /// Why this record cannot be the lab's own, or nothing.
    pub fn check(&self) -> Result<(), RecordFault> {
        within("runs", self.runs.len(), 0, MOST_RUNS)?;
        within("curve points", self.curve.len(), 0, MOST_POINTS)?;
        for (i, r) in self.runs.iter().enumerate() {
            let at = |why: RecordFault| why.at("run", i + 1);
            within("workers", r.config.workers, 1, MOST_WORKERS).map_err(at)?;
            within("a worker's batch", r.worker_batch, 1, MOST_BATCH).map_err(at)?;
            within("updates", r.losses.len(), 0, MOST_STEPS).map_err(at)?;
            within(
                "times (one an update)",
                r.times.len(),
                r.losses.len(),
                r.losses.len(),
            )
            .map_err(at)?;
            within("checks", r.checks.len(), 0, r.losses.len() + 1).map_err(at)?;
            if let Some(c) = r
                .checks
                .iter()
                .chain(&r.reached)
                .find(|c| c.step > r.losses.len())
            {
                return Err(at(format!(
                    "checks within its {} updates, not at {}",
                    r.losses.len(),
                    c.step
                )
                .into()));
            }
            let figures = [
                r.bytes_per_step,
                r.dense_bytes_per_step,
                r.total_bytes,
                r.staleness_mean,
            ];
            if let Some(x) = figures
                .iter()
                .chain(&r.times)
                .find(|x| !(x.is_finite() && **x >= 0.0))
            {
                return Err(at(format!(
                    "bytes, times and staleness finite and not below 0, not {x}"
                )
                .into()));
            }
        }
        for (i, p) in self.curve.iter().enumerate() {
            let at = |why: RecordFault| why.at("curve point", i + 1);
            within("workers", p.workers, 1, MOST_WORKERS).map_err(at)?;
            if !(p.seconds.is_finite() && p.seconds > 0.0) {
                return Err(at(format!("seconds above 0, not {}", p.seconds).into()));
            }
        }
        Ok(())
    }
}
