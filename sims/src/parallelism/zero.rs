//! ZeRO's memory and traffic (Rajbhandari et al. 2020; docs/theory.md §8.2): data parallelism keeps
//! a whole copy of the weights, gradients and optimizer state on every worker; ZeRO's stages
//! partition them across the N workers — stage 1 the optimizer state, stage 2 the gradients too,
//! stage 3 the weights too — at the price of the collectives that gather the pieces back.

use serde::{Deserialize, Serialize};

/// Bytes per parameter of each tensor class (or, from [`per_device`], bytes in all).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassBytes {
    pub weights: f64,
    pub gradients: f64,
    pub optimizer: f64,
}

impl ClassBytes {
    /// fp32 training as the lab runs it: 4-byte weights and gradients, and `state_copies` more
    /// fp32 copies in the optimizer (SGD 0, momentum 1, Adam 2).
    pub fn fp32(state_copies: usize) -> Self {
        ClassBytes {
            weights: 4.0,
            gradients: 4.0,
            optimizer: 4.0 * state_copies as f64,
        }
    }

    /// Mixed-precision Adam as the paper counts it: fp16 weights and gradients (2 + 2 bytes) and
    /// K = 12 bytes of optimizer state (the fp32 master weights, momentum and variance).
    pub fn mixed_adam() -> Self {
        ClassBytes {
            weights: 2.0,
            gradients: 2.0,
            optimizer: 12.0,
        }
    }

    pub fn total(&self) -> f64 {
        self.weights + self.gradients + self.optimizer
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Stage {
    /// Plain data parallelism: everything replicated.
    None = 0,
    /// P_os: the optimizer state partitioned.
    Optimizer = 1,
    /// P_os+g: the gradients too.
    Gradients = 2,
    /// P_os+g+p: the weights too.
    Weights = 3,
}

impl Stage {
    pub const ALL: [Stage; 4] = [Stage::None, Stage::Optimizer, Stage::Gradients, Stage::Weights];

    pub fn label(self) -> &'static str {
        match self {
            Stage::None => "data parallel",
            Stage::Optimizer => "ZeRO-1 (optimizer state)",
            Stage::Gradients => "ZeRO-2 (+ gradients)",
            Stage::Weights => "ZeRO-3 (+ weights)",
        }
    }
}

/// Bytes of each class on one of `workers` devices for a model of `params` parameters.
pub fn per_device(bytes: ClassBytes, params: f64, workers: usize, stage: Stage) -> ClassBytes {
    let n = workers.max(1) as f64;
    let share = |class: f64, partitioned: bool| class * params / if partitioned { n } else { 1.0 };
    ClassBytes {
        weights: share(bytes.weights, stage >= Stage::Weights),
        gradients: share(bytes.gradients, stage >= Stage::Gradients),
        optimizer: share(bytes.optimizer, stage >= Stage::Optimizer),
    }
}

/// Parameters' worth of values each device sends per step of `micro` micro-batches with ring
/// collectives, as DeepSpeed schedules them (docs/theory.md §8.2). Data parallelism and stage 1
/// accumulate the micro-batches' gradients locally and allreduce once: a reduce-scatter and an
/// allgather, 2(N − 1)/N · Ψ. Stage 2 keeps only its shard of the gradients, so it reduce-scatters
/// them after every micro-batch, then allgathers the updated weights once: (m + 1)(N − 1)/N · Ψ.
/// Stage 3 also keeps only its shard of the weights: every micro-batch gathers them for its forward
/// and again for its backward, and reduce-scatters its gradients: 3m(N − 1)/N · Ψ. With one
/// micro-batch stages 1 and 2 send what data parallelism sends and stage 3 1.5× (the paper's §7).
pub fn wire_values(params: f64, workers: usize, stage: Stage, micro: usize) -> f64 {
    let (n, m) = (workers.max(1) as f64, micro.max(1) as f64);
    let passes = match stage {
        Stage::None | Stage::Optimizer => 2.0,
        Stage::Gradients => m + 1.0,
        Stage::Weights => 3.0 * m,
    };
    passes * (n - 1.0) / n * params
}
