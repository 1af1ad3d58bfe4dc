//! The optimizer table (docs/theory.md §2) and learning-rate schedules. The update kernels live in
//! `ops/`; this file says which to run and with what hyper-parameters.

use serde::{Deserialize, Serialize};

use crate::kernel::{BufId, Kernel};
use crate::ops::adam::Adam;
use crate::ops::adaptive::{Adaptive, AdaptiveRule};
use crate::ops::lars::{LarsBuffers, LarsHyper, LarsNorms, LarsUpdate};
use crate::ops::sgd::{Sgd, SgdMode};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Optimizer {
    Sgd,
    Momentum {
        momentum: f32,
    },
    Nesterov {
        momentum: f32,
    },
    AdaGrad {
        eps: f32,
    },
    RmsProp {
        beta: f32,
        eps: f32,
    },
    Adam {
        beta1: f32,
        beta2: f32,
        eps: f32,
    },
    AdamW {
        beta1: f32,
        beta2: f32,
        eps: f32,
        weight_decay: f32,
    },
    Lars {
        momentum: f32,
        weight_decay: f32,
    },
}

impl Optimizer {
    pub fn adam() -> Self {
        Optimizer::Adam {
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
        }
    }

    /// Every optimizer with its usual hyper-parameters.
    pub fn all() -> [Optimizer; 8] {
        [
            Optimizer::Sgd,
            Optimizer::Momentum { momentum: 0.9 },
            Optimizer::Nesterov { momentum: 0.9 },
            Optimizer::AdaGrad { eps: 1e-8 },
            Optimizer::RmsProp { beta: 0.9, eps: 1e-7 },
            Optimizer::adam(),
            Optimizer::AdamW {
                beta1: 0.9,
                beta2: 0.999,
                eps: 1e-8,
                weight_decay: 0.01,
            },
            Optimizer::Lars {
                momentum: 0.9,
                weight_decay: 1e-4,
            },
        ]
    }

    pub fn label(&self) -> &'static str {
        match self {
            Optimizer::Sgd => "SGD",
            Optimizer::Momentum { .. } => "Momentum",
            Optimizer::Nesterov { .. } => "Nesterov",
            Optimizer::AdaGrad { .. } => "AdaGrad",
            Optimizer::RmsProp { .. } => "RMSProp",
            Optimizer::Adam { .. } => "Adam",
            Optimizer::AdamW { .. } => "AdamW",
            Optimizer::Lars { .. } => "LARS",
        }
    }

    /// The state vector that keeps a sum or running mean of squared gradients, and what it is
    /// called (0: `OptimizerState::a`, 1: `b`): the one a reduced format flushes first, since
    /// (1 − β)g² is far smaller than g.
    pub fn squared_gradients(&self) -> Option<(usize, &'static str)> {
        match self {
            Optimizer::Adam { .. } | Optimizer::AdamW { .. } => Some((1, "Adam's second moment v")),
            Optimizer::RmsProp { .. } => Some((0, "RMSProp's mean square")),
            Optimizer::AdaGrad { .. } => Some((0, "AdaGrad's sum of squares")),
            _ => None,
        }
    }

    /// Vectors the size of the weights the optimizer keeps besides them: none for SGD, a velocity
    /// or a squared-gradient sum for the one-moment methods (and LARS), Adam's two moments.
    pub fn state_vectors(&self) -> usize {
        match self {
            Optimizer::Sgd => 0,
            Optimizer::Momentum { .. }
            | Optimizer::Nesterov { .. }
            | Optimizer::AdaGrad { .. }
            | Optimizer::RmsProp { .. }
            | Optimizer::Lars { .. } => 1,
            Optimizer::Adam { .. } | Optimizer::AdamW { .. } => 2,
        }
    }

    /// A sensible starting learning rate (Keras defaults, docs/theory.md §2).
    pub fn default_learning_rate(&self) -> f32 {
        match self {
            Optimizer::Adam { .. } | Optimizer::AdamW { .. } | Optimizer::RmsProp { .. } => 1e-3,
            _ => 1e-2,
        }
    }
}

impl Default for Optimizer {
    fn default() -> Self {
        Self::adam()
    }
}

