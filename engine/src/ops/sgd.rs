//! SGD, momentum and Nesterov (`shaders/sgd.wgsl`).

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SgdMode {
    Plain = 0,
    Momentum = 1,
    Nesterov = 2,
}

#[derive(Clone)]
pub struct Sgd {
    pub grads: BufId,
    pub weights: BufId,
    pub velocity: BufId,
    pub n: usize,
    pub momentum: f32,
    pub mode: SgdMode,
}

pub fn sgd_cpu(g: &[f32], w: &mut [f32], v: &mut [f32], lr: f32, momentum: f32, mode: SgdMode) {
    for i in 0..w.len() {
        match mode {
            SgdMode::Plain => w[i] -= lr * g[i],
            SgdMode::Momentum => {
                v[i] = momentum * v[i] - lr * g[i];
                w[i] += v[i];
            }
            SgdMode::Nesterov => {
                v[i] = momentum * v[i] - lr * g[i];
                w[i] += momentum * v[i] - lr * g[i];
            }
        }
    }
}

/// FLOPs a parameter of each mode's update, as `sgd.wgsl` computes it (theory §11.1: every
/// arithmetic operation on a per-parameter value counts 1; products of scalars alone, none):
/// plain w − η·g is 2; momentum v = μ·v − η·g, w + v is 4; Nesterov adds w + μ·v − η·g, 7.
pub fn sgd_flops_per_param(mode: SgdMode) -> f64 {
    match mode {
        SgdMode::Plain => 2.0,
        SgdMode::Momentum => 4.0,
        SgdMode::Nesterov => 7.0,
    }
}

impl Kernel for Sgd {
    fn flops(&self) -> f64 {
        sgd_flops_per_param(self.mode) * self.n as f64
    }
    fn bytes(&self) -> f64 {
        // Reads g and w, writes w; with momentum reads and writes the velocity too.
        let per = if self.momentum == 0.0 { 12.0 } else { 20.0 };
        per * self.n as f64
    }
    fn shader(&self) -> Shader {
        wgsl!("sgd.wgsl", "main")
    }
    fn constants(&self, _fine: bool) -> Vec<(&'static str, f64)> {
        // One pipeline per mode used (`MODE` in the shader).
        vec![("MODE", self.mode as u32 as f64)]
    }
    fn params(&self, step: &StepScalars) -> Words {
        Words::default()
            .u("n", self.n as u32)
            .f("lr", step.lr)
            .f("momentum", self.momentum)
            .u("mode", self.mode as u32)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.grads), (2, self.weights), (3, self.velocity)]
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
        let (mut w, mut v) = (bufs.take_f32(self.weights), bufs.take_f32(self.velocity));
        let n = self.n;
        let g = &bufs.f32(self.grads)[..n];
        sgd_cpu(g, &mut w[..n], &mut v[..n], step.lr, self.momentum, self.mode);
        bufs.put_f32(self.weights, w);
        bufs.put_f32(self.velocity, v);
    }
}
