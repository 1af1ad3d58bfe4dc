// The tile loop of `matmul_tile.wgsl` with smaller tiles: each workgroup of 8×8 invocations
// computes a 32×32 tile of C, each invocation a 4×4 block. A quarter of the values per
// workgroup, so four times the workgroups: a skinny product (W1's first, 64 × 128) keeps more
// cores of a real GPU busy, at the price of reading each loaded value 32 rather than 64 times.
// Chosen per adapter by timing (`engine::tiles`); same reads and store as the large tiles, and
// the same copy into workgroup memory (`matmul_tile_copy.wgsl`, with `tiles_32.wgsl`'s shape).

// The m×n×k product's tile at (row0, col0): acc[r] = C[row0 + 4·lid.y + r, col0 + 4·lid.x .. +3].
fn product_tile(s: Sel, row0: u32, col0: u32, lid: vec3<u32>, m: u32, n: u32, k: u32,
                a_by_k: bool, b_by_n: bool) {
    let flat = lid.y * WG + lid.x;
    var acc: array<vec4<f32>, 4>;
    for (var k0 = 0u; k0 < k; k0 = k0 + DEPTH) {
        copy_tiles(s, row0, col0, k0, flat, a_by_k, b_by_n);
        workgroupBarrier();
        let depth = min(DEPTH, k - k0);
        if (row0 + 4u * lid.y < m && col0 + 4u * lid.x < n) {
            for (var kk = 0u; kk < depth; kk = kk + 1u) {
                let a0 = tile_a[kk][lid.y];
                let b0 = tile_b[kk][lid.x];
                acc[0] = acc[0] + a0.x * b0;
                acc[1] = acc[1] + a0.y * b0;
                acc[2] = acc[2] + a0.z * b0;
                acc[3] = acc[3] + a0.w * b0;
            }
        }
        workgroupBarrier();
    }
    // Constant indices into acc only (see `matmul_tile.wgsl`).
    let r0 = row0 + 4u * lid.y;
    let c0 = col0 + 4u * lid.x;
    store_row4(s, r0, c0, m, n, acc[0]);
    store_row4(s, r0 + 1u, c0, m, n, acc[1]);
    store_row4(s, r0 + 2u, c0, m, n, acc[2]);
    store_row4(s, r0 + 3u, c0, m, n, acc[3]);
}
