//! Mini-batch assembly from a data set kept on the device (`shaders/gather.wgsl`).

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

pub struct Gather {
    pub data_x: BufId,
    pub data_y: BufId,
    pub indices: BufId,
    pub batch_x: BufId,
    pub batch_y: BufId,
    pub rows: usize,
    pub dim: usize,
}

pub fn gather_cpu(
    data_x: &[f32],
    data_y: &[u32],
    indices: &[u32],
    batch_x: &mut [f32],
    batch_y: &mut [u32],
    dim: usize,
) {
    for (r, &src) in indices.iter().enumerate() {
        let src = src as usize;
        batch_x[r * dim..(r + 1) * dim].copy_from_slice(&data_x[src * dim..(src + 1) * dim]);
        batch_y[r] = data_y[src];
    }
}

impl Kernel for Gather {
    fn shader(&self) -> Shader {
        wgsl!("gather.wgsl", "main")
    }
    fn params(&self, _: &StepScalars) -> Words {
        Words::default().u(self.rows as u32).u(self.dim as u32)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![
            (1, self.data_x),
            (2, self.data_y),
            (3, self.indices),
            (4, self.batch_x),
            (5, self.batch_y),
        ]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.rows * self.dim, 256)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let (mut bx, mut by) = (bufs.take_f32(self.batch_x), bufs.take_u32(self.batch_y));
        gather_cpu(
            bufs.f32(self.data_x),
            bufs.u32(self.data_y),
            &bufs.u32(self.indices)[..self.rows],
            &mut bx,
            &mut by,
            self.dim,
        );
        bufs.put_f32(self.batch_x, bx);
        bufs.put_u32(self.batch_y, by);
    }
}
