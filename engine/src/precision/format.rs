//! Reduced-precision number formats, emulated: an fp32 value is rounded to the nearest value the
//! format can hold and kept as fp32 (docs/theory.md §7.1). The same arithmetic runs in
//! `shaders/quantize.wgsl`, so every WebGPU device trains in every format.

use serde::{Deserialize, Serialize};

/// A floating-point storage format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// IEEE single precision: nothing is rounded. (Also read as `fp32`, the name the labs show.)
    #[default]
    #[serde(alias = "fp32")]
    F32,
    /// IEEE half precision: 5 exponent bits, 10 mantissa bits; overflow gives ±∞.
    #[serde(alias = "fp16")]
    F16,
    /// bfloat16: fp32's 8 exponent bits, 7 mantissa bits; overflow gives ±∞.
    Bf16,
    /// OCP FP8 E4M3: 4 exponent bits, 3 mantissa bits, no infinity; finite overflow and ±∞
    /// saturate to ±448 (the saturating conversion training recipes use).
    E4m3,
    /// OCP FP8 E5M2: 5 exponent bits, 2 mantissa bits; overflow gives ±∞ (as fp16).
    E5m2,
}

/// How a value between two representable ones is rounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rounding {
    /// To the nearest, ties to the even mantissa (IEEE's default).
    #[default]
    Nearest,
    /// Up with probability equal to the distance from the value below, in units of the gap:
    /// unbiased on average (Gupta et al. 2015).
    Stochastic,
}

/// What a format's bit layout allows, as the rounding uses it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spec {
    /// Explicit mantissa bits.
    pub mantissa: u32,
    /// Exponent of the smallest normal value (2^emin); below it the gaps stay 2^(emin − mantissa).
    pub emin: i32,
    /// The largest finite value.
    pub max: f32,
    /// Overflow saturates to ±max (else it gives ±∞).
    pub saturates: bool,
    /// Bytes per value in memory.
    pub bytes: usize,
}

pub const ALL: [Format; 5] = [Format::F32, Format::F16, Format::Bf16, Format::E4m3, Format::E5m2];

impl Format {
    #[inline]
    pub fn spec(self) -> Spec {
        let spec = |mantissa, emin, max, saturates, bytes| Spec {
            mantissa,
            emin,
            max,
            saturates,
            bytes,
        };
        match self {
            Format::F32 => spec(23, -126, f32::MAX, false, 4),
            Format::F16 => spec(10, -14, 65504.0, false, 2),
            Format::Bf16 => spec(7, -126, f32::from_bits(0x7F7F_0000), false, 2),
            Format::E4m3 => spec(3, -6, 448.0, true, 1),
            Format::E5m2 => spec(2, -14, 57344.0, false, 1),
        }
    }

    /// The name used in settings, files and the CLI.
    pub fn name(self) -> &'static str {
        match self {
            Format::F32 => "fp32",
            Format::F16 => "fp16",
            Format::Bf16 => "bf16",
            Format::E4m3 => "e4m3",
            Format::E5m2 => "e5m2",
        }
    }

    pub fn parse(name: &str) -> Option<Format> {
        ALL.into_iter().find(|f| f.name() == name)
    }

    /// The code the shader switches on.
    pub fn code(self) -> u32 {
        ALL.iter().position(|f| *f == self).expect("listed") as u32
    }

    /// The smallest positive value: the least subnormal, 2^(emin − mantissa).
    pub fn min_subnormal(self) -> f64 {
        let s = self.spec();
        2f64.powi(s.emin - s.mantissa as i32)
    }

    /// The smallest positive normal value, 2^emin.
    pub fn min_normal(self) -> f64 {
        2f64.powi(self.spec().emin)
    }

    /// `x` rounded to this format (`noise` draws the stochastic rounding's threshold; any value
    /// for `Rounding::Nearest`). Inlined: it runs for every value of every rounded tensor, and
    /// in a loop the format's constants are then read once.
    #[inline(always)]
    pub fn round(self, x: f32, rounding: Rounding, noise: u32) -> f32 {
        let s = self.spec();
        let bits = x.to_bits();
        let sign = bits & 0x8000_0000;
        let magnitude = bits & 0x7FFF_FFFF;
        let stochastic = rounding == Rounding::Stochastic;
        match self {
            Format::F32 => x,
            // bf16 is fp32's upper half: round the low 16 bits away in integers (fp32's
            // subnormals included, which GPU arithmetic may flush to zero).
            Format::Bf16 => {
                if magnitude >= 0x7F80_0000 {
                    return x; // ±∞ and NaN
                }
                let add = if stochastic {
                    noise & 0xFFFF
                } else {
                    0x7FFF + ((magnitude >> 16) & 1)
                };
                f32::from_bits(sign | ((magnitude + add) & 0xFFFF_0000))
            }
            _ => {
                if magnitude > 0x7F80_0000 {
                    return x; // NaN
                }
                let overflow = f32::from_bits(sign | if s.saturates { s.max.to_bits() } else { 0x7F80_0000 });
                let a = f32::from_bits(magnitude);
                if a >= 2.0 * s.max {
                    return overflow; // ±∞ included
                }
                // The gap between neighbours at a's binade: 2^(e − mantissa), e at least emin.
                let e = ((magnitude >> 23) as i32 - 127).max(s.emin);
                let m = s.mantissa as i32;
                let t = a * pow2(m - e); // exact: a power-of-two scaling into [0, 2^(m+1))
                let k = if stochastic {
                    let below = t.floor();
                    // Up when the threshold in (0, 1] is at most the fraction: P = fraction.
                    let threshold = ((noise >> 8) + 1) as f32 / 16_777_216.0;
                    below + if t - below >= threshold { 1.0 } else { 0.0 }
                } else {
                    round_half_even(t)
                };
                let r = k * pow2(e - m);
                if r > s.max {
                    return overflow;
                }
                f32::from_bits(sign | r.to_bits())
            }
        }
    }
}

