//! Per-tensor delayed scaling (docs/theory.md §7.3): the scaled store kernel against its CPU twin
//! bit for bit (values, saturation, amax over many workgroups), the twin against a hand count, and
//! a delayed-scaling run the same on both backends. The recipe against NumPy and ml_dtypes is
//! `state/tests/scaling_reference.rs`.

use crate::common;

use common::{gpu, run_both, Init};
use engine::kernel::{BufferTable, Elem, StepScalars};
use engine::ops::quantize::{tensor_scaled_cpu, Quantize, Scale, TensorScale};
use engine::precision::{Format, Rounding};
use engine::rng::Rng;

/// Magnitudes from 2⁻³⁰ to 2²⁰, both signs, ±∞ and NaN, with the largest at a place of its own.
fn values(n: usize) -> Vec<f32> {
    let mut rng = Rng::new(7);
    let mut v: Vec<f32> = (0..n)
        .map(|_| {
            let e = rng.below(40) as i32 - 30;
            let sign = if rng.below(2) == 0 { 1.0 } else { -1.0 };
            sign * (1.0 + rng.below(1 << 20) as f32 / (1 << 20) as f32) * 2f32.powi(e)
        })
        .collect();
    v[n / 3] = -3.0e6; // the amax, in the middle of a later workgroup
    v
}

#[test]
fn the_scaled_store_is_its_cpu_twin_bit_for_bit_with_its_amax() {
    let ctx = gpu();
    let n = 1500; // six workgroups of 256
    let mut with_edges = values(n);
    with_edges[10] = f32::INFINITY;
    with_edges[11] = f32::NAN;
    for (format, k) in [
        (Format::E4m3, 8),
        (Format::E4m3, -3),
        (Format::E5m2, 20),
        (Format::F16, 0),
    ] {
        for rounding in [Rounding::Nearest, Rounding::Stochastic] {
            for (inputs, copy) in [(values(n), false), (with_edges.clone(), true)] {
                let mut t = BufferTable::default();
                let x = t.add("x", Elem::F32, n + 5);
                let src = t.add("src", Elem::F32, n + 5);
                let exponents = t.add("exponents", Elem::U32, 3);
                let amax = t.add("amax", Elem::U32, 3);
                let mut init = vec![7.0; 5];
                init.extend(&inputs);
                let kernel = || {
                    Box::new(Quantize {
                        x,
                        src: copy.then_some(src),
                        offset: 5,
                        len: n,
                        format,
                        rounding,
                        scale: Scale::Tensor(TensorScale {
                            exponents,
                            amax,
                            slot: 1,
                            record: true,
                        }),
                        stream: 9,
                    }) as Box<dyn engine::kernel::Kernel>
                };
                let inits = vec![
                    Init::F32(init.clone()),
                    Init::F32(init.clone()),
                    Init::U32(vec![0, k as u32, 0]),
                    Init::U32(vec![0, 0, 5]),
                ];
                let step = StepScalars {
                    t: 3,
                    ..Default::default()
                };
                let out = run_both(&ctx, t, inits, kernel, step, &[x, amax]);
                let what = format!("{format:?} 2^{k} {rounding:?} copy {copy}");
                let ((g, c), (ga, ca)) = (&out[0], &out[1]);
                for i in 0..n + 5 {
                    let same = g[i].to_bits() == c[i].to_bits() || (g[i].is_nan() && c[i].is_nan());
                    assert!(
                        same,
                        "{what}: value {i} ({:e}): GPU {:e}, CPU {:e}",
                        init[i], g[i], c[i]
                    );
                }
                let bits = |v: &[f32]| v.iter().map(|a| a.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(ga), bits(ca), "{what}: amax");
                // The amax is the largest magnitude, as bits (NaN's above ±∞); the other slots stay.
                let want = if copy {
                    f32::NAN.to_bits()
                } else {
                    3.0e6f32.to_bits()
                };
                assert_eq!(bits(ca), vec![0, want, 5], "{what}: amax by hand");
            }
        }
    }
}

/// By hand: E4M3 at 2⁸ stores 1.0 as 256 (exact), 1.9 saturates at 448 = 1.75·2⁸, −0.01 as 2.5
/// (2.56 rounds to 2.5, E4M3's gap being 0.25 there), 10⁻⁶ flushes (0.000256 is under half E4M3's
/// smallest subnormal, 2⁻⁹); each unscaled by 2⁻⁸. ±∞ saturates; NaN stays.
#[test]
fn the_scaled_store_by_hand() {
    let mut x = [1.0, 1.9, -0.01, 1e-6, f32::NEG_INFINITY, f32::NAN];
    let amax = tensor_scaled_cpu(&mut x, 8, Format::E4m3, Rounding::Nearest, 0);
    assert_eq!(&x[..5], &[1.0, 1.75, -2.5 / 256.0, 0.0, -1.75]);
    assert!(x[5].is_nan());
    assert_eq!(amax, f32::NAN.to_bits() & 0x7FFF_FFFF);
}
