//! Per-tensor delayed scaling, the recipe FP8 training uses (Micikevicius et al. 2022, §4; NVIDIA
//! Transformer Engine's `DelayedScaling`; docs/theory.md §7.3): every tensor a step stores in a
//! narrow format has its own scale, chosen from the largest magnitude (amax) that tensor took over
//! its last few steps, so that its values × the scale just fit the format. Each step records the
//! amax of every tensor as it stores it, and the next step's scales come from that history — hence
//! "delayed": no step waits on its own maximum. A value past the history's range saturates at the
//! format's largest, as the hardware's saturating conversion does (CUDA's `__NV_SATFINITE`), and
//! the history then holds it: one step clips, the next scales down.

use std::collections::VecDeque;

/// Steps of amax history each tensor keeps. Transformer Engine's default is 1,024; the lab's runs
/// are a thousand steps, and a scale should be seen to follow its tensor.
pub const HISTORY: u32 = 16;

/// Binades left free above the history's largest (Transformer Engine's `margin`, default 0).
pub const MARGIN: u32 = 0;

/// The scales stay within 2^±64: there, scaling an fp32 value and unscaling it are exact.
pub const MAX_EXPONENT: i32 = 64;

/// The exponent k of the scale 2^k that lifts `amax` as high as the format allows: the largest k
/// with amax·2^k ≤ `max`, less `margin` (clamped to ±`MAX_EXPONENT`). A power of two, so that
/// scaling and unscaling round nothing; None for an amax of 0, ±∞ or NaN (the scale stays).
pub fn scale_exponent(amax: f32, max: f32, margin: u32) -> Option<i32> {
    if !(amax.is_finite() && amax > 0.0) {
        return None;
    }
    let (amax, max) = (f64::from(amax.abs()), f64::from(max));
    // A first guess from the logarithm, then settled exactly: multiplying by 2^k is exact in f64.
    let mut k = (max / amax).log2().floor() as i32;
    while amax * 2f64.powi(k) > max {
        k -= 1;
    }
    while amax * 2f64.powi(k + 1) <= max {
        k += 1;
    }
    Some((k - margin as i32).clamp(-MAX_EXPONENT, MAX_EXPONENT))
}

/// The delayed scaler's state: each tensor's amax history and scale exponent.
#[derive(Clone, Debug, PartialEq)]
pub struct DelayedScaler {
    /// Each tensor's format's largest value.
    limits: Vec<f32>,
    history: Vec<VecDeque<f32>>,
    length: usize,
    margin: u32,
    /// The exponents the next step scales by (2^k each; 0 until a tensor has a history).
    pub exponents: Vec<i32>,
    /// The exponents the last step ran at.
    pub used: Vec<i32>,
}

impl DelayedScaler {
    /// A scaler of one tensor per entry of `limits` (its format's largest value), every scale 1.
    pub fn new(limits: Vec<f32>, history: u32, margin: u32) -> Self {
        let n = limits.len();
        Self {
            limits,
            history: vec![VecDeque::new(); n],
            length: history.max(1) as usize,
            margin,
            exponents: vec![0; n],
            used: vec![0; n],
        }
    }

    /// After a step that recorded each tensor's `amax`: the history moves on, and each scale is
    /// set from the largest amax it holds. A tensor whose amax is 0 or not finite keeps its scale
    /// and adds nothing to its history.
    pub fn after_step(&mut self, amax: &[f32]) {
        self.used.clone_from(&self.exponents);
        for (i, &a) in amax.iter().enumerate().take(self.limits.len()) {
            if !(a.is_finite() && a > 0.0) {
                continue;
            }
            let h = &mut self.history[i];
            if h.len() == self.length {
                h.pop_front();
            }
            h.push_back(a.abs());
            let largest = h.iter().copied().fold(0.0f32, f32::max);
            if let Some(k) = scale_exponent(largest, self.limits[i], self.margin) {
                self.exponents[i] = k;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_lifts_the_amax_to_just_under_the_format_s_largest() {
        // E4M3's 448 = 1.75·2⁸. An amax of 1 fits 2⁸ (256 ≤ 448 < 512); of 1.75 too (448 ≤ 448).
        assert_eq!(scale_exponent(1.0, 448.0, 0), Some(8));
        assert_eq!(scale_exponent(1.75, 448.0, 0), Some(8));
        assert_eq!(scale_exponent(1.76, 448.0, 0), Some(7));
        // Small gradients: 2⁻²⁰ in E5M2 (57344 = 1.75·2¹⁵) lifts by 2³⁵; a margin of 2 leaves two.
        assert_eq!(scale_exponent(2f32.powi(-20), 57344.0, 0), Some(35));
        assert_eq!(scale_exponent(2f32.powi(-20), 57344.0, 2), Some(33));
        // Large values scale down; the range is clamped; nothing to measure keeps the scale.
        assert_eq!(scale_exponent(1e4, 448.0, 0), Some(-5));
        assert_eq!(scale_exponent(1e-30, 448.0, 0), Some(MAX_EXPONENT));
        assert_eq!(scale_exponent(0.0, 448.0, 0), None);
        assert_eq!(scale_exponent(f32::NAN, 448.0, 0), None);
    }

    #[test]
    fn the_scale_follows_the_largest_amax_of_the_history() {
        let mut s = DelayedScaler::new(vec![448.0, 448.0], 3, 0);
        assert_eq!(s.exponents, [0, 0]);
        s.after_step(&[1.0, 0.0]);
        assert_eq!(
            (s.used.as_slice(), s.exponents.as_slice()),
            ([0, 0].as_slice(), [8, 0].as_slice())
        );
        // A spike of 4 sets 2⁶ (4·64 = 256 ≤ 448) for as long as it stays in the history …
        s.after_step(&[4.0, f32::INFINITY]);
        assert_eq!(s.exponents, [6, 0]);
        s.after_step(&[1.0, 0.5]);
        s.after_step(&[1.0, 0.5]);
        assert_eq!(s.exponents, [6, 9]);
        // … and the scale returns once three steps have passed it.
        s.after_step(&[1.0, 0.5]);
        assert_eq!((s.used[0], s.exponents[0]), (6, 8));
    }
}
