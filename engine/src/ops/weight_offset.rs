//! The weights at points of a loss-landscape slice, w = center + α·d1 + β·d2
//! (`shaders/weight_offset.wgsl`), (α, β) read from a list of points from the step's slot on,
//! one weight vector per point, side by side.

use crate::kernel::{groups_1d, live_points, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

#[derive(Clone)]
pub struct WeightOffset {
    pub center: BufId,
    pub d1: BufId,
    pub d2: BufId,
    /// (α, β) pairs, one per point.
    pub points: BufId,
    pub weights: BufId,
    pub n: usize,
    /// Points evaluated together (0 counts as 1): point q's weights start at q·n.
    pub count: usize,
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
        let live = live_points(self.count, step);
        Words::default()
            .u("n", self.n as u32)
            .u("slot", step.slot)
            .u("live", live as u32)
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
        let [x, _, _] = groups_1d(self.n, 256);
        [x, self.count.max(1) as u32, 1]
    }
    fn per_step(&self) -> bool {
        true
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, step: &StepScalars) {
        let mut w = bufs.take_f32(self.weights);
        let n = self.n;
        for (q, out) in w.chunks_mut(n).take(live_points(self.count, step)).enumerate() {
            let slot = step.slot as usize + q;
            let (alpha, beta) = {
                let p = bufs.f32(self.points);
                (p[2 * slot], p[2 * slot + 1])
            };
            weight_offset_cpu(
                &bufs.f32(self.center)[..n],
                &bufs.f32(self.d1)[..n],
                &bufs.f32(self.d2)[..n],
                alpha,
                beta,
                out,
            );
        }
        bufs.put_f32(self.weights, w);
    }
}
