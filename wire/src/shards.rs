//! Each worker's rows of a step's global batch. The batch's rows are split in rank order into
//! contiguous shards whose sizes differ by at most one (the first `batch % workers` one larger), the
//! split MPI's block distribution and PyTorch's `DistributedSampler` (without padding) use. A
//! worker that left or stalled is taken out of the list of live ranks, and the same batch is split
//! again over those that remain: every row is still computed once.

use std::ops::Range;

/// The rows of a batch of `batch` that the `index`-th of `workers` workers computes.
pub fn shard(batch: usize, workers: usize, index: usize) -> Range<usize> {
    assert!(workers > 0 && index < workers, "worker {index} of {workers}");
    let (base, extra) = (batch / workers, batch % workers);
    let start = index * base + index.min(extra);
    start..start + base + usize::from(index < extra)
}

/// Every live rank's rows of a batch of `batch`, in rank order (`live` sorted and without
/// repeats: the class server's list of the workers taking part in the step).
pub fn assign(batch: usize, live: &[u16]) -> Vec<(u16, Range<usize>)> {
    debug_assert!(
        live.windows(2).all(|w| w[0] < w[1]),
        "live ranks sorted, once each"
    );
    live.iter()
        .enumerate()
        .map(|(i, &rank)| (rank, shard(batch, live.len(), i)))
        .collect()
}
