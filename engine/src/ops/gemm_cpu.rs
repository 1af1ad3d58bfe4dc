//! The CPU twins' matrix product, written for speed: both operands are packed into contiguous
//! panels, and each 4×8 block of C is accumulated in registers, so the inner loop is 32
//! independent multiply-adds that the compiler turns into SIMD (wasm simd128 in the browser,
//! SSE/AVX natively). Each C element still sums its k terms in order from zero, exactly like the
//! textbook loop in `matmul_dims::matmul_reference`, so the two agree bit for bit.

use super::matmul_dims::MatmulDims;

/// Rows of C per register block.
const MR: usize = 4;
/// Columns of C per register block (two 4-lane vectors).
const NR: usize = 8;
/// Rows of A kept in cache together (a multiple of MR).
const MC: usize = 64;

/// C = A · B (or C += A · B) with the strides of `d`.
pub fn gemm(a: &[f32], b: &[f32], c: &mut [f32], d: &MatmulDims) {
    if d.m == 0 || d.n == 0 {
        return;
    }
    let k = d.k;
    // The packed panels live in buffers kept per thread: a fresh 400 KB vector per product costs
    // a page fault per 4 KiB, which small-batch training (many products per step) feels.
    PACKED.with(|cell| {
        let (a_panels, b_panels) = &mut *cell.borrow_mut();
        pack(
            a_panels,
            a,
            Lines {
                count: d.m,
                off: d.a_off,
                stride: d.a_rs,
                k_stride: d.a_cs,
            },
            k,
            MR,
        );
        // A row-major B whose width is whole panels is read in place when A is short (a small
        // batch): packing it would cost as much as the product. Same sums, same order.
        let in_place = d.b_cs == 1 && d.n.is_multiple_of(NR) && d.m <= MC;
        if !in_place {
            pack(
                b_panels,
                b,
                Lines {
                    count: d.n,
                    off: d.b_off,
                    stride: d.b_cs,
                    k_stride: d.b_rs,
                },
                k,
                NR,
            );
        }
        // Cache blocking: a group of MC rows of A stays in the L2 cache while each B panel (k × 8
        // values, L1-sized) is used against every A panel of the group.
        let a_len = k.max(1) * MR;
        for (g, a_group) in a_panels.chunks(a_len * MC / MR).enumerate() {
            for np in 0..d.n.div_ceil(NR) {
                let (b_panel, stride) = if in_place {
                    (&b[d.b_off + np * NR..], d.b_rs)
                } else {
                    (&b_panels[np * k.max(1) * NR..(np + 1) * k.max(1) * NR], NR)
                };
                for (i, a_panel) in a_group.chunks_exact(a_len).enumerate() {
                    let acc = block(a_panel, b_panel, stride, k);
                    store(c, d, g * MC + i * MR, np * NR, &acc);
                }
            }
        }
    });
}

