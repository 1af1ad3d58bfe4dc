//! AdaGrad and RMSProp: per-parameter steps scaled by accumulated squared gradients
//! (`shaders/adagrad.wgsl`, `shaders/rmsprop.wgsl`).

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AdaptiveRule {
    /// A ← A + g²;  w ← w − η g / √(A + ε)
    AdaGrad { eps: f32 },
    /// A ← β A + (1 − β) g²;  w ← w − η g / (√A + ε)
    RmsProp { beta: f32, eps: f32 },
}

#[derive(Clone)]
pub struct Adaptive {
    pub grads: BufId,
    pub weights: BufId,
    pub accum: BufId,
    pub n: usize,
    pub rule: AdaptiveRule,
}

pub fn adaptive_cpu(g: &[f32], w: &mut [f32], a: &mut [f32], lr: f32, rule: AdaptiveRule) {
    for i in 0..w.len() {
        match rule {
            AdaptiveRule::AdaGrad { eps } => {
                a[i] += g[i] * g[i];
                w[i] -= lr * g[i] / (a[i] + eps).sqrt();
            }
            AdaptiveRule::RmsProp { beta, eps } => {
                a[i] = beta * a[i] + (1.0 - beta) * g[i] * g[i];
                w[i] -= lr * g[i] / (a[i].sqrt() + eps);
            }
        }
    }
}

impl AdaptiveRule {
    /// FLOPs a parameter of the update, as its shader computes it (theory §11.1): AdaGrad's
    /// A + g·g (2) and w − η·g / √(A + ε) (5); RMSProp's β·A + (1 − β)·g·g (4) and
    /// w − η·g / (√A + ε) (5).
    pub fn flops_per_param(self) -> f64 {
        match self {
            AdaptiveRule::AdaGrad { .. } => 7.0,
            AdaptiveRule::RmsProp { .. } => 9.0,
        }
    }
}

impl Kernel for Adaptive {
    fn flops(&self) -> f64 {
        self.rule.flops_per_param() * self.n as f64
    }
    fn bytes(&self) -> f64 {
        // Reads g, w, the accumulator; writes w and the accumulator.
        20.0 * self.n as f64
    }
    fn shader(&self) -> Shader {
        match self.rule {
            AdaptiveRule::AdaGrad { .. } => wgsl!("adagrad.wgsl", "main"),
            AdaptiveRule::RmsProp { .. } => wgsl!("rmsprop.wgsl", "main"),
        }
    }
    fn params(&self, step: &StepScalars) -> Words {
        let w = Words::default().u("n", self.n as u32).f("lr", step.lr);
        match self.rule {
            AdaptiveRule::AdaGrad { eps } => w.f("eps", eps),
            AdaptiveRule::RmsProp { beta, eps } => w.f("beta", beta).f("eps", eps),
        }
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.grads), (2, self.weights), (3, self.accum)]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.n, 256)
    }
    fn per_step(&self) -> bool {
        true
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, step: &StepScalars) {
        let (mut w, mut a) = (bufs.take_f32(self.weights), bufs.take_f32(self.accum));
        let n = self.n;
        adaptive_cpu(
            &bufs.f32(self.grads)[..n],
            &mut w[..n],
            &mut a[..n],
            step.lr,
            self.rule,
        );
        bufs.put_f32(self.weights, w);
        bufs.put_f32(self.accum, a);
    }
}
