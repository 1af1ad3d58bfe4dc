//! The precision lab's formats against an independent implementation: NumPy's float16 and
//! ml_dtypes' bfloat16, float8_e4m3fn and float8_e5m2 (`scripts/round_formats.py`, run with
//! tools/pyenv's Python, which set-up makes), to the bit, over values spread across every format's
//! range — normals, subnormals, ties, the flush and the overflow at each end. The one difference
//! is by design: past E4M3's range ml_dtypes has no value (NaN), the lab saturates to ±448, as FP8
//! training recipes cast (Micikevicius et al. 2022).

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use engine::precision::{Format, Rounding};
use engine::rng::Rng;
use serde_json::Value;

/// Spread over 2⁻³⁰ to 2²⁰ (both signs, random significands), and the edges by hand.
fn values() -> Vec<f32> {
    let mut rng = Rng::new(81);
    let mut v: Vec<f32> = (0..20_000)
        .map(|_| {
            let exponent = rng.below(51) as i32 - 30;
            let significand = 1.0 + rng.below(1 << 23) as f32 / (1 << 23) as f32;
            let sign = if rng.below(2) == 0 { 1.0 } else { -1.0 };
            sign * significand * 2f32.powi(exponent)
        })
        .collect();
    // Ties and edges: half the smallest subnormals, the largest values and the midpoints past them.
    v.extend([0.0, 2f32.powi(-25), 2f32.powi(-10), 2f32.powi(-17), 448.0, 464.0, 480.0, 57_344.0, 61_440.0, 65_504.0, 65_520.0, 1.0 + 2f32.powi(-11)]);
    v
}

#[test]
fn every_format_rounds_as_numpy_and_ml_dtypes_do() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let python = root.join("tools/pyenv/bin/python");
    assert!(python.exists(), "tools/pyenv is missing: run scripts/setup.sh");
    let xs = values();
    let bits: Vec<u32> = xs.iter().map(|x| x.to_bits()).collect();
    let mut child = Command::new(python)
        .arg(root.join("scripts/round_formats.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(serde_json::to_string(&bits).unwrap().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "round_formats.py failed");
    let reference: Value = serde_json::from_slice(&out.stdout).unwrap();
    for (name, format) in [("fp16", Format::F16), ("bf16", Format::Bf16), ("e4m3", Format::E4m3), ("e5m2", Format::E5m2)] {
        let theirs = reference[name].as_array().unwrap();
        assert_eq!(theirs.len(), xs.len(), "{name}: a value each");
        for (x, r) in xs.iter().zip(theirs) {
            let ours = format.round(*x, Rounding::Nearest, 0);
            match r.as_u64() {
                Some(b) => assert_eq!(ours.to_bits(), b as u32, "{name}: {x:e} → {ours:e}, reference {:e}", f32::from_bits(b as u32)),
                // Only E4M3 has no value past its range; the lab saturates there.
                None => assert!(format == Format::E4m3 && ours.abs() == 448.0 && x.abs() > 448.0, "{name}: {x:e} → {ours:e}"),
            }
        }
    }
}