/// Buffers an optimizer works on: the flat parameters and gradients, two state vectors of the
/// same length, and for LARS the tensor bounds and their norms.
#[derive(Clone, Copy, Debug)]
pub struct OptimizerBuffers {
    pub grads: BufId,
    pub weights: BufId,
    pub state_a: BufId,
    pub state_b: BufId,
    pub bounds: BufId,
    pub norms: BufId,
    pub n: usize,
    pub segments: usize,
}

/// The update kernels of one step.
pub fn kernels(opt: Optimizer, b: OptimizerBuffers) -> Vec<Box<dyn Kernel>> {
    let (grads, weights, n) = (b.grads, b.weights, b.n);
    let sgd = |mode, momentum| -> Vec<Box<dyn Kernel>> {
        vec![Box::new(Sgd {
            grads,
            weights,
            velocity: b.state_a,
            n,
            momentum,
            mode,
        })]
    };
    let adaptive = |rule| -> Vec<Box<dyn Kernel>> {
        vec![Box::new(Adaptive {
            grads,
            weights,
            accum: b.state_a,
            n,
            rule,
        })]
    };
    let adam = |beta1, beta2, eps, weight_decay| -> Vec<Box<dyn Kernel>> {
        vec![Box::new(Adam {
            grads,
            weights,
            m: b.state_a,
            v: b.state_b,
            n,
            beta1,
            beta2,
            eps,
            weight_decay,
        })]
    };
    match opt {
        Optimizer::Sgd => sgd(SgdMode::Plain, 0.0),
        Optimizer::Momentum { momentum } => sgd(SgdMode::Momentum, momentum),
        Optimizer::Nesterov { momentum } => sgd(SgdMode::Nesterov, momentum),
        Optimizer::AdaGrad { eps } => adaptive(AdaptiveRule::AdaGrad { eps }),
        Optimizer::RmsProp { beta, eps } => adaptive(AdaptiveRule::RmsProp { beta, eps }),
        Optimizer::Adam { beta1, beta2, eps } => adam(beta1, beta2, eps, 0.0),
        Optimizer::AdamW {
            beta1,
            beta2,
            eps,
            weight_decay,
        } => adam(beta1, beta2, eps, weight_decay),
        Optimizer::Lars {
            momentum,
            weight_decay,
        } => {
            let lb = LarsBuffers {
                grads,
                weights,
                velocity: b.state_a,
                bounds: b.bounds,
                norms: b.norms,
                n,
                segments: b.segments,
            };
            let h = LarsHyper {
                momentum,
                weight_decay,
            };
            vec![
                Box::new(LarsNorms { b: lb, h }),
                Box::new(LarsUpdate { b: lb, h }),
            ]
        }
    }
}

/// One update of `w` by `opt` with the kernels' CPU twins, for small problems run on the host
/// (the optimizer lab's 2-D races): `a` and `b` are the optimizer's state vectors, `t` the step
/// from 1. LARS treats `w` as one tensor.
#[allow(clippy::too_many_arguments)]
pub fn step_cpu(opt: Optimizer, g: &[f32], w: &mut [f32], a: &mut [f32], b: &mut [f32], lr: f32, t: u32) {
    use crate::ops::{adam::adam_cpu, adaptive::adaptive_cpu, lars::lars_cpu, sgd::sgd_cpu};
    match opt {
        Optimizer::Sgd => sgd_cpu(g, w, a, lr, 0.0, SgdMode::Plain),
        Optimizer::Momentum { momentum } => sgd_cpu(g, w, a, lr, momentum, SgdMode::Momentum),
        Optimizer::Nesterov { momentum } => sgd_cpu(g, w, a, lr, momentum, SgdMode::Nesterov),
        Optimizer::AdaGrad { eps } => adaptive_cpu(g, w, a, lr, AdaptiveRule::AdaGrad { eps }),
        Optimizer::RmsProp { beta, eps } => adaptive_cpu(g, w, a, lr, AdaptiveRule::RmsProp { beta, eps }),
        Optimizer::Adam { beta1, beta2, eps } => adam_cpu(g, w, a, b, lr, beta1, beta2, eps, 0.0, t),
        Optimizer::AdamW {
            beta1,
            beta2,
            eps,
            weight_decay,
        } => adam_cpu(g, w, a, b, lr, beta1, beta2, eps, weight_decay, t),
        Optimizer::Lars {
            momentum,
            weight_decay,
        } => lars_cpu(
            g,
            w,
            a,
            &[0, w.len() as u32],
            lr,
            LarsHyper {
                momentum,
                weight_decay,
            },
        ),
    }
}

