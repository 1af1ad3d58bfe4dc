//! One iteration of synchronous data-parallel training on a time axis (docs/theory.md §6.5): each worker
//! runs forward and backward, the gradients are allreduced, and — with overlap — each layer's
//! gradients (a bucket) start their allreduce as soon as every worker's backward has produced
//! them, hiding communication behind the rest of the backward pass.

use serde::{Deserialize, Serialize};

use engine::model::{layer_macs, Compiled};
use engine::plan::input_gradient_needed;

/// What a worker is doing in a stretch of time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Forward,
    Backward,
    /// Computing nothing: waiting for slower workers or for the allreduce.
    Wait,
    /// The allreduce of a bucket (all workers take part).
    Comm,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Segment {
    pub worker: usize,
    pub phase: Phase,
    pub start: f64,
    pub end: f64,
    /// The bucket a backward or communication segment belongs to (0 = the last layer's).
    pub bucket: usize,
}

/// The gradients of one layer with parameters, in the order backward produces them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bucket {
    pub params: usize,
    /// Its share of the backward compute (the shares sum to 1).
    pub share: f64,
}

/// The compute a model needs: FLOPs per training sample and its gradient buckets.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Work {
    pub flops_per_sample: f64,
    pub buckets: Vec<Bucket>,
}

impl Work {
    /// The FLOPs of one training sample as the training pass computes them (a multiply-add counts
    /// 2, docs/theory.md §6.1): every layer's forward product, the weight gradient of every layer
    /// with weights, and the input gradient only where backward computes it — not below the first
    /// layer with weights, whose input is the data. Backward's time splits over the layers by
    /// their products.
    pub fn of(c: &Compiled) -> Self {
        let macs = |l: &engine::model::CompiledLayer| layer_macs(l) as f64;
        // Products per layer in backward: the weight gradient, plus the input gradient if needed.
        let backward: Vec<f64> = c
            .layers
            .iter()
            .enumerate()
            .map(|(i, l)| macs(l) * if input_gradient_needed(c, i) { 2.0 } else { 1.0 })
            .collect();
        let forward: f64 = c.layers.iter().map(macs).sum();
        let total_backward = backward.iter().sum::<f64>().max(1.0);
        let buckets = c
            .layers
            .iter()
            .zip(&backward)
            .rev()
            .filter(|(l, _)| l.has_params())
            .map(|(l, b)| Bucket {
                params: l.w_len + bias_len(l),
                share: b / total_backward,
            })
            .collect();
        Work {
            flops_per_sample: 2.0 * (forward + backward.iter().sum::<f64>()),
            buckets,
        }
    }

    pub fn params(&self) -> usize {
        self.buckets.iter().map(|b| b.params).sum()
    }
}

fn bias_len(l: &engine::model::CompiledLayer) -> usize {
    if l.has_params() {
        l.out_shape[0]
    } else {
        0
    }
}

/// The inputs of one iteration.
#[derive(Clone, Debug, PartialEq)]
pub struct Iteration {
    /// Seconds of forward + backward on each worker (stragglers take longer).
    pub compute: Vec<f64>,
    /// Backward shares of the buckets, in backward order.
    pub shares: Vec<f64>,
    /// Seconds of each bucket's own allreduce (overlap), and of one allreduce of everything.
    pub bucket_comm: Vec<f64>,
    pub whole_comm: f64,
    pub overlap: bool,
}

/// One iteration laid out in time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    pub segments: Vec<Segment>,
    /// When the last allreduce ends: the iteration's time.
    pub seconds: f64,
    /// The slowest worker's compute, and the communication not hidden behind compute.
    pub compute_seconds: f64,
    pub exposed_comm_seconds: f64,
    /// Every collective's time on the wire, hidden or not.
    #[serde(default)]
    pub comm_seconds: f64,
}