thread_local! {
    static PACKED: std::cell::RefCell<(Vec<f32>, Vec<f32>)> = const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// The lines a product packs (rows of A or columns of B) in their source: `count` lines, line i's
/// k-th value at `off + i·stride + kk·k_stride`.
struct Lines {
    count: usize,
    off: usize,
    stride: usize,
    k_stride: usize,
}

/// Packs `lines` into `out` as panels of `width` lines, each panel k-major: panel[kk · width + i]
/// = line i's k-th value (zero past the last line). Pure data movement, so the product sums the
/// same values in the same order whichever path copies them; the two common layouts copy whole
/// runs, bounds checked once per run, not once per value.
fn pack(out: &mut Vec<f32>, src: &[f32], lines: Lines, k: usize, width: usize) {
    let panels = lines.count.div_ceil(width);
    out.clear();
    out.resize(panels * k.max(1) * width, 0.0);
    for p in 0..panels {
        let panel = &mut out[p * k * width..(p + 1) * k * width];
        let filled = width.min(lines.count - p * width);
        let first = lines.off + p * width * lines.stride;
        if lines.stride == 1 {
            // Adjacent lines adjacent in memory (a column-major A, a row-major B): each k-th row
            // of the panel is one contiguous run.
            for (kk, row) in panel.chunks_exact_mut(width).enumerate() {
                let at = first + kk * lines.k_stride;
                row[..filled].copy_from_slice(&src[at..at + filled]);
            }
        } else if lines.k_stride == 1 && filled == width && (width == MR || width == NR) {
            // Each line contiguous along k (a row-major A, a transposed B), the panel full: read
            // the panel's lines side by side, so that its rows are written in order.
            let first_lines = (first, lines.stride);
            if width == MR {
                pack_lines::<MR>(panel, src, first_lines, k);
            } else {
                pack_lines::<NR>(panel, src, first_lines, k);
            }
        } else if lines.k_stride == 1 {
            // Each line contiguous along k (a row-major A, a transposed B): read a line at a time.
            for i in 0..filled {
                let line = &src[first + i * lines.stride..][..k];
                for (kk, &v) in line.iter().enumerate() {
                    panel[kk * width + i] = v;
                }
            }
        } else {
            for kk in 0..k {
                for i in 0..filled {
                    panel[kk * width + i] = src[first + i * lines.stride + kk * lines.k_stride];
                }
            }
        }
    }
}

/// A full panel of `W` lines, each contiguous along k (line i at `first + i·stride`): row kk of
/// the panel is the lines' k-th values.
#[inline(always)]
fn pack_lines<const W: usize>(panel: &mut [f32], src: &[f32], (first, stride): (usize, usize), k: usize) {
    let lines: [&[f32]; W] = std::array::from_fn(|i| &src[first + i * stride..][..k]);
    for (kk, row) in panel[..k * W].chunks_exact_mut(W).enumerate() {
        for (value, line) in row.iter_mut().zip(&lines) {
            *value = line[kk];
        }
    }
}

/// One MR×NR block of A · B from an A panel and a B panel, in wasm SIMD: LLVM leaves the portable
/// loop below scalar for wasm32, so the browser's CPU path spells the 4-lane vectors out. A
/// multiply then an add (no fused multiply-add), in the same order: the result is bit-identical.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn block(a_panel: &[f32], b_panel: &[f32], b_stride: usize, k: usize) -> [[f32; NR]; MR] {
    use core::arch::wasm32::{f32x4_add, f32x4_mul, f32x4_splat, v128, v128_load, v128_store};
    assert!(k == 0 || (a_panel.len() >= k * MR && b_panel.len() >= (k - 1) * b_stride + NR));
    let zero = f32x4_splat(0.0);
    let mut acc: [[v128; 2]; MR] = [[zero; 2]; MR];
    for kk in 0..k {
        // SAFETY: kk < k, and the assert above keeps both panels' k-th rows in bounds;
        // v128_load needs no alignment.
        let (b0, b1) = unsafe {
            let bp = b_panel.as_ptr().add(kk * b_stride) as *const v128;
            (v128_load(bp), v128_load(bp.add(1)))
        };
        let av = &a_panel[kk * MR..kk * MR + MR];
        for i in 0..MR {
            let ai = f32x4_splat(av[i]);
            acc[i][0] = f32x4_add(acc[i][0], f32x4_mul(ai, b0));
            acc[i][1] = f32x4_add(acc[i][1], f32x4_mul(ai, b1));
        }
    }
    let mut out = [[0.0f32; NR]; MR];
    for i in 0..MR {
        // SAFETY: each row of `out` holds NR = 8 floats, two v128 stores.
        unsafe {
            let op = out[i].as_mut_ptr() as *mut v128;
            v128_store(op, acc[i][0]);
            v128_store(op.add(1), acc[i][1]);
        }
    }
    out
}

