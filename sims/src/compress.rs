//! Gradient compression for data-parallel training (docs/theory.md §6.4): top-k and random-k
//! sparsification, b-bit quantization with stochastic rounding, ternary; error feedback keeps what
//! compression dropped and adds it to the next gradient (e ← e + g − C(e + g)).
//!
//! Two families, for two uses. Without error feedback the stochastic compressors are *unbiased*
//! (E C(x) = x: random-k scaled by 1/fraction, b-bit levels ±max|x|, TernGrad). Error feedback
//! needs a *contractive* compressor instead, ‖C(x) − x‖² ≤ (1 − δ)‖x‖² for some δ > 0, or the
//! memory grows without bound: under it random-k is left unscaled (Stich et al. 2018) and 1-bit is
//! the scaled sign ‖x‖₁/d · sign(x) (Karimireddy et al. 2019). The multi-bit quantizers and ternary
//! are unbiased only, and are not offered with error feedback.

use serde::{Deserialize, Serialize};

use engine::rng::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Compression {
    #[default]
    None,
    /// The `fraction` of coordinates largest in magnitude.
    TopK { fraction: f32 },
    /// A random `fraction` of coordinates, scaled by 1/fraction so the expectation is exact.
    RandomK { fraction: f32 },
    /// 2^bits levels evenly from −max|g| to max|g|, stochastically rounded (unbiased).
    Quantize { bits: u32 },
    /// max|g| · sign(g) with probability |g| / max|g|, else 0 (TernGrad; unbiased).
    Ternary,
}

impl Compression {
    /// Coordinates kept of `n` (sparsifiers), or `n`.
    pub fn kept(self, n: usize) -> usize {
        match self {
            Compression::TopK { fraction } | Compression::RandomK { fraction } => {
                ((n as f32 * fraction).ceil() as usize).clamp(1, n.max(1))
            }
            _ => n,
        }
    }

    /// Bytes one worker's compressed gradient of `n` values takes on the wire: sparse values
    /// with their 4-byte indices, quantized values at their bit width plus a 4-byte scale.
    pub fn bytes(self, n: usize) -> f64 {
        match self {
            Compression::None => 4.0 * n as f64,
            Compression::TopK { .. } | Compression::RandomK { .. } => 8.0 * self.kept(n) as f64,
            Compression::Quantize { bits } => bits as f64 * n as f64 / 8.0 + 4.0,
            Compression::Ternary => 2.0 * n as f64 / 8.0 + 4.0,
        }
    }

    /// A short name for tables and legends.
    pub fn label(self) -> String {
        match self {
            Compression::None => "none".into(),
            Compression::TopK { fraction } => format!("top-k {}%", fraction * 100.0),
            Compression::RandomK { fraction } => format!("random-k {}%", fraction * 100.0),
            Compression::Quantize { bits } => format!("{bits}-bit"),
            Compression::Ternary => "ternary".into(),
        }
    }

    /// Whether error feedback may be used with it: a contractive form exists (top-k, random-k
    /// unscaled, 1-bit as scaled sign). Multi-bit and ternary quantizers are unbiased but not
    /// contractive, so their error memory could grow without bound.
    pub fn supports_error_feedback(self) -> bool {
        matches!(
            self,
            Compression::TopK { .. } | Compression::RandomK { .. } | Compression::Quantize { bits: 1 }
        )
    }

    /// The name of what is sent under error feedback, where it differs from the unbiased form.
    pub fn error_feedback_label(self) -> String {
        match self {
            Compression::RandomK { fraction } => format!("random-k {}% unscaled", fraction * 100.0),
            Compression::Quantize { bits: 1 } => "scaled sign".into(),
            c => c.label(),
        }
    }

    /// The contractive form used under error feedback: random-k without the 1/fraction scale,
    /// 1-bit as the scaled sign ‖x‖₁/d · sign(x); top-k is contractive as it is.
    pub fn apply_contractive(self, g: &[f32], rng: &mut Rng) -> Vec<f32> {
        match self {
            Compression::RandomK { .. } => random_k(g, self.kept(g.len()), 1.0, rng),
            Compression::Quantize { bits: 1 } => {
                let scale = (g.iter().map(|v| v.abs() as f64).sum::<f64>() / g.len().max(1) as f64) as f32;
                g.iter().map(|&x| if x < 0.0 { -scale } else { scale }).collect()
            }
            c => c.apply(g, rng),
        }
    }

    /// Compresses a vector it may consume (no copy when there is no compression).
    pub fn apply_owned(self, g: Vec<f32>, rng: &mut Rng) -> Vec<f32> {
        if self == Compression::None {
            g
        } else {
            self.apply(&g, rng)
        }
    }

