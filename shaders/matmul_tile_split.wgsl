// The 32×32 tile loop (`matmul_tile_small.wgsl`) with the sum over k split four ways inside the
// workgroup. A small product has few tiles (W1's first, 64 × 128, has eight) and a long k (784):
// on a GPU with a hundred multiprocessors each of its eight workgroups walks all of k alone, and
// the product waits on that walk. Here each workgroup has four times the invocations, in four
// groups of 8×8: all 256 copy a slice of 64 steps of k, group g multiplies steps 16g .. 16g + 15
// of it into its own 4×4 blocks (while every invocation already fetches its share of the next
// slice), and at the end groups 1–3 hand their sums to group 0 through workgroup memory, which
// adds them in order and stores. No second dispatch, no atomics.
//
// The sum over k runs in four partial sums, (((Σ₀ + Σ₁) + Σ₂) + Σ₃), where Σ_g holds the steps
// whose place in their slice of 64 lies in group g's quarter: a different order of additions
// from the other shapes' plain k = 0, 1, 2, …, so its values differ from theirs by rounding only.
// Chosen per adapter by timing (`engine::tiles`); the shape comes from `tiles_32k4.wgsl`, the copy
// from `matmul_tile_copy.wgsl`.

const QUARTER: u32 = DEPTH / 4u; // steps of k per group and copy

// The m×n×k product's tile at (row0, col0): group g = flat / 64; its invocation (ty, tx) holds
// acc[r] = Σ_g of C[row0 + 4·ty + r, col0 + 4·tx .. +3]. Every invocation must call it.
fn product_tile(s: Sel, row0: u32, col0: u32, lid: vec3<u32>, m: u32, n: u32, k: u32,
                a_by_k: bool, b_by_n: bool) {
    let flat = lid.y * WG + lid.x;
    let group = flat / 64u;
    let ty = (flat % 64u) / 8u;
    let tx = flat % 8u;
    var acc: array<vec4<f32>, 4>;
    // Software pipelining: each invocation holds its share of the next slice (COPIES = 2 vec4s
    // of each operand in this shape) in registers, fetched before the multiply-adds of the
    // current one, so the reads' latency passes while the workgroup computes; a small product's
    // few workgroups would otherwise wait on memory at every slice.
    var a0 = fetch_a(s, row0, 0u, flat, a_by_k);
    var a1 = fetch_a(s, row0, 0u, flat + WG * WG, a_by_k);
    var b0 = fetch_b(s, col0, 0u, flat, b_by_n);
    var b1 = fetch_b(s, col0, 0u, flat + WG * WG, b_by_n);
    for (var k0 = 0u; k0 < k; k0 = k0 + DEPTH) {
        put_a(flat, a_by_k, a0);
        put_a(flat + WG * WG, a_by_k, a1);
        put_b(flat, b_by_n, b0);
        put_b(flat + WG * WG, b_by_n, b1);
        workgroupBarrier();
        let next = k0 + DEPTH;
        if (next < k) {
            a0 = fetch_a(s, row0, next, flat, a_by_k);
            a1 = fetch_a(s, row0, next, flat + WG * WG, a_by_k);
            b0 = fetch_b(s, col0, next, flat, b_by_n);
            b1 = fetch_b(s, col0, next, flat + WG * WG, b_by_n);
        }
        let first = group * QUARTER;
        let last = min(first + QUARTER, min(DEPTH, k - k0));
        if (row0 + 4u * ty < m && col0 + 4u * tx < n) {
            for (var kk = first; kk < last; kk = kk + 1u) {
                let a0 = tile_a[kk][ty];
                let b0 = tile_b[kk][tx];
                acc[0] = acc[0] + a0.x * b0;
                acc[1] = acc[1] + a0.y * b0;
                acc[2] = acc[2] + a0.z * b0;
                acc[3] = acc[3] + a0.w * b0;
            }
        }
        workgroupBarrier();
    }
    // Groups 1–3 park their sums in the (now free) tiles: 4 vec4s per invocation, 768 in all,
    // tile_a's 512 then tile_b's first 256.
    if (group > 0u) {
        for (var r = 0u; r < 4u; r = r + 1u) {
            park((group - 1u) * 256u + (flat % 64u) * 4u + r, acc[r]);
        }
    }
    workgroupBarrier();
    if (group == 0u) {
        let r0 = row0 + 4u * ty;
        let c0 = col0 + 4u * tx;
        // Constant indices into acc only (see `matmul_tile.wgsl`).
        store_row4(s, r0, c0, m, n, ((acc[0] + parked(flat * 4u)) + parked(256u + flat * 4u)) + parked(512u + flat * 4u));
        store_row4(s, r0 + 1u, c0, m, n, ((acc[1] + parked(flat * 4u + 1u)) + parked(256u + flat * 4u + 1u)) + parked(512u + flat * 4u + 1u));
        store_row4(s, r0 + 2u, c0, m, n, ((acc[2] + parked(flat * 4u + 2u)) + parked(256u + flat * 4u + 2u)) + parked(512u + flat * 4u + 2u));
        store_row4(s, r0 + 3u, c0, m, n, ((acc[3] + parked(flat * 4u + 3u)) + parked(256u + flat * 4u + 3u)) + parked(512u + flat * 4u + 3u));
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
