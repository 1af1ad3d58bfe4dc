// The 32×32 tile loop (`matmul_tile_small.wgsl`) with the sum over k split four ways inside the
// workgroup. A small product has few tiles (W1's first, 64 × 128, has eight) and a long k (784):
// on a GPU with a hundred multiprocessors each of its eight workgroups walks all of k alone, and
// the product waits on that walk. Here each workgroup has four times the invocations, in four
// groups of 8×8: all 256 copy a slice of 64 steps of k, group g multiplies steps 16g .. 16g + 15
// of it into its own 4×4 blocks, and at the end groups 1–3 hand their sums to group 0 through
// workgroup memory, which adds them in order and stores. No second dispatch, no atomics.
//
// The sum over k runs in four partial sums, (((Σ₀ + Σ₁) + Σ₂) + Σ₃), where Σ_g holds the steps
// whose place in their slice of 64 lies in group g's quarter: a different order of additions
// from the other shapes' plain k = 0, 1, 2, …, so its values differ from theirs by rounding only.
// Chosen per adapter by timing (`engine::tiles`); the shape comes from `tiles_32k4.wgsl`, the copy
// from `matmul_tile_copy.wgsl`. This file holds the parts; the loop itself is
// `matmul_tile_split_loop.wgsl` (copy a slice, then multiply it: GPUs emulated on the processor)
// or `matmul_tile_split_ahead.wgsl` (fetch the next slice while multiplying this one: real GPUs;
// SwiftShader did not finish a product with it in two minutes).

const QUARTER: u32 = DEPTH / 4u; // steps of k per group and copy

// Group g's quarter of the slice in the tiles: acc[r] += A[4·ty + r, kk] · B[kk, 4·tx ..] for
// the slice's steps kk in 16g .. 16g + 15 (those before `depth`, the slice's steps inside k).
fn multiply_quarter(acc: ptr<function, array<vec4<f32>, 4>>, group: u32, ty: u32, tx: u32,
                    depth: u32) {
    let first = group * QUARTER;
    let last = min(first + QUARTER, depth);
    for (var kk = first; kk < last; kk = kk + 1u) {
        let a0 = tile_a[kk][ty];
        let b0 = tile_b[kk][tx];
        (*acc)[0] = (*acc)[0] + a0.x * b0;
        (*acc)[1] = (*acc)[1] + a0.y * b0;
        (*acc)[2] = (*acc)[2] + a0.z * b0;
        (*acc)[3] = (*acc)[3] + a0.w * b0;
    }
}

// The groups' sums added and stored: groups 1–3 park theirs in the (now free) tiles, 4 vec4s per
// invocation, 768 in all, tile_a's 512 then tile_b's first 256; group 0 adds them to its own in
// order and stores. Every invocation must call it (it has barriers).
fn finish_split(s: Sel, acc: ptr<function, array<vec4<f32>, 4>>, flat: u32, row0: u32,
                col0: u32, m: u32, n: u32) {
    let group = flat / 64u;
    if (group > 0u) {
        for (var r = 0u; r < 4u; r = r + 1u) {
            park((group - 1u) * 256u + (flat % 64u) * 4u + r, (*acc)[r]);
        }
    }
    workgroupBarrier();
    if (group == 0u) {
        let r0 = row0 + 4u * ((flat % 64u) / 8u);
        let c0 = col0 + 4u * (flat % 8u);
        let i = flat * 4u;
        // Constant indices into acc only (see `matmul_tile.wgsl`).
        store_row4(s, r0, c0, m, n, (((*acc)[0] + parked(i)) + parked(256u + i)) + parked(512u + i));
        store_row4(s, r0 + 1u, c0, m, n, (((*acc)[1] + parked(i + 1u)) + parked(257u + i)) + parked(513u + i));
        store_row4(s, r0 + 2u, c0, m, n, (((*acc)[2] + parked(i + 2u)) + parked(258u + i)) + parked(514u + i));
        store_row4(s, r0 + 3u, c0, m, n, (((*acc)[3] + parked(i + 3u)) + parked(259u + i)) + parked(515u + i));
    }
    // The workgroup's next tile (a grid-stride loop) copies into the parking space.
    workgroupBarrier();
}

// Slot i of the parking space: tile_a's vec4s, then tile_b's.
fn park(i: u32, v: vec4<f32>) {
    if (i < 512u) { tile_a[i / COLS4][i % COLS4] = v; } else { tile_b[(i - 512u) / COLS4][(i - 512u) % COLS4] = v; }
}

fn parked(i: u32) -> vec4<f32> {
    if (i < 512u) { return tile_a[i / COLS4][i % COLS4]; }
    return tile_b[(i - 512u) / COLS4][(i - 512u) % COLS4];
}