/// `t` rounded to the nearest integer, ties to even, for 0 ≤ t < 2²³: adding 2²³ leaves no bits
/// below the units, so the addition itself rounds (IEEE's default mode), and subtracting it back is
/// exact. `f32::round_ties_even` is a call into libm on x86-64 without SSE4.1, and this runs for
/// every value of every rounded tensor.
#[inline(always)]
fn round_half_even(t: f32) -> f32 {
    const SHIFT: f32 = 8_388_608.0; // 2^23
    debug_assert!((0.0..SHIFT).contains(&t));
    (t + SHIFT) - SHIFT
}

/// 2^n as an f32, n in [−126, 127].
fn pow2(n: i32) -> f32 {
    f32::from_bits(((127 + n) as u32) << 23)
}

/// The noise of value `i` of a tensor at a step, identical in `shaders/quantize.wgsl`.
pub fn noise(seed: u32, i: u32) -> u32 {
    use crate::rng::lowbias32 as hash;
    hash(hash(seed) ^ i)
}

/// Rounds `values` in place to `format`; value i takes `noise(seed, i)`.
pub fn round_slice(values: &mut [f32], format: Format, rounding: Rounding, seed: u32) {
    if format == Format::F32 {
        return;
    }
    round_scaled_slice(values, 1.0, format, rounding, seed);
}

/// Each value times `factor`, rounded to `format` (fp32: only scaled), in one pass; value i takes
/// `noise(seed, i)`. The CPU twin of `shaders/quantize.wgsl`.
pub fn round_scaled_slice(values: &mut [f32], factor: f32, format: Format, rounding: Rounding, seed: u32) {
    if rounding == Rounding::Stochastic {
        for (i, v) in values.iter_mut().enumerate() {
            *v = format.round(*v * factor, rounding, noise(seed, i as u32));
        }
        return;
    }
    // Nearest rounding draws no noise (the hash is most of a stochastic value's cost) and runs
    // branch-free, one loop per format so that its constants fold: the CPU path rounds every
    // tensor of a reduced-precision step.
    fn each(values: &mut [f32], factor: f32, round: impl Fn(f32) -> f32) {
        values.iter_mut().for_each(|v| *v = round(*v * factor));
    }
    match format {
        Format::F32 => {
            if factor != 1.0 {
                values.iter_mut().for_each(|v| *v *= factor);
            }
        }
        Format::Bf16 => each(values, factor, nearest_bf16),
        Format::F16 => each(values, factor, |x| nearest_by_gap(x, Format::F16.spec())),
        Format::E4m3 => each(values, factor, |x| nearest_by_gap(x, Format::E4m3.spec())),
        Format::E5m2 => each(values, factor, |x| nearest_by_gap(x, Format::E5m2.spec())),
    }
}

/// `Format::Bf16.round(x, Nearest, _)` without a branch.
#[inline(always)]
fn nearest_bf16(x: f32) -> f32 {
    let bits = x.to_bits();
    let magnitude = bits & 0x7FFF_FFFF;
    let rounded = ((magnitude + 0x7FFF + ((magnitude >> 16) & 1)) & 0xFFFF_0000) | (bits & 0x8000_0000);
    f32::from_bits(if magnitude >= 0x7F80_0000 { bits } else { rounded })
}

/// `x` rounded to nearest in a format with 2 to 10 mantissa bits, as `Format::round` does, without
/// a branch: adding C = 2^(e − m + 23), whose units are the gap at x's binade e, rounds x to the
/// gap (ties to even, IEEE's default mode), and subtracting C back is exact.
#[inline(always)]
fn nearest_by_gap(x: f32, s: Spec) -> f32 {
    let bits = x.to_bits();
    let sign = bits & 0x8000_0000;
    let magnitude = bits & 0x7FFF_FFFF;
    let a = f32::from_bits(magnitude);
    // Binades above 2·max overflow whatever C gives: clamped so that C stays a finite power.
    let e = ((magnitude >> 23) as i32 - 127).clamp(s.emin, 64);
    let c = f32::from_bits(((e - s.mantissa as i32 + 23 + 127) as u32) << 23);
    let r = (a + c) - c;
    let overflow = sign | if s.saturates { s.max.to_bits() } else { 0x7F80_0000 };
    let out = if a >= 2.0 * s.max || r > s.max {
        overflow
    } else {
        sign | r.to_bits()
    };
    f32::from_bits(if magnitude > 0x7F80_0000 { bits } else { out })
}
