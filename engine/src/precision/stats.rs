//! What a format does to a tensor (docs/theory.md §7.4): the histogram of its values' binary
//! exponents against the format's range, and the share of weight updates rounding erased.

use serde::{Deserialize, Serialize};

use super::Format;

/// Counts of a tensor's values by binary exponent: `counts[i]` holds the nonzero finite values
/// with ⌊log₂|v|⌋ = `lowest + i`; exponents outside the range fall in the end bins.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExponentHistogram {
    pub lowest: i32,
    pub counts: Vec<u64>,
    pub zeros: u64,
    /// ±∞ and NaN.
    pub non_finite: u64,
}

/// The exponent of a nonzero finite f32, ⌊log₂|v|⌋ (fp32's subnormals included).
pub fn exponent(v: f32) -> i32 {
    let bits = v.to_bits() & 0x7FFF_FFFF;
    let biased = (bits >> 23) as i32;
    if biased == 0 {
        // Subnormal: the leading one's position in the mantissa.
        -127 - (bits.leading_zeros() as i32 - 9)
    } else {
        biased - 127
    }
}

/// The histogram of `values`' exponents over [lowest, highest].
pub fn exponent_histogram(values: &[f32], lowest: i32, highest: i32) -> ExponentHistogram {
    let mut h = ExponentHistogram {
        lowest,
        counts: vec![0; (highest - lowest + 1).max(1) as usize],
        zeros: 0,
        non_finite: 0,
    };
    let last = h.counts.len() as i32 - 1;
    for &v in values {
        if !v.is_finite() {
            h.non_finite += 1;
        } else if v == 0.0 {
            h.zeros += 1;
        } else {
            h.counts[(exponent(v) - lowest).clamp(0, last) as usize] += 1;
        }
    }
    h
}

/// Where a tensor's nonzero values land in a format, as shares of them: flushed to zero, kept
/// as subnormals (fewer mantissa bits), normal, or overflowed (±∞, or saturated for E4M3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RangeShares {
    pub underflow: f64,
    pub subnormal: f64,
    pub normal: f64,
    pub overflow: f64,
}

/// The shares of the nonzero `values` (scaled by `scale`) in each part of `format`'s range,
/// judged by what rounding to the format gives: zero, below the smallest normal, above the
/// largest value (or saturated there). Give it values *before* they were stored in `format`
/// (for gradients, `Trainer::unrounded_gradients`, already times the loss scale): once rounded,
/// what flushed is a zero like any other and is not counted. A value already ±∞ or NaN counts
/// as overflowed.
pub fn range_shares(values: &[f32], scale: f32, format: Format) -> RangeShares {
    range_shares_by(values, |_| scale, format)
}

/// `range_shares` with value i scaled by `scale_of(i)`: each tensor by its own scale (delayed
/// scaling).
pub fn range_shares_by(values: &[f32], scale_of: impl Fn(usize) -> f32, format: Format) -> RangeShares {
    let spec = format.spec();
    let min_normal = format.min_normal() as f32;
    let (mut s, mut n) = (RangeShares::default(), 0u64);
    for (i, &v) in values.iter().enumerate() {
        let x = v * scale_of(i);
        if x == 0.0 {
            continue;
        }
        n += 1;
        let r = format.round(x, super::Rounding::Nearest, 0).abs();
        let bin = if !x.is_finite() {
            &mut s.overflow
        } else if r == 0.0 {
            &mut s.underflow
        } else if !r.is_finite() || (spec.saturates && r == spec.max && x.abs() > spec.max) {
            &mut s.overflow
        } else if r < min_normal {
            &mut s.subnormal
        } else {
            &mut s.normal
        };
        *bin += 1.0;
    }
    let n = n.max(1) as f64;
    for v in [&mut s.underflow, &mut s.subnormal, &mut s.normal, &mut s.overflow] {
        *v /= n;
    }
    s
}

