//! What overlapping the allreduce with the backward pass buys for the settings as they are: one
//! synchronous iteration of the timeline's algorithm laid out with and without overlap
//! (`lab_sims::timeline`), the figures the page publishes under its timeline.

use lab_sims::cluster::{ClusterConfig, Consistency};

use super::ClusterLab;

/// One synchronous iteration with and without overlap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Overlap {
    /// Seconds of the iteration with each bucket sent as the backward pass produces it.
    pub overlapped: f64,
    /// Seconds with one allreduce after the backward pass.
    pub serial: f64,
    /// The share of the overlapped iteration's communication that runs during the backward pass.
    pub hidden: f64,
}

impl ClusterLab {
    /// The timeline algorithm's iteration with and without overlap, or why not.
    pub fn overlap(&self) -> Result<Overlap, crate::error::SetupError> {
        let work = self.work()?;
        let base = ClusterConfig {
            consistency: Consistency::Synchronous,
            ..self.config(self.workers, self.animate)?
        };
        let batch = self.per_worker(self.workers);
        let at = |overlap| ClusterConfig { overlap, ..base.clone() }.iteration(&work, batch);
        let (with, without) = (at(true), at(false));
        Ok(Overlap {
            overlapped: with.seconds,
            serial: without.seconds,
            hidden: with.hidden_share(),
        })
    }
}