/// How the learning rate decays after warmup.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Decay {
    #[default]
    Constant,
    /// η · γ^⌊s / every⌋
    Step { every: u32, gamma: f32 },
    /// η · γ^s
    Exponential { gamma: f32 },
    /// η_min + (η − η_min) · (1 + cos(π · min(s, T) / T)) / 2
    Cosine { total_steps: u32, min_factor: f32 },
}

/// A learning-rate schedule: a linear warmup (docs/theory.md §2.10, Goyal et al.) from
/// `warmup_start · η` to η over `warmup_steps`, then `decay`, counted from the end of the warmup.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct Schedule {
    pub warmup_steps: u32,
    pub warmup_start: f32,
    pub decay: Decay,
}

impl Schedule {
    /// The learning rate of step t (from 1) for base rate `lr`.
    pub fn lr_at(&self, lr: f32, t: u32) -> f32 {
        let t = t.max(1);
        if t <= self.warmup_steps {
            let start = self.warmup_start * lr;
            return start + (lr - start) * t as f32 / self.warmup_steps as f32;
        }
        let s = t - self.warmup_steps - 1; // steps since the warmup ended, from 0
        match self.decay {
            Decay::Constant => lr,
            Decay::Step { every, gamma } => lr * gamma.powi((s / every.max(1)) as i32),
            Decay::Exponential { gamma } => lr * gamma.powi(s as i32),
            Decay::Cosine {
                total_steps,
                min_factor,
            } => {
                let total = total_steps.max(1) as f32;
                let progress = (s as f32).min(total) / total;
                let min = min_factor * lr;
                min + (lr - min) * (1.0 + (std::f32::consts::PI * progress).cos()) / 2.0
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warmup_ramps_linearly_to_the_base_rate() {
        let s = Schedule {
            warmup_steps: 4,
            warmup_start: 0.0,
            decay: Decay::Constant,
        };
        let lrs: Vec<f32> = (1..=6).map(|t| s.lr_at(0.8, t)).collect();
        assert_eq!(lrs, vec![0.2, 0.4, 0.6, 0.8, 0.8, 0.8]);
        let s = Schedule {
            warmup_steps: 2,
            warmup_start: 0.5,
            decay: Decay::Constant,
        };
        assert_eq!(s.lr_at(1.0, 1), 0.75);
    }

    #[test]
    fn decays_follow_their_formulas() {
        let step = Schedule {
            decay: Decay::Step {
                every: 10,
                gamma: 0.5,
            },
            ..Default::default()
        };
        assert_eq!(step.lr_at(1.0, 1), 1.0);
        assert_eq!(step.lr_at(1.0, 10), 1.0);
        assert_eq!(step.lr_at(1.0, 11), 0.5);
        assert_eq!(step.lr_at(1.0, 21), 0.25);
        let exp = Schedule {
            decay: Decay::Exponential { gamma: 0.9 },
            ..Default::default()
        };
        assert!((exp.lr_at(1.0, 3) - 0.81).abs() < 1e-6);
        let cos = Schedule {
            warmup_steps: 5,
            warmup_start: 0.0,
            decay: Decay::Cosine {
                total_steps: 100,
                min_factor: 0.1,
            },
        };
        assert_eq!(cos.lr_at(2.0, 6), 2.0);
        assert!(
            (cos.lr_at(2.0, 56) - 1.1).abs() < 1e-5,
            "half way: mean of max and min"
        );
        assert!((cos.lr_at(2.0, 106) - 0.2).abs() < 1e-6);
        assert!((cos.lr_at(2.0, 500) - 0.2).abs() < 1e-6, "stays at the floor");
    }
}
