//! L1 / L2 penalties on the weights, added to their gradients (`shaders/regularize.wgsl`).

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

#[derive(Clone)]
pub struct Regularize {
    pub weights: BufId,
    pub grads: BufId,
    pub bounds: BufId,
    pub n: usize,
    pub segments: usize,
    pub l1: f32,
    pub l2: f32,
}

/// g ← g + λ2 w + λ1 sign(w) on the weight tensors (even segments), biases untouched.
pub fn regularize_cpu(w: &[f32], g: &mut [f32], bounds: &[u32], l1: f32, l2: f32) {
    for seg in bounds.windows(2).step_by(2) {
        for i in seg[0] as usize..seg[1] as usize {
            // WGSL's sign(0) is 0, Rust's signum(0.0) is 1.
            let sign = if w[i] > 0.0 {
                1.0
            } else if w[i] < 0.0 {
                -1.0
            } else {
                0.0
            };
            g[i] += l2 * w[i] + l1 * sign;
        }
    }
}

impl Kernel for Regularize {
    fn shader(&self) -> Shader {
        wgsl!("regularize.wgsl", "main")
    }
    fn params(&self, _: &StepScalars) -> Words {
        Words::default()
            .u("n", self.n as u32)
            .u("segments", self.segments as u32)
            .f("l1", self.l1)
            .f("l2", self.l2)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.weights), (2, self.grads), (3, self.bounds)]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.n, 256)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let mut g = bufs.take_f32(self.grads);
        let bounds = bufs.u32(self.bounds)[..=self.segments].to_vec();
        regularize_cpu(bufs.f32(self.weights), &mut g, &bounds, self.l1, self.l2);
        bufs.put_f32(self.grads, g);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn penalizes_weights_only() {
        // Tensors: weight [0, 2), bias [2, 3), weight [3, 4), bias [4, 5).
        let w = [0.5, -2.0, 7.0, 0.0, 3.0];
        let mut g = [1.0; 5];
        regularize_cpu(&w, &mut g, &[0, 2, 3, 4, 5], 0.1, 0.01);
        assert_eq!(g, [1.0 + 0.005 + 0.1, 1.0 - 0.02 - 0.1, 1.0, 1.0, 1.0]);
    }
}
