//! The residual sum y = a + b (`shaders/add.wgsl`): a block's output plus its skip, and in the
//! backward pass the two gradients that reach a block's input.

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Points, Shader, StepScalars, Words};

/// y = a + b over `per_copy` values of each live copy; `b_shared`: one `b` for every copy.
#[derive(Clone)]
pub struct Add {
    pub a: BufId,
    pub b: BufId,
    pub y: BufId,
    pub per_copy: usize,
    pub points: Points,
    pub b_shared: bool,
}

pub fn add_cpu(a: &[f32], b: &[f32], y: &mut [f32]) {
    for ((y, a), b) in y.iter_mut().zip(a).zip(b) {
        *y = a + b;
    }
}

impl Kernel for Add {
    fn shader(&self) -> Shader {
        wgsl!("add.wgsl", "main")
    }
    fn params(&self, step: &StepScalars) -> Words {
        Words::default()
            .u("per_copy", self.per_copy as u32)
            .u("live", self.points.live(step) as u32)
            .u("b_shared", self.b_shared as u32)
    }
    fn per_step(&self) -> bool {
        self.points.n() > 1
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.a), (2, self.b), (3, self.y)]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.per_copy * self.points.n(), 256)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, step: &StepScalars) {
        let mut y = bufs.take_f32(self.y);
        let n = self.per_copy;
        for q in 0..self.points.live(step) {
            let b = if self.b_shared { 0 } else { q * n };
            add_cpu(
                &bufs.f32(self.a)[q * n..(q + 1) * n],
                &bufs.f32(self.b)[b..b + n],
                &mut y[q * n..(q + 1) * n],
            );
        }
        bufs.put_f32(self.y, y);
    }
}
