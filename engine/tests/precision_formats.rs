//! The emulated number formats (docs/theory.md §7.1): hand-checked roundings of every format, fp16
//! and bf16 against the `half` crate, stochastic rounding's mean, and the WGSL kernel against its
//! CPU twin bit for bit.

use crate::common;

use common::{gpu, run_both, Init};
use engine::kernel::{BufferTable, Elem, StepScalars};
use engine::ops::quantize::{Quantize, Scale};
use engine::precision::{noise, round_scaled_slice, Format, Rounding, ALL};

fn nearest(f: Format, x: f32) -> f32 {
    f.round(x, Rounding::Nearest, 0)
}

fn p2(e: i32) -> f32 {
    2f32.powi(e)
}

/// (input, expected) pairs worked out by hand from each format's layout: ties to even, the
/// smallest subnormals, the largest values and what lies beyond them.
#[test]
fn hand_checked_roundings() {
    let inf = f32::INFINITY;
    let table: [(Format, &[(f32, f32)]); 4] = [
        (
            Format::F16,
            &[
                (1.0, 1.0),
                (1.0 + p2(-11), 1.0),                // a tie: to the even mantissa 0
                (1.0 + 3.0 * p2(-11), 1.0 + p2(-9)), // a tie: to the even mantissa 2
                (0.1, 0.099_975_586),                // 1638/16384
                (-2.5, -2.5),
                (65504.0, 65504.0),
                (65519.0, 65504.0),
                (65520.0, inf), // the tie above the largest value goes to ∞
                (-1e6, -inf),
                (p2(-24), p2(-24)),           // the smallest subnormal
                (p2(-25), 0.0),               // half of it: a tie, to even (zero)
                (3.0 * p2(-26), p2(-24)),     // three quarters: up
                (1e-8, 0.0),                  // underflow
                (p2(-14) + p2(-25), p2(-14)), // the smallest normal, plus half a gap: a tie
            ],
        ),
        (
            Format::Bf16,
            &[
                (1.0 + p2(-8), 1.0),
                (1.0 + 3.0 * p2(-8), 1.0 + p2(-6)),
                (0.1, 0.100_097_656),   // 0x3DCD
                (f32::MAX, inf),        // above bf16's largest value, 0x7F7F0000
                (1e-30, 9.984_021e-31), // 0x0DA24260 → 0x0DA20000: fp32's range, 7 bits
            ],
        ),
        (
            Format::E4m3,
            &[
                (448.0, 448.0),
                (464.0, 448.0), // a tie: 14·32 is even
                (500.0, 448.0), // saturates
                (1e6, 448.0),
                (inf, 448.0),
                (-inf, -448.0),
                (17.0, 16.0), // a tie at gap 2: to 16
                (0.3, 0.3125),
                (p2(-9), p2(-9)), // the smallest subnormal
                (p2(-10), 0.0),   // half of it: to even (zero)
                (0.75 * p2(-9), p2(-9)),
            ],
        ),
        (
            Format::E5m2,
            &[
                (57344.0, 57344.0),
                (60000.0, 57344.0),
                (61440.0, inf), // the tie above the largest value
                (1.1, 1.0),
                (1.125, 1.0), // a tie at gap 0.25: to 1.0
                (1.375, 1.5), // a tie: to the even 1.5
                (p2(-16), p2(-16)),
                (p2(-17), 0.0),
            ],
        ),
    ];
    for (format, cases) in table {
        for &(x, want) in cases {
            let got = nearest(format, x);
            assert_eq!(
                got.to_bits(),
                want.to_bits(),
                "{} of {x:e}: {got:e}, want {want:e}",
                format.name()
            );
        }
        // Signs, zeros and NaN pass through.
        assert_eq!(nearest(format, -0.0).to_bits(), (-0.0f32).to_bits());
        assert!(nearest(format, f32::NAN).is_nan());
    }
    assert_eq!(nearest(Format::F32, 0.1), 0.1);
}

