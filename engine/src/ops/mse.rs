//! Mean squared error against one-hot targets (`shaders/mse.wgsl`).

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

#[derive(Clone)]
pub struct Mse {
    pub outputs: BufId,
    pub labels: BufId,
    pub loss: BufId,
    pub correct: BufId,
    pub d_outputs: BufId,
    pub rows: usize,
    pub classes: usize,
    /// One output against a real target (its f32 bits in `labels`) instead of one-hot classes.
    pub regression: bool,
}

/// CPU twin of `regression`.
pub fn mse_regression_cpu(
    o: &[f32],
    target_bits: &[u32],
    loss: &mut [f32],
    correct: &mut [f32],
    d: &mut [f32],
    rows: usize,
) {
    for r in 0..rows {
        let diff = o[r] - f32::from_bits(target_bits[r]);
        loss[r] = diff * diff;
        d[r] = 2.0 * diff / rows as f32;
        correct[r] = 0.0;
    }
}

pub fn mse_cpu(
    o: &[f32],
    labels: &[u32],
    loss: &mut [f32],
    correct: &mut [f32],
    d: &mut [f32],
    rows: usize,
    classes: usize,
) {
    for r in 0..rows {
        let y = labels[r] as usize;
        let (mut s, mut best) = (0.0, 0);
        for c in 0..classes {
            let diff = o[r * classes + c] - if c == y { 1.0 } else { 0.0 };
            s += diff * diff;
            d[r * classes + c] = 2.0 * diff / (rows * classes) as f32;
            if o[r * classes + c] > o[r * classes + best] {
                best = c;
            }
        }
        loss[r] = s / classes as f32;
        correct[r] = (best == y) as u8 as f32;
    }
}

impl Kernel for Mse {
    fn shader(&self) -> Shader {
        if self.regression {
            wgsl!("mse.wgsl", "regression")
        } else {
            wgsl!("mse.wgsl", "main")
        }
    }
    fn params(&self, _: &StepScalars) -> Words {
        Words::default()
            .u("rows", self.rows as u32)
            .u("classes", self.classes as u32)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![
            (1, self.outputs),
            (2, self.labels),
            (3, self.loss),
            (4, self.correct),
            (5, self.d_outputs),
        ]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.rows, 64)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let (mut loss, mut correct, mut d) = (
            bufs.take_f32(self.loss),
            bufs.take_f32(self.correct),
            bufs.take_f32(self.d_outputs),
        );
        let (o, y) = (bufs.f32(self.outputs), bufs.u32(self.labels));
        if self.regression {
            mse_regression_cpu(o, y, &mut loss, &mut correct, &mut d, self.rows);
        } else {
            mse_cpu(o, y, &mut loss, &mut correct, &mut d, self.rows, self.classes);
        }
        bufs.put_f32(self.loss, loss);
        bufs.put_f32(self.correct, correct);
        bufs.put_f32(self.d_outputs, d);
    }
}
