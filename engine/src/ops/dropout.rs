//! Inverted dropout with a hashed mask (`shaders/dropout.wgsl`).

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

/// The shader's hash (lowbias32).
pub use crate::rng::lowbias32 as hash;

/// Whether value `i` survives at `step` (the same for the forward and the backward pass).
pub fn kept(seed: u32, step: u32, i: u32, keep: f32) -> bool {
    ((hash(hash(hash(seed) ^ step) ^ i) >> 8) as f32 / 16_777_216.0) < keep
}

/// Maps `x` to `y` (forward) or `dy` to `dx` (backward): the same arithmetic both ways.
#[derive(Clone)]
pub struct Dropout {
    pub x: BufId,
    pub y: BufId,
    pub n: usize,
    pub seed: u32,
    pub keep: f32,
}

pub fn dropout_cpu(x: &[f32], y: &mut [f32], seed: u32, step: u32, keep: f32) {
    for (i, (y, &x)) in y.iter_mut().zip(x).enumerate() {
        *y = if kept(seed, step, i as u32, keep) {
            x / keep
        } else {
            0.0
        };
    }
}

impl Kernel for Dropout {
    fn shader(&self) -> Shader {
        wgsl!("dropout.wgsl", "main")
    }
    fn params(&self, step: &StepScalars) -> Words {
        Words::default()
            .u("n", self.n as u32)
            .u("seed", self.seed)
            .u("step", step.t)
            .f("keep", self.keep)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.x), (2, self.y)]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.n, 256)
    }
    fn per_step(&self) -> bool {
        true
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, step: &StepScalars) {
        let mut y = bufs.take_f32(self.y);
        dropout_cpu(
            &bufs.f32(self.x)[..self.n],
            &mut y[..self.n],
            self.seed,
            step.t,
            self.keep,
        );
        bufs.put_f32(self.y, y);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_asked_fraction_and_preserves_the_mean() {
        let n = 100_000;
        let x = vec![1.0f32; n];
        let mut y = vec![0.0f32; n];
        dropout_cpu(&x, &mut y, 3, 1, 0.7);
        let kept = y.iter().filter(|&&v| v != 0.0).count() as f32 / n as f32;
        let mean = y.iter().sum::<f32>() / n as f32;
        assert!((kept - 0.7).abs() < 0.01, "kept {kept}");
        assert!((mean - 1.0).abs() < 0.02, "mean {mean}");
        let mut other = vec![0.0f32; n];
        dropout_cpu(&x, &mut other, 3, 2, 0.7);
        assert_ne!(y, other, "a new step draws a new mask");
    }
}
