//! The convolution's CPU twins (im2col and one matrix product per image, as the kernels do) and
//! plain direct-loop references the tests compare both backends with.

use super::ConvGeom;
use crate::ops::gemm_cpu::gemm;
use crate::ops::matmul::MatmulDims;

/// Unfolds image `b` into `col` (patch_len × out pixels): col[p, pix] is the input value that
/// filter tap p = (c, ky, kx) sees at output pixel pix = (oy, ox), zero in the padding. A
/// convolution is then one matrix product per image (im2col).
fn im2col(g: &ConvGeom, input: &[f32], b: usize, col: &mut [f32]) {
    let pix = g.out_h() * g.out_w();
    let mut p = 0;
    for c in 0..g.in_c {
        for ky in 0..g.k_h {
            for kx in 0..g.k_w {
                let row = &mut col[p * pix..(p + 1) * pix];
                for oy in 0..g.out_h() {
                    for ox in 0..g.out_w() {
                        row[oy * g.out_w() + ox] = g.input_at(input, [b, 0, oy, ox, c, ky, kx]);
                    }
                }
                p += 1;
            }
        }
    }
}

/// The reverse of `im2col`: adds every col[p, pix] into the input value it came from.
fn col2im_add(g: &ConvGeom, col: &[f32], b: usize, d_in: &mut [f32]) {
    let pix = g.out_h() * g.out_w();
    let mut p = 0;
    for c in 0..g.in_c {
        for ky in 0..g.k_h {
            for kx in 0..g.k_w {
                for oy in 0..g.out_h() {
                    for ox in 0..g.out_w() {
                        if let Some(i) = g.input_index([b, 0, oy, ox, c, ky, kx]) {
                            d_in[i] += col[p * pix + oy * g.out_w() + ox];
                        }
                    }
                }
                p += 1;
            }
        }
    }
}

/// CPU twin of `forward`: per image, out[f, pix] = bias[f] + W[f, ·] · col[·, pix].
pub fn conv2d_forward_cpu(g: &ConvGeom, input: &[f32], params: &[f32], out: &mut [f32]) {
    let (pix, patch) = (g.out_h() * g.out_w(), g.patch_len());
    let mut col = vec![0.0; patch * pix];
    for b in 0..g.batch {
        im2col(g, input, b, &mut col);
        let c_off = b * g.out_c * pix;
        for f in 0..g.out_c {
            out[c_off + f * pix..c_off + (f + 1) * pix].fill(params[g.b_off + f]);
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
            c_off,
            accumulate: true,
            ..Default::default()
        };
        gemm(params, &col, out, &d);
    }
}

/// CPU twin of `backward_weight` and `backward_bias`: dW[f, p] = Σ_images dOut[f, ·] · col[p, ·].
pub fn conv2d_backward_params_cpu(g: &ConvGeom, input: &[f32], d_out: &[f32], grads: &mut [f32]) {
    let (pix, patch) = (g.out_h() * g.out_w(), g.patch_len());
    grads[g.w_off..g.w_off + g.out_c * patch].fill(0.0);
    grads[g.b_off..g.b_off + g.out_c].fill(0.0);
    let mut col = vec![0.0; patch * pix];
    for b in 0..g.batch {
        im2col(g, input, b, &mut col);
        let a_off = b * g.out_c * pix;
        let d = MatmulDims {
            m: g.out_c,
            n: patch,
            k: pix,
            a_off,
            a_rs: pix,
            a_cs: 1,
            b_rs: 1,
            b_cs: pix,
            c_off: g.w_off,
            accumulate: true,
            ..Default::default()
        };
        gemm(d_out, &col, grads, &d);
        for f in 0..g.out_c {
            grads[g.b_off + f] += d_out[a_off + f * pix..a_off + (f + 1) * pix].iter().sum::<f32>();
        }
    }
}

/// CPU twin of `backward_input`: per image, dCol = Wᵀ · dOut, folded back onto the input.
pub fn conv2d_backward_input_cpu(g: &ConvGeom, params: &[f32], d_out: &[f32], d_in: &mut [f32]) {
    let (pix, patch) = (g.out_h() * g.out_w(), g.patch_len());
    d_in[..g.in_len()].fill(0.0);
    let mut d_col = vec![0.0; patch * pix];
    for b in 0..g.batch {
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
        gemm(params, d_out, &mut d_col, &d);
        col2im_add(g, &d_col, b, d_in);
    }
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
