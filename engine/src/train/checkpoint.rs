//! Rematerialization (Chen et al. 2016; docs/theory.md §8.5): the layers are cut into segments
//! of `segment` layers; after the forward pass only each segment's input (its checkpoint), the
//! last segment's activations and the logits are kept. The backward then goes segment by
//! segment, last first, re-running each earlier segment's forward from its checkpoint just before
//! that segment's backward. Here the dropped buffers are really overwritten (with NaN), so a
//! gradient that depended on one not re-run would show it; the gradients come out bit-identical
//! to the plain pass, because the re-run forward kernels compute the same values in the same
//! order (dropout's masks are keyed by the step).

use std::collections::BTreeSet;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::kernel::{BufId, Elem};
use crate::model::Layer;

use super::Trainer;

/// What checkpointing kept, held at most and re-ran in one step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Recompute {
    /// The layers whose inputs were kept: 0, segment, 2·segment, …
    pub checkpoints: Vec<usize>,
    /// Activation bytes (the batch's inputs, every layer's output and saved statistics) without
    /// checkpointing.
    pub all_bytes: u64,
    /// Kept through the step: the checkpoints, the last segment's activations, the logits.
    pub kept_bytes: u64,
    /// The most held at once: the kept bytes and the largest segment re-run.
    pub peak_bytes: u64,
    /// FLOPs of the forward kernels, once, and of those re-run.
    pub forward_flops: f64,
    pub recompute_flops: f64,
}

impl Trainer {
    /// The loss and gradient of [`Trainer::loss_and_gradient`], computed with checkpoints every
    /// `segment` layers (see the module's comment). Residual blocks are refused: a segment
    /// boundary inside a block would leave its skip's start dropped.
    pub async fn checkpointed_loss_and_gradient(
        &mut self,
        rows: &[u32],
        segment: usize,
    ) -> Result<(f32, Vec<f32>, Recompute), Error> {
        if self
            .compiled
            .layers
            .iter()
            .any(|l| matches!(l.layer, Layer::SkipFrom))
        {
            return Err(Error::Config(
                "checkpointing does not handle residual blocks yet".into(),
            ));
        }
        let scalars = self.gradient_batch(rows)?;
        let plan = self.backend.plan();
        let spans = &plan.layers;
        let bytes = |ids: &BTreeSet<BufId>| {
            ids.iter()
                .map(|&id| plan.table.len_of(id) as u64 * 4)
                .sum::<u64>()
        };
        let flops = |r: &Range<usize>| plan.train[r.clone()].iter().map(|k| k.flops()).sum::<f64>();
        let n = spans.forward.len();
        let starts: Vec<usize> = (0..n).step_by(segment.clamp(1, n.max(1))).collect();
        let segments: Vec<Segment> = starts
            .iter()
            .enumerate()
            .map(|(j, &s)| {
                let e = starts.get(j + 1).copied().unwrap_or(n);
                // The last segment keeps everything: its backward follows the forward at once.
                let dropped = if e == n {
                    BTreeSet::new()
                } else {
                    // Its activations after its input (and before the next checkpoint), its saved
                    // statistics.
                    let kept = [spans.acts[s], spans.acts[e]];
                    spans.acts[s + 1..e]
                        .iter()
                        .chain(spans.saved[s..e].iter().flatten())
                        .copied()
                        .filter(|id| !kept.contains(id))
                        .collect()
                };
                Segment {
                    forward: spans.forward[s].start..spans.forward[e - 1].end,
                    backward: spans.backward[e - 1].start..spans.backward[s].end,
                    dropped,
                }
            })
            .collect();
        let all: BTreeSet<BufId> = spans
            .acts
            .iter()
            .chain(spans.saved.iter().flatten())
            .copied()
            .collect();
        let all_bytes = bytes(&all);
        let kept_bytes = all_bytes - segments.iter().map(|g| bytes(&g.dropped)).sum::<u64>();
        let report = Recompute {
            checkpoints: starts,
            all_bytes,
            kept_bytes,
            peak_bytes: kept_bytes + segments.iter().map(|g| bytes(&g.dropped)).max().unwrap_or(0),
            forward_flops: flops(
                &(spans.forward.first().map_or(0, |r| r.start)..spans.forward.last().map_or(0, |r| r.end)),
            ),
            recompute_flops: segments
                .iter()
                .filter(|g| !g.dropped.is_empty())
                .map(|g| flops(&g.forward))
                .sum::<f64>()
                + 0.0, // an empty sum is −0
        };
        let poisoned: Vec<(BufId, usize, bool)> = segments
            .iter()
            .flat_map(|g| &g.dropped)
            .map(|&id| {
                let spec = &plan.table.specs[id.0];
                (id, spec.len, spec.elem == Elem::U32)
            })
            .collect();
        let (before_backward, after_backward) = (
            0..spans.backward_all.start,
            spans.backward_all.end..plan.optimizer_start,
        );

        // The forward, the loss and its gradient: everything before the first backward kernel.
        self.backend.run_train_range(before_backward, &scalars);
        for (id, len, words) in poisoned {
            if words {
                // A max-pool's arg-max: an index past every input.
                self.backend.write_u32(id, &vec![u32::MAX; len]);
            } else {
                self.backend.write_f32(id, &vec![f32::NAN; len]);
            }
        }
        for g in segments.iter().rev() {
            // A segment that dropped nothing (the last, or one layer without saved statistics)
            // has nothing to re-run.
            if !g.dropped.is_empty() {
                self.backend.run_train_range(g.forward.clone(), &scalars);
            }
            self.backend.run_train_range(g.backward.clone(), &scalars);
        }
        // What follows the backward before the update (a reduced-precision gradient store).
        self.backend.run_train_range(after_backward, &scalars);
        let loss = self.backend.read_f32(self.host.log_loss, 1).await?[0];
        let grads = self
            .backend
            .read_f32(self.host.grads, self.compiled.n_params)
            .await?;
        Ok((loss, grads, report))
    }
}

/// One stretch of layers: its kernels in the training pass and the buffers it drops.
struct Segment {
    forward: Range<usize>,
    backward: Range<usize>,
    dropped: BTreeSet<BufId>,
}