/// Values over every binade fp32 has (fp32's own subnormals, each format's subnormals, normal
/// values, overflow), with random mantissas.
fn sweep() -> Vec<f32> {
    let mut rng = engine::rng::Rng::new(3);
    let mut out = Vec::new();
    for biased in 0..255u32 {
        for _ in 0..40 {
            let mantissa = (rng.uniform() * 8_388_608.0) as u32 & 0x7F_FFFF;
            let sign = if rng.uniform() < 0.5 { 0x8000_0000 } else { 0 };
            out.push(f32::from_bits(sign | biased << 23 | mantissa));
        }
        // Exact ties and neighbours of ties for the 2- to 10-bit mantissas.
        for m in [2u32, 3, 7, 10] {
            let half = 1u32 << (22 - m);
            for delta in [0u32, 1, half - 1, half, half + 1, 3 * half] {
                out.push(f32::from_bits(biased << 23 | delta));
            }
        }
    }
    out
}

#[test]
fn fp16_and_bf16_match_the_half_crate() {
    for x in sweep() {
        let want16 = half::f16::from_f32(x).to_f32();
        let got16 = nearest(Format::F16, x);
        let want_bf = half::bf16::from_f32(x).to_f32();
        let got_bf = nearest(Format::Bf16, x);
        for (name, got, want) in [("fp16", got16, want16), ("bf16", got_bf, want_bf)] {
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "{name} of {x:e} ({:#010x}): {got:e}, half gives {want:e}",
                x.to_bits()
            );
        }
    }
}

/// Swamping (docs/theory.md §7.1): two fp16 values whose ratio exceeds 2¹² add to the larger,
/// below 2¹¹ they never do, and between it depends on the larger one's mantissa. The sums are
/// exact in fp32 (the two significands span at most 24 bits here) and rounded to fp16 by the
/// `half` crate; the engine's rounding of each sum agrees.
#[test]
fn swamping_depends_on_the_ratio_and_between_2_11_and_2_12_on_the_mantissa() {
    let f16 = |x: f32| half::f16::from_f32(x).to_f32();
    let add = |a: f32, b: f32| {
        let sum = f16(a + b);
        assert_eq!(nearest(Format::F16, a + b), sum, "{a} + {b}");
        sum
    };
    // The hand cases: 1.990234375 = 1 + 1014/1024 has the gap 2⁻¹⁰ of [1, 2), and 0.00066328 is
    // over half of it, so the sum rounds up to the next value, 1.9912109375 = 1 + 1015/1024.
    let b = f16(0.000_663_28);
    let (a, next) = (1.0 + 1014.0 / 1024.0, 1.0 + 1015.0 / 1024.0);
    assert_eq!(add(a, b), next, "ratio ≈ 3,000 and not swamped");
    assert_eq!(add(1.0, f16(0.0004)), 1.0, "ratio ≈ 2,500 and swamped");
    let (mut swamped_between, mut kept_between) = (0, 0);
    // Every fp16 mantissa of a in [1, 2) against b's mantissas on a grid, b from 2⁻¹⁴ to 2⁻⁹.
    for ma in 0..1024u32 {
        let a = 1.0 + ma as f32 / 1024.0;
        for e in -14..=-9 {
            for mb in (0..1024u32).step_by(37) {
                let b = (1.0 + mb as f32 / 1024.0) * 2f32.powi(e);
                let ratio = a / b;
                let swamped = add(a, b) == a;
                if ratio > 4096.0 {
                    assert!(swamped, "ratio {ratio} > 2¹²: {a} + {b} should give {a}");
                } else if ratio < 2048.0 {
                    assert!(!swamped, "ratio {ratio} < 2¹¹: {a} + {b} should move {a}");
                } else if swamped {
                    swamped_between += 1;
                } else {
                    kept_between += 1;
                }
            }
        }
    }
    assert!(
        swamped_between > 0 && kept_between > 0,
        "between 2¹¹ and 2¹² both happen"
    );
}

/// Stochastic rounding gives one of the two neighbours, up with probability equal to the
/// distance from the lower one: its mean over many draws is the value itself.
#[test]
fn stochastic_rounding_is_unbiased() {
    for format in [Format::F16, Format::Bf16, Format::E4m3, Format::E5m2] {
        let m = format.spec().mantissa as i32;
        for x in [1.0 + 0.3 * p2(-m), 0.37, 2.3 * format.min_subnormal() as f32] {
            // The extreme thresholds give the two neighbours.
            let (a, b) = (
                format.round(x, Rounding::Stochastic, 0),
                format.round(x, Rounding::Stochastic, u32::MAX),
            );
            let (lo, hi) = (a.min(b), a.max(b));
            assert!(
                lo < x && x < hi,
                "{}: {x} lies between {lo} and {hi}",
                format.name()
            );
            let draws = 200_000;
            let mut sum = 0.0f64;
            for i in 0..draws {
                let r = format.round(x, Rounding::Stochastic, noise(11, i));
                assert!(
                    r == lo || r == hi,
                    "{}: {x} went to {r}, not {lo} or {hi}",
                    format.name()
                );
                sum += r as f64;
            }
            let mean = sum / draws as f64;
            let gap = (hi - lo) as f64;
            // 4.5 standard deviations of the mean of two-valued draws.
            let tolerance = 4.5 * gap * 0.5 / (draws as f64).sqrt() + 1e-12;
            assert!(
                (mean - x as f64).abs() <= tolerance,
                "{}: the mean of stochastic roundings of {x} is {mean} (gap {gap})",
                format.name()
            );
        }
    }
}

