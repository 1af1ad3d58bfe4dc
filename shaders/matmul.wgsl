// C = A · B for row-major matrices, with A and B read through strides so one kernel
// serves the forward pass (H · Wᵀ), the input gradient (dZ · W) and the weight gradient (dZᵀ · H).
//
//   C[m, n] (+)= Σ_k A[a_off + m·a_rs + k·a_cs] · B[b_off + k·b_rs + n·b_cs]
//   C is M×N, stored densely from c_off.
//
// A batch of independent products runs in one dispatch (workgroup z = product q): product q
// reads A, B and writes C `q·a_bs`, `q·b_bs`, `q·c_bs` further on. The loss landscape uses it
// to run many weight vectors at once (a_bs = 0 when they share their input); products from
// `live` on are skipped (a last, partly filled batch of points).
//
// Tiled twice over. Each workgroup of 8×8 invocations computes a 32×32 tile of C: per step it
// copies a 32×32 slice of A and of B into workgroup memory (every value read from global memory
// is then used 32 times), and each invocation accumulates a 4×4 block of C in registers (every
// value read from workgroup memory is used 4 times, as a vec4). Fewer, larger steps also mean
// fewer barriers, which matters on GPUs emulated on the CPU.

struct Params {
    m: u32, n: u32, k: u32, accumulate: u32,
    a_off: u32, a_rs: u32, a_cs: u32, b_off: u32,
    b_rs: u32, b_cs: u32, c_off: u32, n_groups: u32,
    a_bs: u32, b_bs: u32, c_bs: u32, live: u32,
    z_groups: u32, _pad0: u32, _pad1: u32, _pad2: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

const TILE: u32 = 32u;
// This product's offsets (the batch's q-th, see above); private: set once per invocation.
var<private> a_base: u32;
var<private> b_base: u32;
var<private> c_base: u32;
// tile_a[k][i] holds A rows 4i..4i+3 at column k; tile_b[k][j] holds B columns 4j..4j+3 at row k.
var<workgroup> tile_a: array<array<vec4<f32>, 8>, 32>;
var<workgroup> tile_b: array<array<vec4<f32>, 8>, 32>;

// Workgroups along n take every n_groups-th column tile (a grid-stride loop), so a wide, shallow
// product (a weight gradient: n = 784, k = the batch) runs as a few long-lived workgroups instead
// of many short ones whose start-up would dominate; likewise along the batch, every z_groups-th
// product.
@compute @workgroup_size(8, 8)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let n_tiles = (p.n + TILE - 1u) / TILE;
    for (var q = wg.z; q < p.live; q = q + p.z_groups) {
        a_base = p.a_off + q * p.a_bs;
        b_base = p.b_off + q * p.b_bs;
        c_base = p.c_off + q * p.c_bs;
        for (var tile = wg.x; tile < n_tiles; tile = tile + p.n_groups) {
            product_tile(wg.y * TILE, tile * TILE, lid);
        }
    }
}

fn product_tile(row0: u32, col0: u32, lid: vec3<u32>) {
    let flat = lid.y * 8u + lid.x;
    var acc: array<vec4<f32>, 4>; // acc[i] = C[row0 + 4·lid.y + i, col0 + 4·lid.x .. +3]
    for (var k0 = 0u; k0 < p.k; k0 = k0 + TILE) {
        // 64 invocations copy 32×32 values of each operand: 16 each, zero outside the matrices.
        // Neighbouring invocations read neighbouring addresses: along k where A's rows are
        // contiguous (a_cs = 1), along m where its columns are (transposed reads); same for B.
        for (var e = 0u; e < 16u; e = e + 1u) {
            let idx = e * 64u + flat;
            let kk = select(idx / TILE, idx % TILE, p.a_cs == 1u);
            let mm = select(idx % TILE, idx / TILE, p.a_cs == 1u);
            var va = 0.0;
            if (row0 + mm < p.m && k0 + kk < p.k) {
                va = a[a_base + (row0 + mm) * p.a_rs + (k0 + kk) * p.a_cs];
            }
            tile_a[kk][mm / 4u][mm % 4u] = va;
            let nn = select(idx / TILE, idx % TILE, p.b_cs == 1u);
            let kb = select(idx % TILE, idx / TILE, p.b_cs == 1u);
            var vb = 0.0;
            if (k0 + kb < p.k && col0 + nn < p.n) {
                vb = b[b_base + (k0 + kb) * p.b_rs + (col0 + nn) * p.b_cs];
            }
            tile_b[kb][nn / 4u][nn % 4u] = vb;
        }
        workgroupBarrier();
        for (var kk = 0u; kk < TILE; kk = kk + 1u) {
            let av = tile_a[kk][lid.y];
            let bv = tile_b[kk][lid.x];
            acc[0] = acc[0] + av.x * bv;
            acc[1] = acc[1] + av.y * bv;
            acc[2] = acc[2] + av.z * bv;
            acc[3] = acc[3] + av.w * bv;
        }
        workgroupBarrier();
    }
    for (var i = 0u; i < 4u; i = i + 1u) {
        let row = row0 + lid.y * 4u + i;
        for (var j = 0u; j < 4u; j = j + 1u) {
            let col = col0 + lid.x * 4u + j;
            if (row < p.m && col < p.n) {
                let idx = c_base + row * p.n + col;
                if (p.accumulate != 0u) {
                    c[idx] = c[idx] + acc[i][j];
                } else {
                    c[idx] = acc[i][j];
                }
            }
        }
    }
}
