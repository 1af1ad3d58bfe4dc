//! Mini-batch assembly from a data set kept on the device (`shaders/gather.wgsl`).

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

#[derive(Clone)]
pub struct Gather {
    /// f32 features, or bytes four to a word when `packed`.
    pub data_x: BufId,
    pub data_y: BufId,
    pub indices: BufId,
    pub batch_x: BufId,
    pub batch_y: BufId,
    pub rows: usize,
    pub dim: usize,
    pub packed: bool,
}

/// CPU twin of `packed`: byte i of the data (four to a word, little-endian) as byte / 255.
pub fn unpack_byte(words: &[u32], i: usize) -> f32 {
    ((words[i / 4] >> (8 * (i % 4))) & 255) as f32 / 255.0
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
    fn bytes(&self) -> f64 {
        // Reads the indices, the rows (a byte a value when packed) and labels; writes the batch.
        let value = if self.packed { 1 } else { 4 };
        (self.rows * (4 + value * self.dim + 4) + 4 * self.rows * (self.dim + 1)) as f64
    }
    fn shader(&self) -> Shader {
        if self.packed {
            wgsl!("gather.wgsl", "packed")
        } else {
            wgsl!("gather.wgsl", "main")
        }
    }
    fn params(&self, _: &StepScalars) -> Words {
        Words::default()
            .u("rows", self.rows as u32)
            .u("dim", self.dim as u32)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![
            (if self.packed { 6 } else { 1 }, self.data_x),
            (2, self.data_y),
            (3, self.indices),
            (4, self.batch_x),
            (5, self.batch_y),
        ]
    }
    fn strided(&self) -> bool {
        true
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.rows * self.dim, 256)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let (mut bx, mut by) = (bufs.take_f32(self.batch_x), bufs.take_u32(self.batch_y));
        if self.packed {
            let (words, labels) = (bufs.u32(self.data_x), bufs.u32(self.data_y));
            for (r, &src) in bufs.u32(self.indices)[..self.rows].iter().enumerate() {
                let src = src as usize;
                for d in 0..self.dim {
                    bx[r * self.dim + d] = unpack_byte(words, src * self.dim + d);
                }
                by[r] = labels[src];
            }
            bufs.put_f32(self.batch_x, bx);
            bufs.put_u32(self.batch_y, by);
            return;
        }
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