/// The kernel rounds in place, scaled by the loss scale or its inverse, bit for bit like the CPU
/// twin, in both rounding modes.
#[test]
fn quantize_kernel_matches_cpu_bit_for_bit() {
    let ctx = gpu();
    // fp32's subnormals aside: GPU arithmetic may flush them (bf16 is rounded in integers).
    let values: Vec<f32> = sweep()
        .into_iter()
        .filter(|v| v.abs() >= f32::MIN_POSITIVE || *v == 0.0)
        .collect();
    let n = values.len();
    for format in ALL {
        for rounding in [Rounding::Nearest, Rounding::Stochastic] {
            for (scale, copy) in [
                (Scale::One, false),
                (Scale::LossScale, false),
                (Scale::Unscale, false),
                (Scale::One, true),
            ] {
                let mut t = BufferTable::default();
                let x = t.add("x", Elem::F32, n + 7);
                let src = t.add("src", Elem::F32, n + 7);
                let mut init = vec![9.0; 7];
                init.extend(&values);
                // The copy reads the values reversed from `src`.
                let mut reversed = init.clone();
                reversed[7..].reverse();
                let step = StepScalars {
                    t: 5,
                    loss_scale: 1024.0,
                    ..Default::default()
                };
                let out = run_both(
                    &ctx,
                    t,
                    vec![Init::F32(init.clone()), Init::F32(reversed)],
                    || {
                        Box::new(Quantize {
                            x,
                            src: copy.then_some(src),
                            offset: 7,
                            len: n,
                            format,
                            rounding,
                            scale,
                            stream: 3,
                        })
                    },
                    step,
                    &[x],
                );
                let (g, c) = &out[0];
                assert_eq!(&c[..7], &init[..7], "values before the offset are untouched");
                for i in 0..n + 7 {
                    assert!(
                        g[i].to_bits() == c[i].to_bits() || (g[i].is_nan() && c[i].is_nan()),
                        "{} {rounding:?} {scale:?} copy {copy}: value {i} ({:e}): GPU {:e}, CPU {:e}",
                        format.name(),
                        init[i],
                        g[i],
                        c[i]
                    );
                }
            }
        }
    }
}

/// The slice rounding's branch-free nearest path (`round_scaled_slice`) is `Format::round`'s
/// arithmetic bit for bit: every millionth-or-so fp32 bit pattern (both signs, NaN and ±∞
/// included, NaN staying NaN) and the sweep's ties, unscaled and scaled by 2⁻¹⁶.
#[test]
fn the_slice_rounding_is_the_values_rounding_bit_for_bit() {
    let mut values: Vec<f32> = (0..=u32::MAX / 4099).map(|i| f32::from_bits(i * 4099)).collect();
    values.extend(sweep());
    values.extend([
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        0.0,
        -0.0,
        f32::MAX,
        f32::MIN_POSITIVE,
    ]);
    for format in ALL {
        for factor in [1.0f32, 1.0 / 65536.0] {
            let mut rounded = values.clone();
            round_scaled_slice(&mut rounded, factor, format, Rounding::Nearest, 0);
            for (x, r) in values.iter().zip(&rounded) {
                let want = format.round(x * factor, Rounding::Nearest, 0);
                // (Whether a signalling NaN comes back quieted is the compiler's business.)
                if want.is_nan() {
                    assert!(r.is_nan(), "{format:?} {:#x}: {r}", x.to_bits());
                    continue;
                }
                assert_eq!(
                    r.to_bits(),
                    want.to_bits(),
                    "{format:?} {:#x} × {factor}: {:#x} vs {:#x}",
                    x.to_bits(),
                    r.to_bits(),
                    want.to_bits()
                );
            }
        }
    }
}
