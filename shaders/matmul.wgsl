// C = A · B for row-major matrices, with A and B read through strides so one kernel
// serves the forward pass (H · Wᵀ), the input gradient (dZ · W) and the weight gradient (dZᵀ · H).
//
//   C[m, n] (+)= Σ_k A[a_off + m·a_rs + k·a_cs] · B[b_off + k·b_rs + n·b_cs]
//   C is M×N from c_off, its rows c_rs apart (n: dense).
//
// A batch of independent products runs in one dispatch (workgroup z = product q): product q
// reads A, B and writes C `q·a_bs`, `q·b_bs`, `q·c_bs` further on. The loss landscape uses it
// to run many weight vectors at once (a_bs = 0 when they share their input); products from
// `live` on are skipped (a last, partly filled batch of points).
//
// The tile loop (`product_tile`) is in `matmul_tile.wgsl` with its shape (`tiles_64.wgsl`: 64×64
// tiles of C per workgroup, 8×8 per invocation, the default; `tiles_128.wgsl`: 128×128 in 16×16
// invocations), or `matmul_tile_small.wgsl` (32×32, 4×4 per invocation), whichever the engine
// puts before this file (with WG, the workgroup's side). The training step runs the fused
// version (`matmul_fused.wgsl`); this one runs everywhere else (prediction, the landscape, the
// convolutions' products, the teaching kernel list).

struct Params {
    m: u32, n: u32, k: u32, accumulate: u32,
    a_off: u32, a_rs: u32, a_cs: u32, b_off: u32,
    b_rs: u32, b_cs: u32, c_off: u32, n_groups: u32,
    a_bs: u32, b_bs: u32, c_bs: u32, live: u32,
    z_groups: u32, c_rs: u32, _pad1: u32, _pad2: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

// The tile loop's pass-through argument: unused here (one product per dispatch).
alias Sel = u32;

// This product's offsets (the batch's q-th, see above); private: set once per invocation.
var<private> a_base: u32;
var<private> b_base: u32;
var<private> c_base: u32;

// Workgroups along n take every n_groups-th column tile (a grid-stride loop), and along the batch
// every z_groups-th product: on a GPU emulated on the processor, which runs one workgroup per core
// at a time, the host dispatches only as many workgroups as it has cores, each looping over its
// share (extra workgroups cost time there: W1's weight gradient, 26 tiles, ran about twice as
// fast in 2 workgroups as in 16). A real GPU gets one workgroup per tile.
@compute @workgroup_size(WG, WG)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let n_tiles = (p.n + TILE - 1u) / TILE;
    for (var q = wg.z; q < p.live; q = q + p.z_groups) {
        a_base = p.a_off + q * p.a_bs;
        b_base = p.b_off + q * p.b_bs;
        c_base = p.c_off + q * p.c_bs;
        for (var tile = wg.x; tile < n_tiles; tile = tile + p.n_groups) {
            let row0 = wg.y * TILE;
            let col0 = tile * TILE;
            product_tile(0u, row0, col0, lid, p.m, p.n, p.k, p.a_cs == 1u, p.b_cs == 1u);
        }
    }
}

// A[row, k] and B[k, col] of this product, zero outside the matrices.
fn a_at(_s: Sel, row: u32, k: u32) -> f32 {
    if (row >= p.m || k >= p.k) { return 0.0; }
    return a[a_base + row * p.a_rs + k * p.a_cs];
}

// The split loop's fetch ahead (`matmul_tile_copy.wgsl`) carries A's values as raw words: here
// their floats' bits.
fn a_rows(_s: Sel, _row: u32) -> vec4<u32> { return vec4<u32>(0u); }
fn a_word(s: Sel, _start: u32, row: u32, k: u32) -> u32 { return bitcast<u32>(a_at(s, row, k)); }
fn a_cooked(_s: Sel, _start: u32, _row: u32, _k: u32, w: u32) -> f32 { return bitcast<f32>(w); }

fn b_at(_s: Sel, k: u32, col: u32) -> f32 {
    if (k >= p.k || col >= p.n) { return 0.0; }
    return b[b_base + k * p.b_rs + col * p.b_cs];
}

fn store_value(_s: Sel, row: u32, col: u32, v: f32) {
    let idx = c_base + row * p.c_rs + col;
    if (p.accumulate != 0u) {
        c[idx] = c[idx] + v;
    } else {
        c[idx] = v;
    }
}
