//! One training step of a one-hidden-layer MLP split over shards by its hidden units (tensor
//! parallelism, Megatron's MLP block: docs/theory.md §8.3). Shard i holds hidden units
//! chunk(hidden, n, i): those rows of the first layer's weights and bias, and the matching
//! columns of the second layer's weights; shard 0 also holds the output bias (the others keep
//! theirs at zero). Every shard reads the whole batch. A step runs in two phases:
//!
//! 1. each shard's forward up to the outputs ([`Trainer::shard_outputs`]): its hidden units'
//!    part of every logit, Z_i = relu(X·W1_iᵀ + b1_i)·W2_iᵀ (+ b2 on shard 0);
//! 2. the caller adds the parts in shard order (the all-reduce: batch × classes values, against
//!    every gradient value for a data-parallel split), and each shard takes the loss of the sum,
//!    its backward and its own optimizer update ([`Trainer::shard_finish`]).
//!
//! The loss and its gradient with respect to the logits are the same on every shard, and every
//! weight's gradient involves only its own shard's values, so no gradient is exchanged and each
//! shard updates only its own weights: the unsplit step, up to the order the logits' sums run
//! in. Against a data-parallel split, each shard also reads and writes only its share of the
//! weights (which a small batch's step spends much of its time on).

use super::{ModelConfig, StepMetrics, TrainConfig, TrainError, Trainer};
use crate::collectives::chunk;
use crate::error::Error;
use crate::kernel::StepScalars;
use crate::model::Compiled;
use crate::optim::Optimizer;

/// Where one shard's parameters sit in the whole model's flat vector.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HiddenShard {
    /// (offset in the whole vector, offset in the shard's, values) for each contiguous run.
    runs: Vec<(usize, usize, usize)>,
    /// The shard's parameter count.
    len: usize,
    /// The output bias, in the shard's vector: zeroed after each update on every shard but 0.
    bias: Option<(usize, usize)>,
}

impl HiddenShard {
    /// Shard `i` of `n` of the model `whole` (dense → activation → dense), whose own layout is
    /// `shard` (the same network with its share of the hidden units).
    pub fn new(whole: &Compiled, shard: &Compiled, n: usize, i: usize) -> Result<Self, Error> {
        let (w, s) = (&whole.layers, &shard.layers);
        if w.len() != 3 || s.len() != 3 {
            return Err(Error::Mismatch(
                "a hidden split needs dense → activation → dense".into(),
            ));
        }
        let inputs = w[0].in_len();
        let (hidden, classes) = (w[0].out_len(), w[2].out_len());
        let (h0, h1) = chunk(hidden, n, i);
        let own = h1 - h0;
        if s[0].out_len() != own || s[0].in_len() != inputs || s[2].out_len() != classes {
            return Err(Error::Mismatch(format!(
                "shard {i} of {n} should hold {own} of {hidden} hidden units"
            )));
        }
        // First layer: one row of weights per hidden unit, so the shard's rows are one run.
        let mut runs = vec![
            (w[0].w_off + h0 * inputs, s[0].w_off, own * inputs),
            (w[0].b_off + h0, s[0].b_off, own),
        ];
        // Second layer: one row per output, each holding every hidden unit's weight.
        runs.extend((0..classes).map(|o| (w[2].w_off + o * hidden + h0, s[2].w_off + o * own, own)));
        let bias = (s[2].b_off, classes);
        if i == 0 {
            runs.push((w[2].b_off, bias.0, classes));
        }
        Ok(HiddenShard {
            runs,
            len: shard.n_params,
            bias: (i > 0).then_some(bias),
        })
    }

    /// The shard's parameter count.
    pub fn param_count(&self) -> usize {
        self.len
    }

    /// The shard's parameters, taken from the whole model's.
    pub fn take(&self, whole: &[f32]) -> Vec<f32> {
        let mut out = vec![0.0; self.len];
        for &(w, s, len) in &self.runs {
            out[s..s + len].copy_from_slice(&whole[w..w + len]);
        }
        out
    }

