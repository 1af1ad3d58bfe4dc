//! Counts the overflowed values of a tensor (`shaders/finite.wgsl`): whether a reduced-precision
//! step's gradients overflowed, for the dynamic loss scaler. A format that saturates (E4M3) never
//! gives ±∞, so there a value at the format's largest magnitude counts as an overflow too, as FP8
//! recipes count it (Micikevicius et al. 2022); else the scaler would grow its scale while ever
//! more gradients are clipped.

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

/// The values of `x` that overflowed: ±∞ and NaN, and with `saturates_at` those of that magnitude
/// or more.
pub fn overflowed_cpu(x: &[f32], saturates_at: Option<f32>) -> u32 {
    let saturated = |v: f32| saturates_at.is_some_and(|limit| v.abs() >= limit);
    x.iter().filter(|v| !v.is_finite() || saturated(**v)).count() as u32
}

/// count[0] = 0 (before a step), or count[0] += the overflowed values of x[..n].
#[derive(Clone)]
pub struct CountNonFinite {
    pub x: BufId,
    pub n: usize,
    pub count: BufId,
    pub clear: bool,
    /// The stored format's largest magnitude where it saturates (None: it overflows to ±∞).
    pub saturates_at: Option<f32>,
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
        Words::default()
            .u("n", self.n as u32)
            .u("saturates", self.saturates_at.is_some() as u32)
            .f("limit", self.saturates_at.unwrap_or(0.0))
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
            count[0] + overflowed_cpu(&bufs.f32(self.x)[..self.n], self.saturates_at)
        };
        bufs.put_u32(self.count, count);
    }
}
