//! Rounds a tensor in place to a reduced-precision format (`shaders/quantize.wgsl`; CPU twin
//! `precision::Format::round`), optionally scaling it first by the step's loss scale or its
//! inverse: where a reduced-precision step stores a tensor, or unscales the gradients. Under
//! per-tensor delayed scaling (`precision::DelayedScaler`) it scales by the tensor's own 2^k,
//! saturates, rounds and unscales, and records the tensor's largest magnitude.

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
    /// The tensor's own scale under delayed scaling: x ← round(sat(x · 2^k)) · 2^−k, with k the
    /// tensor's entry of `exponents`, and (when `record`) its amax kept in `amax`.
    Tensor(TensorScale),
}

/// Where a tensor finds its delayed scale and leaves its amax.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorScale {
    /// Each tensor's scale exponent k (i32 bits), written by the host before each step.
    pub exponents: BufId,
    /// Each tensor's largest |x| this step (f32 bits, u32 max: a nonnegative float's bits order
    /// as its value), read and zeroed by the host after each step.
    pub amax: BufId,
    pub slot: u32,
    /// Prediction reads the scales but leaves the training history alone.
    pub record: bool,
}

/// The CPU twin of one tensor's scaled store: x's amax (as its bits, NaN above ±∞), then each
/// value saturated at the format's largest after scaling by 2^k, rounded, and unscaled.
pub fn tensor_scaled_cpu(x: &mut [f32], k: i32, format: Format, rounding: Rounding, seed: u32) -> u32 {
    let amax = x.iter().map(|v| v.to_bits() & 0x7FFF_FFFF).max().unwrap_or(0);
    let limit = format.spec().max * 2f32.powi(-k);
    for v in x.iter_mut() {
        if !v.is_nan() && v.abs() > limit {
            *v = limit.copysign(*v);
        }
    }
    round_scaled_slice(x, 2f32.powi(k), format, rounding, seed);
    let unscale = 2f32.powi(-k);
    x.iter_mut().for_each(|v| *v *= unscale);
    amax
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
            Scale::Tensor(_) => 1.0,
        }
    }

    fn tensor(&self) -> Option<TensorScale> {
        match self.scale {
            Scale::Tensor(t) => Some(t),
            _ => None,
        }
    }

    /// The noise seed of this tensor at this step.
    fn seed(&self, step: &StepScalars) -> u32 {
        noise(self.stream, step.t)
    }
}

impl Kernel for Quantize {
    fn shader(&self) -> Shader {
        match (self.src, self.scale) {
            (None, Scale::Tensor(_)) => wgsl!("quantize.wgsl", "tensor"),
            (Some(_), Scale::Tensor(_)) => wgsl!("quantize.wgsl", "tensor_copy"),
            (None, _) => wgsl!("quantize.wgsl", "main"),
            (Some(_), _) => wgsl!("quantize.wgsl", "copy"),
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
            .u("slot", self.tensor().map_or(0, |t| t.slot))
            .u("record", self.tensor().is_some_and(|t| t.record) as u32)
    }
    fn per_step(&self) -> bool {
        self.rounding == Rounding::Stochastic || self.scale != Scale::One
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        let mut b = vec![(1, self.x)];
        b.extend(self.src.map(|s| (2, s)));
        if let Some(t) = self.tensor() {
            b.extend([(3, t.exponents), (4, t.amax)]);
        }
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
        if let Some(t) = self.tensor() {
            let k = bufs.u32(t.exponents)[t.slot as usize] as i32;
            let amax = tensor_scaled_cpu(&mut x[range], k, self.format, self.rounding, seed);
            if t.record {
                let mut a = bufs.take_u32(t.amax);
                a[t.slot as usize] = a[t.slot as usize].max(amax);
                bufs.put_u32(t.amax, a);
            }
        } else {
            round_scaled_slice(&mut x[range], factor, self.format, self.rounding, seed);
        }
        bufs.put_f32(self.x, x);
    }
}
