//! Where each layer's kernels sit in the training pass, and the buffers its forward leaves for
//! the backward: what rematerialization needs to re-run one stretch of layers
//! (`train::checkpoint`).

use std::ops::Range;

use super::layer_ops::Forward;
use crate::kernel::BufId;

#[derive(Clone, Debug, Default)]
pub struct LayerSpans {
    /// Layer i's forward kernels in `Plan::train`.
    pub forward: Vec<Range<usize>>,
    /// Layer i's backward kernels (the last layer's run first).
    pub backward: Vec<Range<usize>>,
    /// From the first backward kernel to the last (every layer's, last to first).
    pub backward_all: Range<usize>,
    /// acts[i] → layer i → acts[i + 1]; a flatten's or a skip's start shares its input's buffer.
    pub acts: Vec<BufId>,
    /// Each layer's other saved buffers: a max-pool's arg-max, a normalization's statistics.
    pub saved: Vec<Vec<BufId>>,
}

impl LayerSpans {
    pub(super) fn new(fwd: &Forward, backward_starts: &[usize], backward_end: usize) -> Self {
        let forward = fwd.starts.windows(2).map(|w| w[0]..w[1]).collect();
        let n = backward_starts.len();
        let backward = (0..n)
            .map(|i| {
                backward_starts[i]..if i == 0 {
                    backward_end
                } else {
                    backward_starts[i - 1]
                }
            })
            .collect();
        let saved = (0..n)
            .map(|i| {
                [fwd.argmax.get(i), fwd.stats.get(i)]
                    .into_iter()
                    .flatten()
                    .flatten()
                    .copied()
                    .collect()
            })
            .collect();
        LayerSpans {
            forward,
            backward,
            backward_all: backward_starts.last().copied().unwrap_or(backward_end)..backward_end,
            acts: fwd.acts.clone(),
            saved,
        }
    }
}