/// One MR×NR block of A · B from an A panel and a B panel (its rows `b_stride` apart: NR when
/// packed, B's row stride when read in place).
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
fn block(a_panel: &[f32], b_panel: &[f32], b_stride: usize, k: usize) -> [[f32; NR]; MR] {
    let mut acc = [[0.0f32; NR]; MR];
    for (kk, av) in a_panel.chunks_exact(MR).enumerate().take(k) {
        let bv: &[f32; NR] = b_panel[kk * b_stride..kk * b_stride + NR]
            .try_into()
            .expect("panel width");
        for i in 0..MR {
            let ai = av[i];
            for j in 0..NR {
                acc[i][j] += ai * bv[j];
            }
        }
    }
    acc
}

fn store(c: &mut [f32], d: &MatmulDims, row0: usize, col0: usize, acc: &[[f32; NR]; MR]) {
    for (i, acc_row) in acc.iter().enumerate().take(d.m - row0) {
        let start = d.c_off + (row0 + i) * d.c_row_stride() + col0;
        let width = NR.min(d.n - col0);
        let out = &mut c[start..start + width];
        if d.accumulate {
            out.iter_mut().zip(acc_row).for_each(|(o, v)| *o += v);
        } else {
            out.copy_from_slice(&acc_row[..width]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::matmul_dims::matmul_reference;

    fn values(n: usize, seed: u32) -> Vec<f32> {
        (0..n)
            .map(|i| ((i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed) % 1000) as f32 / 500.0 - 1.0)
            .collect()
    }

    #[test]
    fn matches_the_reference_bit_for_bit() {
        for &(m, n, k) in &[
            (1, 1, 1),
            (3, 17, 5),
            (17, 3, 1000),
            (64, 128, 784),
            (5, 9, 0),
            (33, 10, 7),
            // B read in place: m ≤ MC, n whole panels.
            (16, 128, 784),
            (3, 16, 5),
            (64, 8, 0),
            (65, 16, 3),
        ] {
            for transposed in [false, true] {
                for accumulate in [false, true] {
                    let d = MatmulDims {
                        m,
                        n,
                        k,
                        a_off: 3,
                        a_rs: if transposed { 1 } else { k },
                        a_cs: if transposed { m } else { 1 },
                        b_off: 1,
                        b_rs: if transposed { 1 } else { n },
                        b_cs: if transposed { k } else { 1 },
                        c_off: 2,
                        accumulate,
                        ..Default::default()
                    };
                    let a = values(3 + m * k, 1);
                    let b = values(1 + k * n, 2);
                    let mut want = values(2 + m * n, 3);
                    let mut got = want.clone();
                    matmul_reference(&a, &b, &mut want, &d);
                    gemm(&a, &b, &mut got, &d);
                    assert_eq!(
                        got, want,
                        "m={m} n={n} k={k} transposed={transposed} acc={accumulate}"
                    );
                }
            }
        }
    }

    #[test]
    fn rows_apart_are_written_where_they_lie_and_the_gaps_kept() {
        for &(m, n, k) in &[(3, 17, 5), (65, 16, 3), (256, 24, 64)] {
            let d = MatmulDims {
                c_off: 1,
                c_rs: n + 3,
                ..MatmulDims::row_major(m, n, k)
            };
            let (a, b) = (values(m * k, 1), values(k * n, 2));
            let mut got = values(1 + m * (n + 3), 3);
            let before = got.clone();
            gemm(&a, &b, &mut got, &d);
            let mut dense = vec![0.0; m * n];
            matmul_reference(&a, &b, &mut dense, &MatmulDims::row_major(m, n, k));
            // C's rows from 1 on, n + 3 apart: the product where they lie, the gaps as they were.
            for (i, v) in got.iter().enumerate() {
                let at = i.checked_sub(1).map(|j| (j / (n + 3), j % (n + 3)));
                let want = match at {
                    Some((row, col)) if col < n => dense[row * n + col],
                    _ => before[i],
                };
                assert_eq!(*v, want, "m={m} n={n} k={k} at {i}");
            }
        }
    }
}
