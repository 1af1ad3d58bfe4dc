//! The roofline of data-parallel training (docs/theory.md §11.4): a worker's step does its share
//! of the batch's FLOPs and sends its share of the gradient's allreduce over the network, so its
//! "network intensity" is FLOPs per byte sent, and it can compute no faster than
//! min(peak, intensity × link bandwidth). With the global batch fixed (strong scaling) each added
//! worker computes less but a ring allreduce still sends about twice the gradient: the point
//! walks left, across the ridge, into the network-bound region.

use serde::{Deserialize, Serialize};

use engine::collectives::{cost, Algorithm, Link, Schedule, Topology};

use crate::timeline::Work;

/// One worker count's place on the distributed roofline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DistPoint {
    pub workers: usize,
    /// Samples each worker computes on (the global batch split).
    pub worker_batch: usize,
    /// FLOPs a worker's step does.
    pub flops: f64,
    /// Bytes a worker sends in the step's ring allreduce of the gradient (4 bytes a value).
    pub bytes: f64,
    /// FLOP/s a worker can reach at most: min(peak, flops / bytes × bandwidth).
    pub attainable: f64,
}

impl DistPoint {
    /// FLOPs per byte sent.
    pub fn intensity(&self) -> f64 {
        self.flops / self.bytes.max(1e-12)
    }
}

/// The points for `counts` workers (two or more: one worker sends nothing) sharing `global_batch`,
/// each at `peak` FLOP/s on `link`, for the model `work`.
pub fn distributed(
    work: &Work,
    global_batch: usize,
    peak: f64,
    link: Link,
    counts: &[usize],
) -> Vec<DistPoint> {
    let params: usize = work.buckets.iter().map(|b| b.params).sum();
    let bandwidth = 1.0 / link.beta.max(1e-30);
    (counts.iter())
        .filter(|&&n| n >= 2 && global_batch / n >= 1)
        .map(|&workers| {
            let worker_batch = global_batch / workers;
            let flops = work.flops_per_sample * worker_batch as f64;
            let schedule = Schedule::new(Algorithm::Ring, workers, params, 1);
            let bytes = cost(&schedule, &Topology::flat(link), 4.0).bytes / workers as f64;
            let intensity = flops / bytes.max(1e-12);
            DistPoint {
                workers,
                worker_batch,
                flops,
                bytes,
                attainable: peak.min(intensity * bandwidth),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::Bucket;

    #[test]
    fn a_ring_sends_twice_the_gradient_and_strong_scaling_walks_left_by_hand() {
        // 1,200 parameters, 1,000 FLOPs a sample, a batch of 64 on a 1 GB/s link, 10 GFLOP/s.
        let work = Work {
            flops_per_sample: 1_000.0,
            buckets: vec![Bucket {
                params: 1_200,
                share: 1.0,
            }],
        };
        let link = Link {
            alpha: 0.0,
            beta: 1e-9,
            gamma: 0.0,
        };
        let points = distributed(&work, 64, 1e10, link, &[1, 2, 4, 8]);
        assert_eq!(points.iter().map(|p| p.workers).collect::<Vec<_>>(), [2, 4, 8]);
        for p in &points {
            let n = p.workers as f64;
            // Ring allreduce: each worker sends 2 (n − 1)/n of the 4,800-byte gradient.
            assert!((p.bytes - 2.0 * (n - 1.0) / n * 4_800.0).abs() < 1e-9, "{p:?}");
            assert_eq!(p.flops, 1_000.0 * (64 / p.workers) as f64);
        }
        // 2 workers: 32,000 FLOPs over 4,800 bytes = 6.67 FLOPs a byte, × 1 GB/s = 6.67 GFLOP/s.
        assert!((points[0].attainable - 32_000.0 / 4_800.0 * 1e9).abs() < 1.0);
        assert!(points.windows(2).all(|w| w[1].intensity() < w[0].intensity()));
    }
}
