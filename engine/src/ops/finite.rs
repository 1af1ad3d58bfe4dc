//! Counts the non-finite values of a tensor (`shaders/finite.wgsl`): whether a reduced-precision
//! step's gradients overflowed, for the dynamic loss scaler.

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

/// ±∞ and NaN among `x`.
pub fn non_finite_cpu(x: &[f32]) -> u32 {
    x.iter().filter(|v| !v.is_finite()).count() as u32
}

/// count[0] = 0 (before a step), or count[0] += the non-finite values of x[..n].
#[derive(Clone)]
pub struct CountNonFinite {
    pub x: BufId,
    pub n: usize,
    pub count: BufId,
    pub clear: bool,
}

impl Kernel for CountNonFinite {
    fn bytes(&self) -> f64 {
        4.0 * self.n as f64
    }
    fn shader(&self) -> Shader {
        if self.clear {
            wgsl!("finite.wgsl", "clear")
        } else {
            wgsl!("finite.wgsl", "main")
        }
    }
    fn params(&self, _: &StepScalars) -> Words {
        Words::default().u("n", self.n as u32)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        if self.clear {
            vec![(2, self.count)]
        } else {
            vec![(1, self.x), (2, self.count)]
        }
    }
    fn workgroups(&self) -> [u32; 3] {
        if self.clear {
            [1, 1, 1]
        } else {
            groups_1d(self.n, 256)
        }
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let mut count = bufs.take_u32(self.count);
        count[0] = if self.clear {
            0
        } else {
            count[0] + non_finite_cpu(&bufs.f32(self.x)[..self.n])
        };
        bufs.put_u32(self.count, count);
    }
}
