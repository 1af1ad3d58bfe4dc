//! SGD with momentum (`shaders/sgd.wgsl`).

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

pub struct Sgd {
    pub grads: BufId,
    pub weights: BufId,
    pub velocity: BufId,
    pub n: usize,
    pub momentum: f32,
}

/// v ← μ v − η g;  w ← w + v.
pub fn sgd_cpu(g: &[f32], w: &mut [f32], v: &mut [f32], lr: f32, momentum: f32) {
    for ((w, v), &g) in w.iter_mut().zip(v.iter_mut()).zip(g) {
        *v = momentum * *v - lr * g;
        *w += *v;
    }
}

impl Kernel for Sgd {
    fn shader(&self) -> Shader {
        wgsl!("sgd.wgsl", "main")
    }
    fn params(&self, step: &StepScalars) -> Words {
        Words::default().u(self.n as u32).f(step.lr).f(self.momentum)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.grads), (2, self.weights), (3, self.velocity)]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.n, 256)
    }
    fn per_step(&self) -> bool {
        true
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, step: &StepScalars) {
        let (mut w, mut v) = (bufs.take_f32(self.weights), bufs.take_f32(self.velocity));
        sgd_cpu(
            &bufs.f32(self.grads)[..self.n],
            &mut w[..self.n],
            &mut v[..self.n],
            step.lr,
            self.momentum,
        );
        bufs.put_f32(self.weights, w);
        bufs.put_f32(self.velocity, v);
    }
}
