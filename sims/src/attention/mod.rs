//! The attention lab's study (docs/theory.md §12): a small transformer (`engine::transformer`)
//! trained on a generated task — copying a sequence, where a head learns to look the answer up by its position, or
//! modular addition, where weight decay brings grokking — once per weight decay asked for, on
//! the same data and initial weights. `run` trains one run in chunks and measures it after each;
//! `record` keeps what the page and the lessons read.

pub mod bench;
pub mod memory;
pub mod record;
pub mod record_check;
pub mod run;
pub mod shard_products;
pub mod split_check;
pub mod tensor_parallel;
pub mod tensor_parallel_backward;

use serde::{Deserialize, Serialize};

use engine::data::sequences::{copying, modular_addition, sorting};
use engine::data::Dataset;
use engine::optim::Optimizer;
use engine::transformer::TransformerConfig;

/// Copy (or sort) samples trained on, and tested on (fresh sequences).
pub const COPY_TRAIN: usize = 4096;
pub const COPY_TEST: usize = 512;

/// The task the transformer learns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Task {
    /// `len` random tokens, a separator, then the copy so far: predict the copy's next token.
    #[default]
    Copy,
    /// (a, b, =) → (a + b) mod p, on a share of the p² pairs; the rest are the test set.
    Modular,
    /// As copy, but written out in ascending order: predict the next smallest token.
    Sort,
}

impl Task {
    pub fn name(self) -> &'static str {
        match self {
            Task::Copy => "copy",
            Task::Modular => "modular",
            Task::Sort => "sort",
        }
    }

    /// Whether the sequence is `len` tokens, a separator, then them again (copied or sorted).
    pub fn repeats(self) -> bool {
        self != Task::Modular
    }
}

/// One experiment: the task, the model, the training, and the weight decays compared.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AttentionPlan {
    pub task: Task,
    /// The modulus (modular) or the tokens' vocabulary (copy).
    pub p: usize,
    /// The share of the p² pairs trained on (modular).
    pub train_fraction: f32,
    /// Tokens copied (copy).
    pub len: usize,
    pub width: usize,
    pub heads: usize,
    pub hidden: usize,
    pub blocks: usize,
    pub batch: usize,
    /// Pre-norm blocks and a final norm (GPT-2's layout).
    #[serde(default)]
    pub layer_norm: bool,
    pub steps: usize,
    /// Steps between measurements.
    pub every: usize,
    pub lr: f32,
    /// One run per weight decay (AdamW's λ; 0 is Adam).
    pub decays: Vec<f32>,
    pub seed: u64,
    /// The test sequence whose attention the page shows.
    pub example: usize,
}

impl AttentionPlan {
    /// The training and test sets: every pair split by `train_fraction` (modular), or fresh
    /// random sequences for each (copy).
    pub fn data(&self) -> (Dataset, Dataset) {
        match self.task {
            Task::Modular => modular_addition(self.p, self.train_fraction, self.seed),
            Task::Copy => (
                copying(self.p, self.len, COPY_TRAIN, self.seed),
                copying(self.p, self.len, COPY_TEST, self.seed.wrapping_add(1)),
            ),
            Task::Sort => (
                sorting(self.p, self.len, COPY_TRAIN, self.seed),
                sorting(self.p, self.len, COPY_TEST, self.seed.wrapping_add(1)),
            ),
        }
    }

    /// The model: the task's tokens and one more (the separator, or "=").
    pub fn config(&self) -> TransformerConfig {
        TransformerConfig {
            vocab: self.p + 1,
            seq: self.seq(),
            width: self.width,
            heads: self.heads,
            hidden: self.hidden,
            blocks: self.blocks,
            batch: self.batch,
            layer_norm: self.layer_norm,
        }
    }

    pub fn seq(&self) -> usize {
        match self.task {
            Task::Modular => 3,
            Task::Copy | Task::Sort => 2 * self.len,
        }
    }

    /// Adam's β₁, β₂ (the grokking papers') and ε, whatever the weight decay.
    pub const ADAM: (f32, f32, f32) = (0.9, 0.98, 1e-8);

    /// AdamW at weight decay `decay`, Adam at 0, both with [`Self::ADAM`].
    pub fn optimizer(decay: f32) -> Optimizer {
        let (beta1, beta2, eps) = Self::ADAM;
        if decay > 0.0 {
            Optimizer::AdamW {
                beta1,
                beta2,
                eps,
                weight_decay: decay,
            }
        } else {
            Optimizer::Adam { beta1, beta2, eps }
        }
    }

    /// Token `t`'s name on the page: a number, or the task's extra token.
    pub fn token_name(&self, t: usize) -> String {
        match (self.task, t == self.p) {
            (Task::Modular, true) => "=".into(),
            (Task::Copy | Task::Sort, true) => "#".into(),
            _ => t.to_string(),
        }
    }
}

/// A weight decay as the page's metric names write it (`test-acc-1`, `test-acc-0.1`).
pub fn decay_key(decay: f32) -> String {
    format!("{}", (decay * 1e4).round() / 1e4)
}
