//! Rematerialization (Chen et al. 2016; docs/theory.md §8.5): the layers are cut into segments
//! of `segment` layers; after the forward pass only each segment's input (its checkpoint), the
//! last segment's activations and the logits are kept. The backward then goes segment by
//! segment, last first, re-running each earlier segment's forward from its checkpoint just before
//! that segment's backward. Here the dropped buffers are really overwritten (with NaN), so a
//! gradient that depended on one not re-run would show it; the gradients come out bit-identical
//! to the plain pass, because the re-run forward kernels compute the same values in the same
//! order (dropout's masks are keyed by the step).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::kernel::{BufId, Elem, StepScalars};
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
        if rows.len() != self.config.batch {
            return Err(Error::Mismatch(format!(
                "{} rows given for a batch of {}",
                rows.len(),
                self.config.batch
            )));
        }
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
        let plan = self.backend.plan();
        let spans = plan.layers.clone();
        let optimizer_start = plan.optimizer_start;
        let bytes = |id: BufId| plan.table.len_of(id) as u64 * 4;
        let flops = |r: std::ops::Range<usize>| plan.train[r].iter().map(|k| k.flops()).sum::<f64>();
        let n = spans.forward.len();
        let segment = segment.clamp(1, n.max(1));
        let starts: Vec<usize> = (0..n).step_by(segment).collect();
        let last = *starts.last().unwrap_or(&0);
        // What segment [s, e) drops: its activations after its input, its saved statistics.
        let dropped = |s: usize, e: usize| -> BTreeSet<BufId> {
            let kept = spans.acts[s];
            spans.acts[s + 1..e]
                .iter()
                .chain(spans.saved[s..e].iter().flatten())
                .copied()
                .filter(|&id| id != kept && id != spans.acts[e])
                .collect()
        };
        let segments: Vec<(usize, usize)> = starts
            .iter()
            .enumerate()
            .map(|(j, &s)| (s, starts.get(j + 1).copied().unwrap_or(n)))
            .collect();
        let all: BTreeSet<BufId> = spans
            .acts
            .iter()
            .chain(spans.saved.iter().flatten())
            .copied()
            .collect();
        let dropped_all: Vec<BTreeSet<BufId>> = segments
            .iter()
            .map(|&(s, e)| if s == last { BTreeSet::new() } else { dropped(s, e) })
            .collect();
        let total = |ids: &BTreeSet<BufId>| ids.iter().map(|&id| bytes(id)).sum::<u64>();
        let all_bytes = total(&all);
        let kept_bytes = all_bytes - dropped_all.iter().map(total).sum::<u64>();
        let report = Recompute {
            checkpoints: starts.clone(),
            all_bytes,
            kept_bytes,
            peak_bytes: kept_bytes + dropped_all.iter().map(total).max().unwrap_or(0),
            forward_flops: flops(
                spans.forward.first().map_or(0, |r| r.start)..spans.forward.last().map_or(0, |r| r.end),
            ),
            recompute_flops: segments
                .iter()
                .zip(&dropped_all)
                .filter(|(_, d)| !d.is_empty())
                .map(|(&(s, e), _)| flops(spans.forward[s].start..spans.forward[e - 1].end))
                .sum::<f64>()
                + 0.0, // an empty sum is −0
        };
        let poisoned: Vec<(BufId, usize, bool)> = dropped_all
            .iter()
            .flatten()
            .map(|&id| {
                let spec = &self.backend.plan().table.specs[id.0];
                (id, spec.len, spec.elem == Elem::U32)
            })
            .collect();

        self.backend.write_u32(self.host.indices, rows);
        let scalars = StepScalars {
            t: (self.step + 1) as u32,
            ..Default::default()
        };
        // The forward, the loss and its gradient: everything before the first backward kernel.
        self.backend
            .run_train_range(0..spans.backward_all.start, &scalars);
        for (id, len, words) in poisoned {
            if words {
                // A max-pool's arg-max: an index past every input.
                self.backend.write_u32(id, &vec![u32::MAX; len]);
            } else {
                self.backend.write_f32(id, &vec![f32::NAN; len]);
            }
        }
        for (&(s, e), dropped) in segments.iter().zip(&dropped_all).rev() {
            // A segment that dropped nothing (the last, or one layer without saved statistics)
            // has nothing to re-run.
            if !dropped.is_empty() {
                self.backend
                    .run_train_range(spans.forward[s].start..spans.forward[e - 1].end, &scalars);
            }
            self.backend
                .run_train_range(spans.backward[e - 1].start..spans.backward[s].end, &scalars);
        }
        // What follows the backward before the update (a reduced-precision gradient store).
        self.backend
            .run_train_range(spans.backward_all.end..optimizer_start, &scalars);
        let loss = self.backend.read_f32(self.host.log_loss, 1).await?[0];
        let grads = self
            .backend
            .read_f32(self.host.grads, self.compiled.n_params)
            .await?;
        Ok((loss, grads, report))
    }
}