/// The share of weights whose gradient was nonzero but whose stored value did not change in a
/// step: updates rounding erased (|Δw| under half a gap of the weight's format; Micikevicius et
/// al.'s reason for an fp32 master copy). Give it the gradients before rounding
/// (`Trainer::unrounded_gradients`): a weight whose gradient flushed to zero lost its update too.
pub fn lost_updates(before: &[f32], after: &[f32], grads: &[f32]) -> f64 {
    let (mut moved, mut lost) = (0u64, 0u64);
    for ((b, a), g) in before.iter().zip(after).zip(grads) {
        if *g != 0.0 && g.is_finite() {
            moved += 1;
            if a == b {
                lost += 1;
            }
        }
    }
    lost as f64 / moved.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponents_histograms_and_shares_of_known_values() {
        assert_eq!(exponent(1.0), 0);
        assert_eq!(exponent(-0.75), -1);
        assert_eq!(exponent(65504.0), 15);
        assert_eq!(exponent(f32::from_bits(1)), -149); // the smallest fp32 subnormal
        let h = exponent_histogram(&[1.0, 1.5, 0.25, 0.0, f32::INFINITY, 1e-30, 1e30], -3, 2);
        // Bins −3..2: 1e-30 (clamped), 0.25, none, 1.0 and 1.5, none, 1e30 (clamped).
        assert_eq!(h.counts, vec![1, 1, 0, 2, 0, 1]);
        assert_eq!((h.zeros, h.non_finite), (1, 1));
        // fp16: 1e-8 flushes, 1e-6 is subnormal, 1.0 normal, 1e5 overflows; zeros are left out.
        let s = range_shares(&[1e-8, 1e-6, 1.0, 1e5, 0.0], 1.0, Format::F16);
        assert_eq!(
            (s.underflow, s.subnormal, s.normal, s.overflow),
            (0.25, 0.25, 0.25, 0.25)
        );
        // × 2^10 lifts 1e-8 into the subnormals and pushes 1e5 further out.
        let s = range_shares(&[1e-8], 1024.0, Format::F16);
        assert_eq!(s.subnormal, 1.0);
        // E4M3 saturates: 1000 counts as overflow, 448 itself does not.
        let s = range_shares(&[1000.0, 448.0], 1.0, Format::E4m3);
        assert_eq!((s.overflow, s.normal), (0.5, 0.5));
    }

    /// Log-normal magnitudes placed so that about 1 % lie under half fp16's smallest subnormal
    /// (2⁻²⁵, where rounding to nearest gives zero): the share flushed is the share counted by
    /// hand against that bound, and about 1 %.
    #[test]
    fn log_normal_gradients_flush_the_share_below_half_the_smallest_subnormal() {
        let mut rng = crate::rng::Rng::new(7);
        let sigma = 2.0f64;
        // P(z < −2.326) = 1 %: ln|g| = ln 2⁻²⁵ + 2.326σ puts 1 % below 2⁻²⁵.
        let mu = (-25.0f64) * std::f64::consts::LN_2 + 2.326 * sigma;
        let values: Vec<f32> = (0..200_000)
            .map(|i| {
                let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
                sign * (mu + sigma * rng.normal() as f64).exp() as f32
            })
            .collect();
        let by_hand =
            values.iter().filter(|v| v.abs() <= 2f32.powi(-25)).count() as f64 / values.len() as f64;
        let s = range_shares(&values, 1.0, Format::F16);
        assert!(
            (s.underflow - by_hand).abs() < 1e-9,
            "{} vs {by_hand}",
            s.underflow
        );
        assert!((s.underflow - 0.01).abs() < 0.002, "about 1 %: {}", s.underflow);
        // ±∞ before rounding counts as overflowed, not skipped.
        let s = range_shares(&[1.0, f32::INFINITY], 1.0, Format::F16);
        assert_eq!((s.normal, s.overflow), (0.5, 0.5));
    }

    #[test]
    fn lost_updates_count_unchanged_weights_with_a_gradient() {
        let before = [1.0, 2.0, 3.0, 4.0];
        let after = [1.0, 2.5, 3.0, 4.0];
        let grads = [0.1, 0.1, 0.0, 0.2];
        // Weight 2 had no gradient; of the other three, 1 and 4 did not move.
        assert!((lost_updates(&before, &after, &grads) - 2.0 / 3.0).abs() < 1e-12);
    }
}
