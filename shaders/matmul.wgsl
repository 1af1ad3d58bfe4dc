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
// Tiled twice over. Each workgroup of 8×8 invocations computes a 64×64 tile of C: per step it
// copies a 64×32 slice of A and a 32×64 slice of B into workgroup memory (every value read from
// global memory is then used 64 times), and each invocation accumulates an 8×8 block of C in
// registers (every value read from workgroup memory is used 8 times: 4 reads of a vec4 feed 16
// vec4 multiply-adds). Fewer, larger steps also mean fewer barriers, which matters on GPUs
// emulated on the CPU, where every read of workgroup memory is a gather of separate lanes (the
// 8×8 block took W1 from about 1,070 to 1,200–1,600 samples/s on SwiftShader, against 4×4).

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

const TILE: u32 = 64u; // rows and columns of C per workgroup
const DEPTH: u32 = 32u; // steps along k per copy into workgroup memory
// This product's offsets (the batch's q-th, see above); private: set once per invocation.
var<private> a_base: u32;
var<private> b_base: u32;
var<private> c_base: u32;
// tile_a[k][i] holds A rows 4i..4i+3 at column k; tile_b[k][j] holds B columns 4j..4j+3 at row k
// (8 KB each: the two fill the 16 KB of workgroup memory every WebGPU device has).
var<workgroup> tile_a: array<array<vec4<f32>, 16>, 32>;
var<workgroup> tile_b: array<array<vec4<f32>, 16>, 32>;

// Workgroups along n take every n_groups-th column tile (a grid-stride loop), and along the batch
// every z_groups-th product: on a GPU emulated on the processor, which runs one workgroup per core
// at a time, the host dispatches only as many workgroups as it has cores, each looping over its
// share (extra workgroups cost time there: W1's weight gradient, 26 tiles, ran about twice as
// fast in 2 workgroups as in 16). A real GPU gets one workgroup per tile.
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

// A[row, k] and B[k, col] of this product, zero outside the matrices.
fn a_at(row: u32, k: u32) -> f32 {
    if (row >= p.m || k >= p.k) { return 0.0; }
    return a[a_base + row * p.a_rs + k * p.a_cs];
}

fn b_at(k: u32, col: u32) -> f32 {
    if (k >= p.k || col >= p.n) { return 0.0; }
    return b[b_base + k * p.b_rs + col * p.b_cs];
}

fn product_tile(row0: u32, col0: u32, lid: vec3<u32>) {
    let flat = lid.y * 8u + lid.x;
    // acc[2r + h] = C[row0 + 8·lid.y + r, col0 + 8·lid.x + 4h .. +3]: an 8×8 block per invocation.
    var acc: array<vec4<f32>, 16>;
    for (var k0 = 0u; k0 < p.k; k0 = k0 + DEPTH) {
        // 64 invocations copy 64×32 values of each operand, as 8 vec4 each (a whole vec4 per
        // write: writing single lanes of a vector in workgroup memory can cost a read-modify-write
        // of the whole vector), zero outside the matrices. Neighbouring invocations read
        // neighbouring addresses: along k where A's rows are contiguous (a_cs = 1), along m where
        // its columns are (transposed reads); same for B.
        for (var e = 0u; e < 8u; e = e + 1u) {
            let idx = e * 64u + flat;
            let ka = select(idx / 16u, idx % DEPTH, p.a_cs == 1u);
            let ia = select(idx % 16u, idx / DEPTH, p.a_cs == 1u);
            let ra = row0 + 4u * ia;
            tile_a[ka][ia] = vec4<f32>(a_at(ra, k0 + ka), a_at(ra + 1u, k0 + ka),
                                       a_at(ra + 2u, k0 + ka), a_at(ra + 3u, k0 + ka));
            let jb = select(idx / DEPTH, idx % 16u, p.b_cs == 1u);
            let kb = select(idx % DEPTH, idx / 16u, p.b_cs == 1u);
            let cb = col0 + 4u * jb;
            tile_b[kb][jb] = vec4<f32>(b_at(k0 + kb, cb), b_at(k0 + kb, cb + 1u),
                                       b_at(k0 + kb, cb + 2u), b_at(k0 + kb, cb + 3u));
        }
        workgroupBarrier();
        // Only the steps inside the matrices, and only by invocations whose block holds some of
        // C (on a narrow product most blocks are padding: W1's output layer is 10 wide). The
        // condition is an `if` around the loop, not the loop's bound, so the barrier below stays
        // in uniform control flow.
        let depth = min(DEPTH, p.k - k0);
        if (row0 + 8u * lid.y < p.m && col0 + 8u * lid.x < p.n) {
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
            if (row < p.m && col < p.n) {
                let idx = c_base + row * p.n + col;
                let v = acc[2u * r + j / 4u][j % 4u];
                if (p.accumulate != 0u) {
                    c[idx] = c[idx] + v;
                } else {
                    c[idx] = v;
                }
            }
        }
    }
}
