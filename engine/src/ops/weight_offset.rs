//! The weights at one point of a loss-landscape slice, w = center + α·d1 + β·d2
//! (`shaders/weight_offset.wgsl`), (α, β) read from a list of points at the step's slot.

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

pub struct WeightOffset {
    pub center: BufId,
    pub d1: BufId,
    pub d2: BufId,
    /// (α, β) pairs, one per point.
    pub points: BufId,
    pub weights: BufId,
    pub n: usize,
}

pub fn weight_offset_cpu(center: &[f32], d1: &[f32], d2: &[f32], alpha: f32, beta: f32, out: &mut [f32]) {
    for (i, w) in out.iter_mut().enumerate() {
        *w = center[i] + alpha * d1[i] + beta * d2[i];
    }
}

impl Kernel for WeightOffset {
    fn shader(&self) -> Shader {
        wgsl!("weight_offset.wgsl", "main")
    }
    fn params(&self, step: &StepScalars) -> Words {
        Words::default().u(self.n as u32).u(step.slot)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![
            (1, self.center),
            (2, self.d1),
            (3, self.d2),
            (4, self.points),
            (5, self.weights),
        ]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.n, 256)
    }
    fn per_step(&self) -> bool {
        true
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, step: &StepScalars) {
        let slot = step.slot as usize;
        let (alpha, beta) = {
            let p = bufs.f32(self.points);
            (p[2 * slot], p[2 * slot + 1])
        };
        let mut w = bufs.take_f32(self.weights);
        let n = self.n;
        weight_offset_cpu(
            &bufs.f32(self.center)[..n],
            &bufs.f32(self.d1)[..n],
            &bufs.f32(self.d2)[..n],
            alpha,
            beta,
            &mut w[..n],
        );
        bufs.put_f32(self.weights, w);
    }
}
