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

/// On a real GPU whose plan asks for narrow tiles, a GEMM of at most 8 columns runs 128 × 8
/// tiles and a wider one keeps 64 × 16; on an emulated GPU every GEMM keeps its blocks.
#[test]
fn narrow_tiles_only_for_gemms_of_at_most_8_columns_on_a_real_gpu() {
    // W2's convolutions.
    let [first, second] = crate::tile_probes::CONV_PROBES;
    let b = BufId(0);
    let forward = |g| Conv2dForward::single(b, b, b, g);
    let input_grad = |g| Conv2dBackwardInput {
        params: b,
        d_out: b,
        d_in: b,
        g,
        row_groups: ROW_GROUPS,
        narrow: false,
    };
    let fit = |parallel_workgroups, conv_narrow| DeviceFit {
        parallel_workgroups,
        tiles: crate::tiles::TilePlan {
            conv_narrow,
            ..Default::default()
        },
        subgroups: false,
    };
    let fitted = |mut k: Box<dyn Kernel>, f: DeviceFit| {
        k.fit_device(f);
        (
            k.workgroups(),
            k.shader().source.contains("const COLS: u32 = 8u;"),
        )
    };
    // 64 · 24 · 24 = 36,864 positions by 8 filters: one column of 288 tiles of 128 rows.
    let narrow = fit(0, true);
    assert_eq!(fitted(Box::new(forward(first)), narrow), ([1, 288, 1], true));
    // The second convolution's 16 filters keep the wide tiles: 64 · 8 · 8 = 4,096 positions.
    assert_eq!(fitted(Box::new(forward(second)), narrow), ([1, 64, 1], false));
    // Its input gradient has 8 columns (input channels) over 64 · 12 · 12 = 9,216 pixels.
    assert_eq!(fitted(Box::new(input_grad(second)), narrow), ([1, 72, 1], true));
    assert_eq!(
        fitted(Box::new(input_grad(second)), fit(0, false)),
        ([1, 144, 1], false)
    );
    let weight_grad = Conv2dBackwardWeight {
        input: b,
        d_out: b,
        partials: b,
        g: first,
        chunk: GRAD_CHUNK,
        fetch_ahead: false,
        narrow: false,
    };
    // 25 kernel elements by 8 filters: one tile, in as many chunks as the default cap makes.
    let chunks = first.chunks(first.grad_chunk(narrow)) as u32;
    assert_eq!(
        fitted(Box::new(weight_grad.clone()), narrow),
        ([1, 1, chunks], true)
    );
    // An emulated GPU (a few workgroups at once) runs its blocks whatever the plan says.
    let (_, uses_narrow) = fitted(Box::new(forward(first)), fit(8, true));
    assert!(!uses_narrow);
    let (_, uses_narrow) = fitted(Box::new(weight_grad), fit(8, true));
    assert!(!uses_narrow);
}
