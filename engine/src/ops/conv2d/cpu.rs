//! The convolution's CPU twins (im2col and one matrix product per image, as the kernels do) and
//! plain direct-loop references the tests compare both backends with.

use std::ops::Range;

use super::ConvGeom;
use crate::ops::gemm_cpu::gemm;
use crate::ops::matmul::MatmulDims;
use crate::parallel;

/// The output positions o (along one axis of `out` of them) whose input coordinate
/// o·stride + k − pad lies inside an axis of `len` inputs: the rest read the zero padding.
fn inside(g: &ConvGeom, k: usize, out: usize, len: usize) -> Range<usize> {
    let lo = g.pad.saturating_sub(k).div_ceil(g.stride);
    let hi = (len + g.pad).saturating_sub(k).div_ceil(g.stride).min(out);
    lo..hi.max(lo)
}

/// Calls `visit(p, oy, ox, y, x)` for each filter tap p = (c, ky, kx) and each output pixel whose
/// input (y, x) of channel c lies inside the image: the ranges are worked out once per row, so
/// the inner loop has no bounds test (`input_index` is the definition this agrees with).
fn for_each_inside(g: &ConvGeom, mut visit: impl FnMut(usize, usize, Range<usize>, usize, usize)) {
    let (oh, ow) = (g.out_h(), g.out_w());
    let mut p = 0;
    for c in 0..g.in_c {
        for ky in 0..g.k_h {
            let rows = inside(g, ky, oh, g.in_h);
            for kx in 0..g.k_w {
                let cols = inside(g, kx, ow, g.in_w);
                for oy in rows.clone() {
                    let y = oy * g.stride + ky - g.pad;
                    // The input index of the row's first inside pixel, in channel c's plane.
                    let x0 = cols.start * g.stride + kx - g.pad;
                    visit(p, oy, cols.clone(), (c * g.in_h + y) * g.in_w, x0);
                }
                p += 1;
            }
        }
    }
}

/// Unfolds image `b` into `col` (patch_len × out pixels): col[p, pix] is the input value that
/// filter tap p = (c, ky, kx) sees at output pixel pix = (oy, ox), zero in the padding. A
/// convolution is then one matrix product per image (im2col).
fn im2col(g: &ConvGeom, image: &[f32], col: &mut [f32]) {
    let (pix, ow) = (g.out_h() * g.out_w(), g.out_w());
    col[..g.patch_len() * pix].fill(0.0);
    for_each_inside(g, |p, oy, cols, row, x0| {
        let dst = &mut col[p * pix + oy * ow..][cols.clone()];
        if g.stride == 1 {
            dst.copy_from_slice(&image[row + x0..row + x0 + cols.len()]);
        } else {
            for (i, d) in dst.iter_mut().enumerate() {
                *d = image[row + x0 + i * g.stride];
            }
        }
    });
}

/// The reverse of `im2col`: adds every col[p, pix] into the input value it came from.
fn col2im_add(g: &ConvGeom, col: &[f32], image: &mut [f32]) {
    let (pix, ow) = (g.out_h() * g.out_w(), g.out_w());
    for_each_inside(g, |p, oy, cols, row, x0| {
        let src = &col[p * pix + oy * ow..][cols];
        for (i, s) in src.iter().enumerate() {
            image[row + x0 + i * g.stride] += s;
        }
    });
}

/// Images whose weight gradients one task of the CPU twin sums before the tasks' sums are added
/// (in order, so the result does not depend on the number of threads).
const IMAGES_PER_TASK: usize = 4;

