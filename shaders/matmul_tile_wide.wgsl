// The tile loop of `matmul_tile.wgsl` for large products on a real GPU: each workgroup of
// 16×16 invocations computes a 128×128 tile of C, each invocation an 8×8 block, copying 8 steps
// of k at a time (128×8 values of each operand, one vec4 per invocation). Four times the
// invocations per workgroup and twice the reuse of each loaded value: what a GPU with many
// cores needs to hide memory latency on a big product, and too few workgroups for a small one.
// Chosen per adapter and product size by timing (`engine::tiles`); same reads and store as the
// other tiles, each value of C summed over k in the same order.

const TILE: u32 = 128u; // rows and columns of C per workgroup
const DEPTH: u32 = 8u; // steps along k per copy into workgroup memory
const WG: u32 = 16u; // invocations per workgroup side
// tile_a[k][i] holds A rows 4i..4i+3 at column k; tile_b[k][j] holds B columns 4j..4j+3 at row k.
var<workgroup> tile_a: array<array<vec4<f32>, 32>, 8>;
var<workgroup> tile_b: array<array<vec4<f32>, 32>, 8>;

// The m×n×k product's tile at (row0, col0): acc[2r + h] = C[row0 + 8·lid.y + r,
// col0 + 8·lid.x + 4h .. +3].
fn product_tile(s: Sel, row0: u32, col0: u32, lid: vec3<u32>, m: u32, n: u32, k: u32,
                a_by_k: bool, b_by_n: bool) {
    let idx = lid.y * WG + lid.x;
    var acc: array<vec4<f32>, 16>;
    for (var k0 = 0u; k0 < k; k0 = k0 + DEPTH) {
        // 256 invocations copy 128×8 values of each operand, a vec4 each, neighbours reading
        // along whichever stride is contiguous.
        let ka = select(idx / 32u, idx % DEPTH, a_by_k);
        let ia = select(idx % 32u, idx / DEPTH, a_by_k);
        let ra = row0 + 4u * ia;
        tile_a[ka][ia] = vec4<f32>(a_at(s, ra, k0 + ka), a_at(s, ra + 1u, k0 + ka),
                                   a_at(s, ra + 2u, k0 + ka), a_at(s, ra + 3u, k0 + ka));
        let jb = select(idx / DEPTH, idx % 32u, b_by_n);
        let kb = select(idx % DEPTH, idx / 32u, b_by_n);
        let cb = col0 + 4u * jb;
        tile_b[kb][jb] = vec4<f32>(b_at(s, k0 + kb, cb), b_at(s, k0 + kb, cb + 1u),
                                   b_at(s, k0 + kb, cb + 2u), b_at(s, k0 + kb, cb + 3u));
        workgroupBarrier();
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
    for (var r = 0u; r < 8u; r = r + 1u) {
        let row = row0 + lid.y * 8u + r;
        for (var j = 0u; j < 8u; j = j + 1u) {
            let col = col0 + lid.x * 8u + j;
            if (row < m && col < n) {
                store_value(s, row, col, acc[2u * r + j / 4u][j % 4u]);
            }
        }
    }
}
