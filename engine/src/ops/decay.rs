//! Decoupled weight decay on a slice of the parameters (`shaders/decay.wgsl`): w ← (1 − η λ) w.
//! Before an Adam update with λ = 0 it makes that update exactly AdamW's on the slice, so a model
//! can decay its weight matrices and embeddings and leave its biases alone (theory §12.5).

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

#[derive(Clone)]
pub struct DecaySlice {
    pub weights: BufId,
    pub off: usize,
    pub n: usize,
    /// λ; the step's learning rate η comes with the step.
    pub decay: f32,
}

/// The CPU twin: `w` is the slice.
pub fn decay_cpu(w: &mut [f32], lr: f32, decay: f32) {
    let keep = 1.0 - lr * decay;
    w.iter_mut().for_each(|x| *x *= keep);
}

impl Kernel for DecaySlice {
    fn shader(&self) -> Shader {
        wgsl!("decay.wgsl", "main")
    }
    fn params(&self, step: &StepScalars) -> Words {
        Words::default()
            .u("off", self.off as u32)
            .u("n", self.n as u32)
            .f("lr", step.lr)
            .f("decay", self.decay)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.weights)]
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
        let mut w = bufs.take_f32(self.weights);
        decay_cpu(&mut w[self.off..self.off + self.n], step.lr, self.decay);
        bufs.put_f32(self.weights, w);
    }
    fn bytes(&self) -> f64 {
        8.0 * self.n as f64
    }
}