    /// The compressed (and decompressed) vector.
    pub fn apply(self, g: &[f32], rng: &mut Rng) -> Vec<f32> {
        if g.is_empty() {
            return Vec::new();
        }
        match self {
            Compression::None => g.to_vec(),
            Compression::TopK { .. } => {
                let k = self.kept(g.len());
                let mut order: Vec<usize> = (0..g.len()).collect();
                order.select_nth_unstable_by(k - 1, |a, b| g[*b].abs().total_cmp(&g[*a].abs()));
                let mut out = vec![0.0; g.len()];
                for &i in &order[..k] {
                    out[i] = g[i];
                }
                out
            }
            Compression::RandomK { .. } => {
                let k = self.kept(g.len());
                random_k(g, k, g.len() as f32 / k as f32, rng)
            }
            Compression::Quantize { bits } => {
                let s = g.iter().fold(0.0f32, |m, v| m.max(v.abs()));
                if s == 0.0 {
                    return vec![0.0; g.len()];
                }
                let steps = ((1u64 << bits.clamp(1, 16)) - 1) as f32;
                let eps = 2.0 * s / steps;
                g.iter()
                    .map(|&x| {
                        let pos = (x + s) / eps;
                        let low = pos.floor();
                        let up = rng.uniform() < pos - low;
                        -s + (low + up as u8 as f32) * eps
                    })
                    .collect()
            }
            Compression::Ternary => {
                let s = g.iter().fold(0.0f32, |m, v| m.max(v.abs()));
                g.iter()
                    .map(|&x| {
                        if s > 0.0 && rng.uniform() < x.abs() / s {
                            s * x.signum()
                        } else {
                            0.0
                        }
                    })
                    .collect()
            }
        }
    }
}

/// `k` coordinates of `g` drawn at random, multiplied by `scale` (d/k unbiased, 1 contractive).
fn random_k(g: &[f32], k: usize, scale: f32, rng: &mut Rng) -> Vec<f32> {
    let mut order: Vec<usize> = (0..g.len()).collect();
    rng.shuffle(&mut order);
    let mut out = vec![0.0; g.len()];
    for &i in &order[..k.min(g.len())] {
        out[i] = g[i] * scale;
    }
    out
}

/// Error feedback: compresses e + g by the compressor's contractive form and keeps the remainder
/// in `e`. Only for compressors that [`Compression::supports_error_feedback`].
pub fn with_error_feedback(c: Compression, g: &[f32], e: &mut [f32], rng: &mut Rng) -> Vec<f32> {
    debug_assert!(c.supports_error_feedback(), "{c:?} has no contractive form");
    let corrected: Vec<f32> = g.iter().zip(e.iter()).map(|(g, e)| g + e).collect();
    let sent = c.apply_contractive(&corrected, rng);
    for ((e, c), s) in e.iter_mut().zip(&corrected).zip(&sent) {
        *e = c - s;
    }
    sent
}

/// Deep gradient compression's momentum correction (Lin et al. 2018): the worker's velocity
/// u ← μu + g, accumulated in `v` (the error memory) and compressed from there, so a coordinate
/// sent late carries the momentum it would have had; the sent coordinates' velocity is then
/// cleared (momentum factor masking), since the sum the server applies already holds it. The
/// server applies what arrives with plain SGD.
pub fn momentum_corrected(
    c: Compression,
    momentum: f32,
    g: &[f32],
    u: &mut [f32],
    v: &mut [f32],
    rng: &mut Rng,
) -> Vec<f32> {
    for (u, g) in u.iter_mut().zip(g) {
        *u = momentum * *u + g;
    }
    let sent = with_error_feedback(c, u, v, rng);
    for (u, s) in u.iter_mut().zip(&sent) {
        if *s != 0.0 {
            *u = 0.0;
        }
    }
    sent
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two steps of momentum correction worked by hand: top-1 of three coordinates, μ = 0.5.
    #[test]
    fn momentum_correction_matches_the_hand_count() {
        let top1 = Compression::TopK { fraction: 1.0 / 3.0 };
        let (mut u, mut v, mut rng) = (vec![0.0; 3], vec![0.0; 3], Rng::new(1));
        // Step 1: u = g = (4, 2, 1), v = u; the largest (4) is sent, its u and v cleared.
        let sent = momentum_corrected(top1, 0.5, &[4.0, 2.0, 1.0], &mut u, &mut v, &mut rng);
        assert_eq!(
            (sent, u.clone(), v.clone()),
            (vec![4.0, 0.0, 0.0], vec![0.0, 2.0, 1.0], vec![0.0, 2.0, 1.0])
        );
        // Step 2: g = (1, 1, 1): u = (1, 2, 1.5), v = (1, 4, 2.5); coordinate 1 (4) goes.
        let sent = momentum_corrected(top1, 0.5, &[1.0, 1.0, 1.0], &mut u, &mut v, &mut rng);
        assert_eq!(
            (sent, u, v),
            (vec![0.0, 4.0, 0.0], vec![1.0, 0.0, 1.5], vec![1.0, 0.0, 2.5])
        );
    }
}
