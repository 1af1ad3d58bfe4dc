//! A pruning mask on the weights (`shaders/mask.wgsl`): w ← w · m after every update, so a
//! pruned weight stays zero through every optimizer (the sparsity lab's masked training).

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

#[derive(Clone)]
pub struct ApplyMask {
    /// One value per weight: 1 kept, 0 pruned.
    pub mask: BufId,
    pub weights: BufId,
    pub n: usize,
}

pub fn apply_mask_cpu(mask: &[f32], weights: &mut [f32]) {
    for (w, m) in weights.iter_mut().zip(mask) {
        *w *= m;
    }
}

impl Kernel for ApplyMask {
    fn shader(&self) -> Shader {
        wgsl!("mask.wgsl", "main")
    }
    fn params(&self, _: &StepScalars) -> Words {
        Words::default().u("n", self.n as u32)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.mask), (2, self.weights)]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.n, 256)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let mut w = bufs.take_f32(self.weights);
        apply_mask_cpu(&bufs.f32(self.mask)[..self.n], &mut w[..self.n]);
        bufs.put_f32(self.weights, w);
    }
}
