// The matrix product's tile loop, shared by `matmul.wgsl` (the plain product) and
// `matmul_fused.wgsl` (with a gathered operand and epilogues); each of those files is appended
// to this one and provides the two reads and the store:
//   fn a_at(s: Sel, row: u32, k: u32) -> f32    A[row, k], 0 outside the matrix
//   fn b_at(s: Sel, k: u32, col: u32) -> f32    B[k, col], 0 outside the matrix
//   fn store_value(s: Sel, row: u32, col: u32, v: f32)    C[row, col] = v, inside the matrix
// where `Sel` is a type of the includer's and `s` its argument to product_tile, passed through
// (which product of a dispatch, with its shape). Built from the uniform, it stays uniform, so
// reads that depend on it stay scalar on a GPU emulated with SIMD lanes.
// (The store is a call per value rather than a returned tile: a 16-vector array returned from a
// function went through memory on lavapipe and made the product half again slower.)
//
// Tiled twice over. Each workgroup of WG×WG invocations computes a TILE×TILE tile of C: per step
// it copies a TILE×DEPTH slice of A and a DEPTH×TILE slice of B into workgroup memory (every
// value read from global memory is then used TILE times), and each invocation accumulates an
// 8×8 block of C in registers (every value read from workgroup memory is used 8 times: 4 reads
// of a vec4 feed 16 vec4 multiply-adds). Fewer, larger steps also mean fewer barriers, which
// matters on GPUs emulated on the CPU, where every read of workgroup memory is a gather of
// separate lanes (the 8×8 block took W1 from about 1,070 to 1,200–1,600 samples/s on
// SwiftShader, against 4×4).
//
// TILE, DEPTH and WG (TILE = 8·WG) come from the shape file the engine puts first:
// `tiles_64.wgsl` (64×64 tiles, 8×8 invocations, 32 steps of k per copy: the default) or
// `tiles_128.wgsl` (128×128, 16×16 invocations, 16 steps: for large products on a real GPU); the
// copy into workgroup memory (`copy_tiles`) from `matmul_tile_copy.wgsl`, next. The 4×4-block
// shape is its own loop over the same copy, `matmul_tile_small.wgsl`.

// The m×n×k product's tile at (row0, col0): acc[2r + h] = C[row0 + 8·lid.y + r,
// col0 + 8·lid.x + 4h .. +3], an 8×8 block per invocation, stored through store_value.
// `a_by_k`: A's rows are contiguous (a_cs = 1); `b_by_n`: B's are (b_cs = 1). Every invocation
// of the workgroup must call it.
fn product_tile(s: Sel, row0: u32, col0: u32, lid: vec3<u32>, m: u32, n: u32, k: u32,
                a_by_k: bool, b_by_n: bool) {
    let flat = lid.y * WG + lid.x;
    var acc: array<vec4<f32>, 16>;
    for (var k0 = 0u; k0 < k; k0 = k0 + DEPTH) {
        copy_tiles(s, row0, col0, k0, flat, a_by_k, b_by_n);
        workgroupBarrier();
        // Only the steps inside the matrices, and only by invocations whose block holds some of
        // C (on a narrow product most blocks are padding: W1's output layer is 10 wide). The
        // condition is an `if` around the loop, not the loop's bound, so the barrier below stays
        // in uniform control flow.
        let depth = min(DEPTH, k - k0);
        if (row0 + 8u * lid.y < m && col0 + 8u * lid.x < n) {
            for (var kk = 0u; kk < depth; kk = kk + 1u) {
                let a0 = tile_a[kk][2u * lid.y];
                let a1 = tile_a[kk][2u * lid.y + 1u];
                let b0 = tile_b[kk][2u * lid.x];
                let b1 = tile_b[kk][2u * lid.x + 1u];
                acc[0] = acc[0] + a0.x * b0;
                acc[1] = acc[1] + a0.x * b1;
                acc[2] = acc[2] + a0.y * b0;
                acc[3] = acc[3] + a0.y * b1;
                acc[4] = acc[4] + a0.z * b0;
                acc[5] = acc[5] + a0.z * b1;
                acc[6] = acc[6] + a0.w * b0;
                acc[7] = acc[7] + a0.w * b1;
                acc[8] = acc[8] + a1.x * b0;
                acc[9] = acc[9] + a1.x * b1;
                acc[10] = acc[10] + a1.y * b0;
                acc[11] = acc[11] + a1.y * b1;
                acc[12] = acc[12] + a1.z * b0;
                acc[13] = acc[13] + a1.z * b1;
                acc[14] = acc[14] + a1.w * b0;
                acc[15] = acc[15] + a1.w * b1;
            }
        }
        workgroupBarrier();
    }
    // Constant indices into acc only: an array indexed by a loop counter can be put in local
    // memory (slow, and for the whole loop above) by a compiler that does not unroll that loop.
    let r0 = row0 + 8u * lid.y;
    let c0 = col0 + 8u * lid.x;
    store_row(s, r0, c0, m, n, acc[0], acc[1]);
    store_row(s, r0 + 1u, c0, m, n, acc[2], acc[3]);
    store_row(s, r0 + 2u, c0, m, n, acc[4], acc[5]);
    store_row(s, r0 + 3u, c0, m, n, acc[6], acc[7]);
    store_row(s, r0 + 4u, c0, m, n, acc[8], acc[9]);
    store_row(s, r0 + 5u, c0, m, n, acc[10], acc[11]);
    store_row(s, r0 + 6u, c0, m, n, acc[12], acc[13]);
    store_row(s, r0 + 7u, c0, m, n, acc[14], acc[15]);
}

// C[row, col .. col + 7] = lo, hi, those inside the matrix.
fn store_row(s: Sel, row: u32, col: u32, m: u32, n: u32, lo: vec4<f32>, hi: vec4<f32>) {
    if (row >= m) { return; }
    for (var j = 0u; j < 4u; j = j + 1u) {
        if (col + j < n) { store_value(s, row, col + j, lo[j]); }
    }
    for (var j = 0u; j < 4u; j = j + 1u) {
        if (col + 4u + j < n) { store_value(s, row, col + 4u + j, hi[j]); }
    }
}
