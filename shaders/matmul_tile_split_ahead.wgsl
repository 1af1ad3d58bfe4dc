// The split tile loop for real GPUs, fetching ahead (`matmul_tile_split.wgsl` holds the parts).
// Software pipelining: each invocation holds its share of the next slice of k (COPIES = 2 vec4s
// of each operand in this shape) in registers, fetched before the multiply-adds of the current
// one, so the reads' latency passes while the workgroup computes; a small product's few
// workgroups would otherwise wait on memory at every slice (on an H100 this made W1's first
// product 2.4× faster). A's values travel as raw words until put (`fetch_a_words`, `cook_a`).
// Same sums in the same order as `matmul_tile_split_loop.wgsl`.

// The m×n×k product's tile at (row0, col0), as in `matmul_tile_split_loop.wgsl`.
fn product_tile(s: Sel, row0: u32, col0: u32, lid: vec3<u32>, m: u32, n: u32, k: u32,
                a_by_k: bool, b_by_n: bool) {
    let flat = lid.y * WG + lid.x;
    let group = flat / 64u;
    let ty = (flat % 64u) / 8u;
    let tx = flat % 8u;
    var acc: array<vec4<f32>, 4>;
    var at0 = a_place(row0, 0u, flat, a_by_k);
    var at1 = a_place(row0, 0u, flat + WG * WG, a_by_k);
    let starts0 = a_rows(s, at0.x);
    let starts1 = a_rows(s, at1.x);
    var a0 = fetch_a_words(s, starts0, at0);
    var a1 = fetch_a_words(s, starts1, at1);
    var b0 = fetch_b(s, col0, 0u, flat, b_by_n);
    var b1 = fetch_b(s, col0, 0u, flat + WG * WG, b_by_n);
    for (var k0 = 0u; k0 < k; k0 = k0 + DEPTH) {
        put_a(flat, a_by_k, cook_a(s, starts0, at0, a0));
        put_a(flat + WG * WG, a_by_k, cook_a(s, starts1, at1, a1));
        put_b(flat, b_by_n, b0);
        put_b(flat + WG * WG, b_by_n, b1);
        workgroupBarrier();
        let next = k0 + DEPTH;
        if (next < k) {
            at0 = a_place(row0, next, flat, a_by_k);
            at1 = a_place(row0, next, flat + WG * WG, a_by_k);
            a0 = fetch_a_words(s, starts0, at0);
            a1 = fetch_a_words(s, starts1, at1);
            b0 = fetch_b(s, col0, next, flat, b_by_n);
            b1 = fetch_b(s, col0, next, flat + WG * WG, b_by_n);
        }
        if (row0 + 4u * ty < m && col0 + 4u * tx < n) {
            multiply_quarter(&acc, group, ty, tx, min(DEPTH, k - k0));
        }
        workgroupBarrier();
    }
    finish_split(s, &acc, flat, row0, col0, m, n);
}
