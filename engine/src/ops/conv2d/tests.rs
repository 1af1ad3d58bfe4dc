use super::*;

fn values(n: usize, seed: u32) -> Vec<f32> {
    (0..n)
        .map(|i| ((i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed) % 997) as f32 / 498.0 - 1.0)
        .collect()
}

fn close(got: &[f32], want: &[f32], what: &str) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= 1e-5 * (1.0 + w.abs()), "{what}[{i}]: {g} vs {w}");
    }
}

/// The im2col + GEMM twins against the term-by-term definitions.
#[test]
fn fast_twins_match_the_definitions() {
    // (batch, in_c, h, w, out_c, kernel, stride, pad)
    for &(batch, in_c, h, w, out_c, k, stride, pad) in &[
        (1, 1, 1, 1, 1, 1, 1, 0),
        (2, 3, 7, 5, 4, 3, 2, 1),
        (3, 2, 9, 9, 5, 5, 3, 2),
        (2, 8, 12, 12, 16, 5, 1, 0),
    ] {
        let g = ConvGeom {
            batch,
            in_c,
            in_h: h,
            in_w: w,
            out_c,
            k_h: k,
            k_w: k,
            stride,
            pad,
            w_off: 2,
            b_off: 2 + out_c * in_c * k * k,
        };
        let input = values(g.in_len(), 1);
        let params = values(g.b_off + out_c, 2);
        let d_out = values(g.out_len(), 3);
        let (mut fast, mut slow) = (vec![0.0; g.out_len()], vec![0.0; g.out_len()]);
        conv2d_forward_cpu(&g, &input, &params, &mut fast);
        conv2d_forward_reference(&g, &input, &params, &mut slow);
        close(&fast, &slow, "forward");
        let (mut fast, mut slow) = (vec![0.0; params.len()], vec![0.0; params.len()]);
        conv2d_backward_params_cpu(&g, &input, &d_out, &mut fast);
        conv2d_backward_params_reference(&g, &input, &d_out, &mut slow);
        close(&fast, &slow, "weight and bias gradients");
        let (mut fast, mut slow) = (vec![0.0; g.in_len()], vec![0.0; g.in_len()]);
        conv2d_backward_input_cpu(&g, &params, &d_out, &mut fast);
        conv2d_backward_input_reference(&g, &params, &d_out, &mut slow);
        close(&fast, &slow, "input gradient");
    }
}
