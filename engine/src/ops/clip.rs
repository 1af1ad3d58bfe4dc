//! Clipping the gradient by its global norm (`shaders/clip.wgsl`, docs/theory.md §12.3): when
//! ‖g‖ exceeds `max_norm`, every gradient is scaled by max_norm / ‖g‖, so the step keeps its
//! direction but not its size (PyTorch's `clip_grad_norm_`). Two kernels: the norm (one workgroup)
//! and the scaling.

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

/// The factor min(1, max_norm / ‖g‖) and the norm ‖g‖.
pub fn clip_factor(grads: &[f32], max_norm: f32) -> (f32, f32) {
    let total = grads
        .iter()
        .map(|g| f64::from(*g) * f64::from(*g))
        .sum::<f64>()
        .sqrt() as f32;
    (if total > max_norm { max_norm / total } else { 1.0 }, total)
}

/// Writes [factor, ‖g‖] into `clip`.
#[derive(Clone)]
pub struct GradNorm {
    pub grads: BufId,
    pub clip: BufId,
    pub n: usize,
    pub max_norm: f32,
}

/// Scales every gradient by `clip`'s factor.
#[derive(Clone)]
pub struct ClipGrads {
    pub grads: BufId,
    pub clip: BufId,
    pub n: usize,
}

fn words(n: usize, max_norm: f32) -> Words {
    Words::default().u("n", n as u32).f("max_norm", max_norm)
}

impl Kernel for GradNorm {
    fn shader(&self) -> Shader {
        wgsl!("clip.wgsl", "norm")
    }
    fn params(&self, _: &StepScalars) -> Words {
        words(self.n, self.max_norm)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.grads), (2, self.clip)]
    }
    fn workgroups(&self) -> [u32; 3] {
        [1, 1, 1]
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let (factor, norm) = clip_factor(&bufs.f32(self.grads)[..self.n], self.max_norm);
        let mut clip = bufs.take_f32(self.clip);
        clip[..2].copy_from_slice(&[factor, norm]);
        bufs.put_f32(self.clip, clip);
    }
    fn bytes(&self) -> f64 {
        4.0 * (self.n + 2) as f64
    }
}

impl Kernel for ClipGrads {
    fn shader(&self) -> Shader {
        wgsl!("clip.wgsl", "scale")
    }
    fn params(&self, _: &StepScalars) -> Words {
        words(self.n, 0.0)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.grads), (2, self.clip)]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.n, 256)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let factor = bufs.f32(self.clip)[0];
        let mut grads = bufs.take_f32(self.grads);
        grads[..self.n].iter_mut().for_each(|g| *g *= factor);
        bufs.put_f32(self.grads, grads);
    }
    fn bytes(&self) -> f64 {
        4.0 * (2 * self.n + 1) as f64
    }
}
