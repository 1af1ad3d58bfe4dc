//! Adam and AdamW (`shaders/adam.wgsl`).

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

#[derive(Clone)]
pub struct Adam {
    pub grads: BufId,
    pub weights: BufId,
    pub m: BufId,
    pub v: BufId,
    pub n: usize,
    pub beta1: f32,
    pub beta2: f32,
    pub eps: f32,
    /// Decoupled weight decay λ (AdamW); 0 for Adam.
    pub weight_decay: f32,
}

/// Bias corrections (1 − β1ᵗ, 1 − β2ᵗ), computed in f64 so late steps stay exact.
pub fn bias_corrections(beta1: f32, beta2: f32, t: u32) -> (f32, f32) {
    let t = t.max(1) as i32;
    (
        (1.0 - (beta1 as f64).powi(t)) as f32,
        (1.0 - (beta2 as f64).powi(t)) as f32,
    )
}

#[allow(clippy::too_many_arguments)]
pub fn adam_cpu(
    g: &[f32],
    w: &mut [f32],
    m: &mut [f32],
    v: &mut [f32],
    lr: f32,
    beta1: f32,
    beta2: f32,
    eps: f32,
    weight_decay: f32,
    t: u32,
) {
    let (bc1, bc2) = bias_corrections(beta1, beta2, t);
    for i in 0..w.len() {
        m[i] = beta1 * m[i] + (1.0 - beta1) * g[i];
        v[i] = beta2 * v[i] + (1.0 - beta2) * g[i] * g[i];
        let m_hat = m[i] / bc1;
        let v_hat = v[i] / bc2;
        w[i] = w[i] - lr * m_hat / (v_hat.sqrt() + eps) - lr * weight_decay * w[i];
    }
}

/// FLOPs a parameter of Adam's and AdamW's update, as `adam.wgsl` computes it (theory §11.1):
/// m (3), v (4), m̂ and v̂ (2), √v̂ + ε (2), η·m̂ / (…) (2), w − … (1), the decay η·λ·w and its
/// subtraction (2, computed for Adam too, with λ = 0).
pub const ADAM_FLOPS_PER_PARAM: f64 = 16.0;

impl Kernel for Adam {
    fn flops(&self) -> f64 {
        ADAM_FLOPS_PER_PARAM * self.n as f64
    }
    fn bytes(&self) -> f64 {
        // Reads g, w, m, v; writes w, m, v.
        28.0 * self.n as f64
    }
    fn shader(&self) -> Shader {
        wgsl!("adam.wgsl", "main")
    }
    fn params(&self, step: &StepScalars) -> Words {
        let (bc1, bc2) = bias_corrections(self.beta1, self.beta2, step.t);
        Words::default()
            .u("n", self.n as u32)
            .f("lr", step.lr)
            .f("beta1", self.beta1)
            .f("beta2", self.beta2)
            .f("eps", self.eps)
            .f("bc1", bc1)
            .f("bc2", bc2)
            .f("weight_decay", self.weight_decay)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.grads), (2, self.weights), (3, self.m), (4, self.v)]
    }
    fn strided(&self) -> bool {
        true
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.n, 256)
    }
    fn per_step(&self) -> bool {
        true
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, step: &StepScalars) {
        let (mut w, mut m, mut v) = (
            bufs.take_f32(self.weights),
            bufs.take_f32(self.m),
            bufs.take_f32(self.v),
        );
        let n = self.n;
        adam_cpu(
            &bufs.f32(self.grads)[..n],
            &mut w[..n],
            &mut m[..n],
            &mut v[..n],
            step.lr,
            self.beta1,
            self.beta2,
            self.eps,
            self.weight_decay,
            step.t,
        );
        bufs.put_f32(self.weights, w);
        bufs.put_f32(self.m, m);
        bufs.put_f32(self.v, v);
    }
}
