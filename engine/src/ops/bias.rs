//! Bias of a dense layer: add in the forward pass, column sums in the backward (`shaders/bias.wgsl`).

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Points, Shader, StepScalars, Words};

/// Z[r, j] += bias[bias_off + j], for each point's `rows` rows with that point's bias.
#[derive(Clone)]
pub struct AddBias {
    pub params: BufId,
    pub bias_off: usize,
    pub z: BufId,
    pub rows: usize,
    pub cols: usize,
    pub points: Points,
}

/// dbias[bias_off + j] = Σ_r dZ[r, j].
#[derive(Clone)]
pub struct BiasGrad {
    pub dz: BufId,
    pub grads: BufId,
    pub bias_off: usize,
    pub rows: usize,
    pub cols: usize,
}

pub fn add_bias_cpu(bias: &[f32], z: &mut [f32], cols: usize) {
    for (i, v) in z.iter_mut().enumerate() {
        *v += bias[i % cols];
    }
}

pub fn bias_grad_cpu(dz: &[f32], dbias: &mut [f32], rows: usize, cols: usize) {
    for (j, out) in dbias.iter_mut().enumerate().take(cols) {
        *out = (0..rows).map(|r| dz[r * cols + j]).sum();
    }
}

fn words(rows: usize, cols: usize, bias_off: usize, points: Points, step: &StepScalars) -> Words {
    Words::default()
        .u("rows", rows as u32)
        .u("cols", cols as u32)
        .u("bias_off", bias_off as u32)
        .u("param_stride", points.param_stride as u32)
        .u("live", points.live(step) as u32)
}

impl Kernel for AddBias {
    fn bytes(&self) -> f64 {
        // Reads Z and the bias, writes Z, for each live point.
        4.0 * (self.points.n() * (2 * self.rows * self.cols + self.cols)) as f64
    }
    fn shader(&self) -> Shader {
        wgsl!("bias.wgsl", "add_bias")
    }
    fn params(&self, step: &StepScalars) -> Words {
        words(self.rows, self.cols, self.bias_off, self.points, step)
    }
    fn per_step(&self) -> bool {
        self.points.n() > 1
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.params), (2, self.z)]
    }
    fn workgroups(&self) -> [u32; 3] {
        let [x, _, _] = groups_1d(self.rows * self.cols, 256);
        [x, self.points.n() as u32, 1]
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, step: &StepScalars) {
        let mut z = bufs.take_f32(self.z);
        let n = self.rows * self.cols;
        for (q, block) in z.chunks_mut(n).take(self.points.live(step)).enumerate() {
            let off = q * self.points.param_stride + self.bias_off;
            let bias = &bufs.f32(self.params)[off..off + self.cols];
            add_bias_cpu(bias, block, self.cols);
        }
        bufs.put_f32(self.z, z);
    }
}

impl Kernel for BiasGrad {
    fn bytes(&self) -> f64 {
        4.0 * (self.rows * self.cols + self.cols) as f64
    }
    fn shader(&self) -> Shader {
        wgsl!("bias.wgsl", "bias_grad")
    }
    fn params(&self, _: &StepScalars) -> Words {
        words(
            self.rows,
            self.cols,
            self.bias_off,
            Points::default(),
            &StepScalars::default(),
        )
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(3, self.dz), (4, self.grads)]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.cols, 64)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let mut g = bufs.take_f32(self.grads);
        let out = &mut g[self.bias_off..self.bias_off + self.cols];
        bias_grad_cpu(bufs.f32(self.dz), out, self.rows, self.cols);
        bufs.put_f32(self.grads, g);
    }
}
