// The tile loop of `matmul_tile.wgsl` with smaller tiles: each workgroup of 8×8 invocations
// computes a 32×32 tile of C, each invocation a 4×4 block. A quarter of the values per
// workgroup, so four times the workgroups: a skinny product (W1's first, 64 × 128) keeps more
// cores of a real GPU busy, at the price of reading each loaded value 32 rather than 64 times.
// Chosen per adapter by timing (`engine::tiles`); same reads and store as the large tiles.

const TILE: u32 = 32u; // rows and columns of C per workgroup
const DEPTH: u32 = 32u; // steps along k per copy into workgroup memory
const WG: u32 = 8u; // invocations per workgroup side
// tile_a[k][i] holds A rows 4i..4i+3 at column k; tile_b[k][j] holds B columns 4j..4j+3 at row k.
var<workgroup> tile_a: array<array<vec4<f32>, 8>, 32>;
var<workgroup> tile_b: array<array<vec4<f32>, 8>, 32>;

// The m×n×k product's tile at (row0, col0): acc[r] = C[row0 + 4·lid.y + r, col0 + 4·lid.x .. +3].
fn product_tile(s: Sel, row0: u32, col0: u32, lid: vec3<u32>, m: u32, n: u32, k: u32,
                a_by_k: bool, b_by_n: bool) {
    let flat = lid.y * 8u + lid.x;
    var acc: array<vec4<f32>, 4>;
    for (var k0 = 0u; k0 < k; k0 = k0 + DEPTH) {
        // 64 invocations copy 32×32 values of each operand as 4 vec4 each, reading along
        // whichever stride is contiguous (as in the large tiles).
        for (var e = 0u; e < 4u; e = e + 1u) {
            let idx = e * 64u + flat;
            let ka = select(idx / 8u, idx % DEPTH, a_by_k);
            let ia = select(idx % 8u, idx / DEPTH, a_by_k);
            let ra = row0 + 4u * ia;
            tile_a[ka][ia] = vec4<f32>(a_at(s, ra, k0 + ka), a_at(s, ra + 1u, k0 + ka),
                                       a_at(s, ra + 2u, k0 + ka), a_at(s, ra + 3u, k0 + ka));
            let jb = select(idx / DEPTH, idx % 8u, b_by_n);
            let kb = select(idx % DEPTH, idx / 8u, b_by_n);
            let cb = col0 + 4u * jb;
            tile_b[kb][jb] = vec4<f32>(b_at(s, k0 + kb, cb), b_at(s, k0 + kb, cb + 1u),
                                       b_at(s, k0 + kb, cb + 2u), b_at(s, k0 + kb, cb + 3u));
        }
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
    for (var r = 0u; r < 4u; r = r + 1u) {
        let row = row0 + lid.y * 4u + r;
        for (var j = 0u; j < 4u; j = j + 1u) {
            let col = col0 + lid.x * 4u + j;
            if (row < m && col < n) {
                store_value(s, row, col, acc[r][j]);
            }
        }
    }
}
