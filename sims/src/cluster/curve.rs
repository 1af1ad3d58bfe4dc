//! Speed-up and efficiency against worker count, from the cluster's own iteration model.

use serde::{Deserialize, Serialize};

use super::{ClusterConfig, Consistency, Scaling};
use crate::timeline::Work;
use engine::collectives::Algorithm;

/// Speed-up and efficiency of one configuration at one worker count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScalingPoint {
    pub algorithm: Algorithm,
    pub workers: usize,
    /// Modelled seconds of one iteration and its samples (the global batch).
    pub seconds: f64,
    pub samples: usize,
    /// Throughput over one worker's (training the whole batch alone), and that over the workers.
    pub speedup: f64,
    pub efficiency: f64,
    /// Bytes on the wire per iteration.
    pub bytes: f64,
}

/// Speed-up and efficiency of synchronous training against worker count for each algorithm, from
/// the same iteration model (compute, buckets, schedule costs) as the cluster's clock. `batch` is
/// the global batch (strong scaling) or each worker's (weak); under strong scaling worker counts
/// above the batch are left out (a worker would have no sample).
pub fn scaling_curve(
    base: &ClusterConfig,
    work: &Work,
    batch: usize,
    scaling: Scaling,
    algorithms: &[Algorithm],
    workers: &[usize],
) -> Vec<ScalingPoint> {
    let single = ClusterConfig {
        workers: 1,
        consistency: Consistency::Synchronous,
        ..base.clone()
    };
    let one = batch as f64 / single.iteration(work, batch).seconds;
    let mut points = Vec::new();
    for &algorithm in algorithms {
        for &p in workers {
            let config = ClusterConfig {
                workers: p,
                algorithm,
                consistency: Consistency::Synchronous,
                ..base.clone()
            };
            let Some(per) = scaling.worker_batch(batch, p) else {
                continue;
            };
            let t = config.iteration(work, per);
            let samples = per * p;
            let speedup = samples as f64 / t.seconds / one;
            points.push(ScalingPoint {
                algorithm,
                workers: p,
                seconds: t.seconds,
                samples,
                speedup,
                efficiency: speedup / p as f64,
                bytes: config.allreduce(work.params()).1,
            });
        }
    }
    points
}
