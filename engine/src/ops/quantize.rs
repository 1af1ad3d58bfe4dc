//! Rounds a tensor in place to a reduced-precision format (`shaders/quantize.wgsl`; CPU twin
//! `precision::Format::round`), optionally scaling it first by the step's loss scale or its
//! inverse: where a reduced-precision step stores a tensor, or unscales the gradients.

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};
use crate::precision::{noise, round_scaled_slice, Format, Rounding};

/// What multiplies the values before they are rounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    One,
    /// × the step's loss scale (the loss's gradient, where backward starts).
    LossScale,
    /// × 1 / the step's loss scale (the weights' gradients, before the update).
    Unscale,
}

#[derive(Clone)]
pub struct Quantize {
    pub x: BufId,
    /// Read from here instead of `x` itself (a rounded copy).
    pub src: Option<BufId>,
    pub offset: usize,
    pub len: usize,
    pub format: Format,
    pub rounding: Rounding,
    pub scale: Scale,
    /// Tells this tensor's stochastic rounding noise from every other's.
    pub stream: u32,
}

impl Quantize {
    fn factor(&self, step: &StepScalars) -> f32 {
        match self.scale {
            Scale::One => 1.0,
            Scale::LossScale => step.loss_scale(),
            Scale::Unscale => 1.0 / step.loss_scale(),
        }
    }

    /// The noise seed of this tensor at this step.
    fn seed(&self, step: &StepScalars) -> u32 {
        noise(self.stream, step.t)
    }
}

impl Kernel for Quantize {
    fn shader(&self) -> Shader {
        match self.src {
            None => wgsl!("quantize.wgsl", "main"),
            Some(_) => wgsl!("quantize.wgsl", "copy"),
        }
    }
    fn params(&self, step: &StepScalars) -> Words {
        let s = self.format.spec();
        Words::default()
            .u("offset", self.offset as u32)
            .u("len", self.len as u32)
            .u("code", self.format.code())
            .u("mantissa", s.mantissa)
            // As a biased exponent: the uniform's words are u32 and f32.
            .u("emin_biased", (s.emin + 127) as u32)
            .f("max", s.max)
            .u("saturates", s.saturates as u32)
            .u("stochastic", (self.rounding == Rounding::Stochastic) as u32)
            .u("seed", self.seed(step))
            .f("scale", self.factor(step))
    }
    fn per_step(&self) -> bool {
        self.rounding == Rounding::Stochastic || self.scale != Scale::One
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        let mut b = vec![(1, self.x)];
        b.extend(self.src.map(|s| (2, s)));
        b
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.len, 256)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, step: &StepScalars) {
        let (factor, seed) = (self.factor(step), self.seed(step));
        let mut x = bufs.take_f32(self.x);
        let range = self.offset..self.offset + self.len;
        if let Some(src) = self.src {
            x[range.clone()].copy_from_slice(&bufs.f32(src)[range.clone()]);
        }
        round_scaled_slice(&mut x[range], factor, self.format, self.rounding, seed);
        bufs.put_f32(self.x, x);
    }
}