    /// Puts the shard's parameters back into the whole model's.
    pub fn put(&self, shard: &[f32], whole: &mut [f32]) {
        for &(w, s, len) in &self.runs {
            whole[w..w + len].copy_from_slice(&shard[s..s + len]);
        }
    }
}

impl Trainer {
    /// Why this run's steps cannot be split by hidden units, if they cannot.
    pub fn hidden_split_blocker(&self) -> Option<&'static str> {
        if let Some(why) = self.split_blocker() {
            return Some(why);
        }
        if !matches!(&self.config.model, ModelConfig::Mlp { hidden, .. } if hidden.len() == 1) {
            return Some("only a network with one hidden layer splits by hidden units");
        }
        if matches!(self.config.optimizer, Optimizer::Lars { .. }) {
            return Some("LARS scales each layer's step by the whole layer's norm");
        }
        None
    }

    /// The config shard `i` of `n` is built from: this run with its share of the hidden units.
    pub fn hidden_shard_config(&self, n: usize, i: usize) -> TrainConfig {
        let mut config = self.config.clone();
        if let ModelConfig::Mlp { hidden, .. } = &mut config.model {
            if let Some(h) = hidden.first_mut() {
                let (h0, h1) = chunk(*h, n, i);
                *h = h1 - h0;
            }
        }
        config
    }

    /// Shard `i` of `n`: its config and where its parameters sit in this run's.
    pub fn hidden_shard(&self, n: usize, i: usize) -> Result<(TrainConfig, HiddenShard), Error> {
        let config = self.hidden_shard_config(n, i);
        let classes = self.compiled.classes();
        let compiled = config.spec(classes).compile().map_err(Error::from)?;
        let shard = HiddenShard::new(&self.compiled, &compiled, n, i)?;
        Ok((config, shard))
    }

    /// Phase 1 of a hidden-split step: this shard's part of every logit for the batch `rows`
    /// (exactly `config.batch` of them, the same on every shard), into `out` (batch × classes).
    pub async fn shard_outputs(&mut self, rows: &[u32], out: &mut Vec<f32>) -> Result<(), Error> {
        let scalars = self.gradient_batch(rows)?;
        let end = self.outputs_end();
        self.backend.run_train_range(0..end, &scalars);
        let logits = self.outputs_buffer();
        let len = self.config.batch * self.compiled.classes();
        self.backend.read_f32_into(logits, len, out).await
    }

    /// Phase 2: with `logits` the shards' parts added up, the loss, the backward and this
    /// shard's optimizer update, as step `step` of the run. A step whose loss is not finite stops
    /// the run there.
    pub async fn shard_finish(
        &mut self,
        logits: &[f32],
        shard: &HiddenShard,
        step: u64,
    ) -> Result<StepMetrics, TrainError> {
        let scalars = StepScalars {
            slot: 0,
            t: (step + 1) as u32,
            lr: self.learning_rate_at(step + 1),
            ..Default::default()
        };
        self.backend.write_f32(self.outputs_buffer(), logits);
        let all = self.backend.plan().train.len();
        self.backend.run_train_range(self.outputs_end()..all, &scalars);
        self.step = step + 1;
        if let Some((at, len)) = shard.bias {
            // Only shard 0's output bias counts; the others' stays zero.
            self.backend.write_f32_at(self.host.params, at, &vec![0.0; len]);
        }
        let read = |id| self.backend.read_f32(id, 1);
        let loss = read(self.host.log_loss).await.map_err(TrainError::Device)?[0];
        let accuracy = read(self.host.log_accuracy).await.map_err(TrainError::Device)?[0];
        if !loss.is_finite() {
            return Err(TrainError::Diverged { step: step + 1 });
        }
        Ok(StepMetrics {
            step: step + 1,
            loss,
            accuracy,
        })
    }

    /// Where the forward pass ends in the training kernels: after the last layer's.
    fn outputs_end(&self) -> usize {
        let spans = &self.backend.plan().layers;
        spans.forward.last().map_or(0, |r| r.end)
    }

    /// The buffer the last layer writes its outputs (the logits) to.
    fn outputs_buffer(&self) -> crate::kernel::BufId {
        *self
            .backend
            .plan()
            .layers
            .acts
            .last()
            .expect("a model has layers")
    }
}
