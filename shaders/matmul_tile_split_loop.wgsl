// The split tile loop for GPUs emulated on the processor: copy a slice of k into workgroup
// memory, then each group multiplies its quarter (`matmul_tile_split.wgsl` holds the parts).

// The m×n×k product's tile at (row0, col0): group g = flat / 64 sums its quarters of k into
// acc, then `finish_split` adds the groups' sums and stores. Every invocation must call it.
fn product_tile(s: Sel, row0: u32, col0: u32, lid: vec3<u32>, m: u32, n: u32, k: u32,
                a_by_k: bool, b_by_n: bool) {
    let flat = lid.y * WG + lid.x;
    let group = flat / 64u;
    let ty = (flat % 64u) / 8u;
    let tx = flat % 8u;
    var acc: array<vec4<f32>, 4>;
    for (var k0 = 0u; k0 < k; k0 = k0 + DEPTH) {
        copy_tiles(s, row0, col0, k0, flat, a_by_k, b_by_n);
        workgroupBarrier();
        if (row0 + 4u * ty < m && col0 + 4u * tx < n) {
            multiply_quarter(&acc, group, ty, tx, min(DEPTH, k - k0));
        }
        workgroupBarrier();
    }
    finish_split(s, &acc, flat, row0, col0, m, n);
}