/// Forward takes a third of a worker's compute, backward the rest, layer by layer from the last.
/// Without overlap one allreduce of the whole gradient starts when the slowest worker finishes;
/// with overlap bucket b starts once every worker has finished its backward and the bucket before
/// it has left the wire (one collective at a time).
pub fn iteration(it: &Iteration) -> Timeline {
    let mut segments = Vec::new();
    let compute_seconds = it.compute.iter().copied().fold(0.0, f64::max);
    for (w, &c) in it.compute.iter().enumerate() {
        let forward = c / 3.0;
        segments.push(seg(w, Phase::Forward, 0.0, forward, 0));
        let mut t = forward;
        for (b, share) in it.shares.iter().enumerate() {
            let end = t + share * (c - forward);
            segments.push(seg(w, Phase::Backward, t, end, b));
            t = end;
        }
    }
    let mut comms = Vec::new();
    if it.overlap {
        let (mut done, mut free) = (0.0, 0.0);
        for (b, (share, comm)) in it.shares.iter().zip(&it.bucket_comm).enumerate() {
            done += share;
            // The bucket is ready on every worker when the slowest has computed it.
            let ready = compute_seconds / 3.0 + done * compute_seconds * 2.0 / 3.0;
            let start = ready.max(free);
            free = start + comm;
            comms.push((b, start, free));
        }
    } else {
        comms.push((0, compute_seconds, compute_seconds + it.whole_comm));
    }
    let seconds = comms.last().map_or(compute_seconds, |c| c.2);
    for w in 0..it.compute.len() {
        if it.compute[w] < seconds {
            segments.push(seg(w, Phase::Wait, it.compute[w], seconds, 0));
        }
        if it.compute.len() > 1 {
            for &(b, start, end) in &comms {
                segments.push(seg(w, Phase::Comm, start, end, b));
            }
        }
    }
    Timeline {
        segments,
        seconds,
        compute_seconds,
        exposed_comm_seconds: seconds - compute_seconds,
        comm_seconds: comms.iter().map(|c| c.2 - c.1).sum(),
    }
}

impl Timeline {
    /// The share of the communication that runs while some worker still computes: 1 − exposed /
    /// all (0 without communication).
    pub fn hidden_share(&self) -> f64 {
        if self.comm_seconds > 0.0 {
            (1.0 - self.exposed_comm_seconds / self.comm_seconds).clamp(0.0, 1.0)
        } else {
            0.0
        }
    }
}

fn seg(worker: usize, phase: Phase, start: f64, end: f64, bucket: usize) -> Segment {
    Segment {
        worker,
        phase,
        start,
        end,
        bucket,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two workers of 3 s (forward 1 s, backward 2 s) and two buckets of half the backward each,
    /// laid out by hand: bucket 0 is ready at 1 + 0.5·2 = 2 s, bucket 1 at 3 s.
    fn two_buckets(comm: f64, overlap: bool) -> Timeline {
        iteration(&Iteration {
            compute: vec![3.0, 3.0],
            shares: vec![0.5, 0.5],
            bucket_comm: vec![comm, comm],
            whole_comm: 2.0 * comm,
            overlap,
        })
    }

    #[test]
    fn the_hidden_share_is_the_hand_count() {
        // Fast link: 2–2.5 s and 3–3.5 s on the wire; the step ends at 3.5 s, 0.5 of 1 s exposed.
        let fast = two_buckets(0.5, true);
        assert_eq!(
            (fast.seconds, fast.comm_seconds, fast.hidden_share()),
            (3.5, 1.0, 0.5)
        );
        // Slow link: 2–4 s, then 4–6 s (the wire is busy when bucket 1 is ready): 3 of 4 s exposed.
        let slow = two_buckets(2.0, true);
        assert_eq!(
            (slow.seconds, slow.comm_seconds, slow.hidden_share()),
            (6.0, 4.0, 0.25)
        );
        // Without overlap the whole allreduce follows the compute: nothing hidden.
        let serial = two_buckets(0.5, false);
        assert_eq!((serial.seconds, serial.hidden_share()), (4.0, 0.0));
    }
}