thread_local! {
    static COL: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `work` with this thread's im2col buffer of `len` values (kept between calls: a fresh
/// buffer per image would cost a page fault per 4 KiB).
fn with_col<T>(len: usize, work: impl FnOnce(&mut [f32]) -> T) -> T {
    COL.with(|cell| {
        let mut col = cell.borrow_mut();
        if col.len() < len {
            col.resize(len, 0.0);
        }
        work(&mut col[..len])
    })
}

/// CPU twin of `forward`: per image (spread over the cores), out[f, pix] = bias[f] + W[f, ·] ·
/// col[·, pix].
pub fn conv2d_forward_cpu(g: &ConvGeom, input: &[f32], params: &[f32], out: &mut [f32]) {
    let (pix, patch, image) = (g.out_h() * g.out_w(), g.patch_len(), g.in_c * g.in_h * g.in_w);
    parallel::for_each_piece(&mut out[..g.out_len()], g.out_c * pix, |b, out| {
        with_col(patch * pix, |col| {
            im2col(g, &input[b * image..(b + 1) * image], col);
            for f in 0..g.out_c {
                out[f * pix..(f + 1) * pix].fill(params[g.b_off + f]);
            }
            let d = MatmulDims {
                m: g.out_c,
                n: pix,
                k: patch,
                a_off: g.w_off,
                a_rs: patch,
                a_cs: 1,
                b_rs: pix,
                b_cs: 1,
                accumulate: true,
                ..Default::default()
            };
            gemm(params, col, out, &d);
        })
    });
}

/// CPU twin of `backward_weight` and `backward_bias`: dW[f, p] = Σ_images dOut[f, ·] · col[p, ·],
/// summed per task of `IMAGES_PER_TASK` images, then over the tasks in order.
pub fn conv2d_backward_params_cpu(g: &ConvGeom, input: &[f32], d_out: &[f32], grads: &mut [f32]) {
    let (pix, patch, image) = (g.out_h() * g.out_w(), g.patch_len(), g.in_c * g.in_h * g.in_w);
    let (w_len, out_c) = (g.out_c * patch, g.out_c);
    let partials = parallel::map(g.batch.div_ceil(IMAGES_PER_TASK), |task| {
        let mut sums = vec![0.0; w_len + out_c];
        let images = task * IMAGES_PER_TASK..((task + 1) * IMAGES_PER_TASK).min(g.batch);
        with_col(patch * pix, |col| {
            for b in images {
                im2col(g, &input[b * image..(b + 1) * image], col);
                let a_off = b * out_c * pix;
                let d = MatmulDims {
                    m: out_c,
                    n: patch,
                    k: pix,
                    a_off,
                    a_rs: pix,
                    a_cs: 1,
                    b_rs: 1,
                    b_cs: pix,
                    accumulate: true,
                    ..Default::default()
                };
                gemm(d_out, col, &mut sums, &d);
                for f in 0..out_c {
                    sums[w_len + f] += d_out[a_off + f * pix..a_off + (f + 1) * pix].iter().sum::<f32>();
                }
            }
        });
        sums
    });
    grads[g.w_off..g.w_off + w_len].fill(0.0);
    grads[g.b_off..g.b_off + out_c].fill(0.0);
    for sums in partials {
        for (acc, s) in grads[g.w_off..g.w_off + w_len].iter_mut().zip(&sums[..w_len]) {
            *acc += s;
        }
        for (acc, s) in grads[g.b_off..g.b_off + out_c].iter_mut().zip(&sums[w_len..]) {
            *acc += s;
        }
    }
}

/// CPU twin of `backward_input`: per image (spread over the cores), dCol = Wᵀ · dOut, folded back
/// onto the input.
pub fn conv2d_backward_input_cpu(g: &ConvGeom, params: &[f32], d_out: &[f32], d_in: &mut [f32]) {
    let (pix, patch, image) = (g.out_h() * g.out_w(), g.patch_len(), g.in_c * g.in_h * g.in_w);
    parallel::for_each_piece(&mut d_in[..g.in_len()], image, |b, d_in| {
        d_in.fill(0.0);
        with_col(patch * pix, |d_col| {
            let d = MatmulDims {
                m: patch,
                n: pix,
                k: g.out_c,
                a_off: g.w_off,
                a_rs: 1,
                a_cs: patch,
                b_off: b * g.out_c * pix,
                b_rs: pix,
                b_cs: 1,
                ..Default::default()
            };
            gemm(params, d_out, d_col, &d);
            col2im_add(g, d_col, d_in);
        })
    });
}

/// The definition of `forward`, term by term: what the fast twin is tested against.
pub fn conv2d_forward_reference(g: &ConvGeom, input: &[f32], params: &[f32], out: &mut [f32]) {
    for b in 0..g.batch {
        for f in 0..g.out_c {
            for oy in 0..g.out_h() {
                for ox in 0..g.out_w() {
                    out[g.out_index(b, f, oy, ox)] = params[g.b_off + f];
                }
            }
        }
    }
    g.for_each_term(|t @ [b, f, oy, ox, c, ky, kx]| {
        out[g.out_index(b, f, oy, ox)] += params[g.w_index(f, c, ky, kx)] * g.input_at(input, t);
    });
}

/// The definition of `backward_weight` and `backward_bias`, term by term.
pub fn conv2d_backward_params_reference(g: &ConvGeom, input: &[f32], d_out: &[f32], grads: &mut [f32]) {
    grads[g.w_off..g.w_off + g.out_c * g.patch_len()].fill(0.0);
    grads[g.b_off..g.b_off + g.out_c].fill(0.0);
    g.for_each_term(|t @ [b, f, oy, ox, c, ky, kx]| {
        grads[g.w_index(f, c, ky, kx)] += d_out[g.out_index(b, f, oy, ox)] * g.input_at(input, t);
    });
    for b in 0..g.batch {
        for f in 0..g.out_c {
            for oy in 0..g.out_h() {
                for ox in 0..g.out_w() {
                    grads[g.b_off + f] += d_out[g.out_index(b, f, oy, ox)];
                }
            }
        }
    }
}

/// The definition of `backward_input`: each term's gradient flows back to the input it read.
pub fn conv2d_backward_input_reference(g: &ConvGeom, params: &[f32], d_out: &[f32], d_in: &mut [f32]) {
    d_in[..g.in_len()].fill(0.0);
    g.for_each_term(|t @ [b, f, oy, ox, c, ky, kx]| {
        if let Some(i) = g.input_index(t) {
            d_in[i] += d_out[g.out_index(b, f, oy, ox)] * params[g.w_index(f, c, ky, kx)];
        }
    });
}
