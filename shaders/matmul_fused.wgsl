// The training step's matrix products with the work around them folded in, so a dense layer's
// step needs fewer dispatches (the teaching kernels, `matmul.wgsl`, `bias.wgsl`,
// `activation.wgsl` and `gather.wgsl`, compute the same values one dispatch each):
//
//   forward:   Z = X · Wᵀ + b and H = act(Z) in one pass (epi 1), where X may be read straight
//              from the data set through the batch's indices (gather 1: the workgroups of the
//              first column tile also store their rows as the batch, for the backward);
//   weights:   [dW | db] = dZᵀ · [X | 1]: the bias gradient is the product with a column of
//              ones beside X (ones ≠ NONE), so dW and db come from one pass over dZ;
//   input:     dZ_below = (dZ · W) ⊙ act'(Z_below) (epi 2): the activation's backward applied to
//              the product as it is stored.
//
// Two independent products can share one dispatch (problem 0 then problem 1, tiles numbered
// across both, both reading the same A): a dense layer's weight and input gradients both read dZ.
// Per problem the fields end in 0 or 1; the tile loop is `matmul_tile.wgsl` and the activations
// `activation_fns.wgsl`, which the engine puts before this file.

struct Params {
    m0: u32, n0: u32, k0: u32, gather0: u32,
    a_off0: u32, a_rs0: u32, a_cs0: u32, b_off0: u32,
    b_rs0: u32, b_cs0: u32, c_off0: u32, bias0: u32,
    epi0: u32, kind0: u32, ones0: u32, tiles_n0: u32,
    m1: u32, n1: u32, k1: u32, gather1: u32,
    a_off1: u32, a_rs1: u32, a_cs1: u32, b_off1: u32,
    b_rs1: u32, b_cs1: u32, c_off1: u32, bias1: u32,
    epi1: u32, kind1: u32, ones1: u32, tiles_n1: u32,
    tiles0: u32, tiles: u32, groups: u32, packed: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;
@group(0) @binding(4) var<storage, read_write> aux: array<f32>; // H (epi 1) or Z_below (epi 2)
@group(0) @binding(5) var<storage, read> b2: array<f32>;
@group(0) @binding(6) var<storage, read_write> c2: array<f32>; // or the batch X (gather 1)
@group(0) @binding(7) var<storage, read> indices: array<u32>;
@group(0) @binding(8) var<storage, read> data_bytes: array<u32>; // the data set, four bytes a word

const NONE: u32 = 0xffffffffu;

// Each dispatch's pipeline is specialized (overridable constants, set by the engine) to what its
// products use, so the compiler drops the rest from the tile loop's reads and the store, where
// every branch left costs time per value on a GPU emulated on the processor. On such a GPU, where
// each compile takes a second or more, the engine builds just two: the forward products and the
// backward ones. The defaults allow everything (the uniform then decides).
override GATHER: bool = true;  // the first product reads its rows through the indices
override ONES: bool = true;    // a product has a column of ones (a bias gradient)
override SECOND: bool = true;  // there is a second product
override EPILOGUE: bool = true; // a product has a bias or an activation in its epilogue

// The current tile's product, passed through the tile loop to the reads and the store. Built
// from the uniform it stays workgroup-uniform, so on a GPU emulated with SIMD lanes its fields
// stay scalar (a per-invocation copy made the weight gradient a third slower on lavapipe, and
// selecting each field per read slower still).
struct Sel {
    m: u32, n: u32, k: u32, gather: u32,
    a_off: u32, a_rs: u32, a_cs: u32, b_off: u32,
    b_rs: u32, b_cs: u32, c_off: u32, bias: u32,
    epi: u32, kind: u32, ones: u32,
    second: bool,
    // This tile's workgroup stores the gathered rows it reads (it holds the first column tile).
    keep: bool,
}

fn product(second: bool) -> Sel {
    if (second) {
        return Sel(p.m1, p.n1, p.k1, p.gather1, p.a_off1, p.a_rs1, p.a_cs1, p.b_off1,
                   p.b_rs1, p.b_cs1, p.c_off1, p.bias1, p.epi1, p.kind1, p.ones1, true, false);
    }
    return Sel(p.m0, p.n0, p.k0, p.gather0, p.a_off0, p.a_rs0, p.a_cs0, p.b_off0,
               p.b_rs0, p.b_cs0, p.c_off0, p.bias0, p.epi0, p.kind0, p.ones0, false, false);
}

// Byte `at` of the packed data set, as the gather kernel turns it into a feature: byte / 255.
fn byte_at(at: u32) -> f32 {
    return byte_of(data_bytes[at / 4u], at);
}

// Byte `at` of the data set from its word `w`.
fn byte_of(w: u32, at: u32) -> f32 {
    return f32((w >> (8u * (at % 4u))) & 255u) / 255.0;
}

fn gathers(s: Sel) -> bool {
    return GATHER && s.gather != 0u;
}

// A[row, k], through the indices when gathered; `row` and `k` inside the matrix.
fn a_value(s: Sel, row: u32, k: u32) -> f32 {
    if (!gathers(s)) { return a[s.a_off + row * s.a_rs + k * s.a_cs]; }
    let at = s.a_off + indices[row] * s.a_rs + k * s.a_cs;
    if (p.packed != 0u) { return byte_at(at); }
    return a[at];
}

fn a_at(s: Sel, row: u32, k: u32) -> f32 {
    if (row >= s.m || k >= s.k) { return 0.0; }
    let v = a_value(s, row, k);
    keep_row_value(s, row, k, v);
    return v;
}

// The gathered batch stored for the backward by the first column tile's workgroups.
fn keep_row_value(s: Sel, row: u32, k: u32, v: f32) {
    if (GATHER && s.keep) { c2[row * s.a_rs + k * s.a_cs] = v; }
}

// The split loop's fetch ahead (`matmul_tile_copy.wgsl`): A's values as raw words, turned into
// floats (and kept) when put. A gathered product finds where rows row .. row + 3 start in the
// data set once per tile (`a_rows`), then each fetch is one read with nothing waiting on it.
fn a_rows(s: Sel, row: u32) -> vec4<u32> {
    if (!gathers(s)) { return vec4<u32>(0u); }
    return vec4<u32>(row_start(s, row), row_start(s, row + 1u), row_start(s, row + 2u),
                     row_start(s, row + 3u));
}

fn row_start(s: Sel, row: u32) -> u32 {
    return s.a_off + indices[min(row, s.m - 1u)] * s.a_rs;
}

fn a_word(s: Sel, start: u32, row: u32, k: u32) -> u32 {
    if (!gathers(s)) { return bitcast<u32>(a_at(s, row, k)); }
    if (row >= s.m || k >= s.k) { return 0u; }
    let at = start + k * s.a_cs;
    if (p.packed != 0u) { return data_bytes[at / 4u]; }
    return bitcast<u32>(a[at]);
}

fn a_cooked(s: Sel, start: u32, row: u32, k: u32, w: u32) -> f32 {
    if (!gathers(s)) { return bitcast<f32>(w); }
    if (row >= s.m || k >= s.k) { return 0.0; }
    var v = bitcast<f32>(w);
    if (p.packed != 0u) { v = byte_of(w, start + k * s.a_cs); }
    keep_row_value(s, row, k, v);
    return v;
}

fn b_at(s: Sel, k: u32, col: u32) -> f32 {
    if (k < s.k && col < s.n) { return b_value(s, s.b_off + k * s.b_rs + col * s.b_cs); }
    // B's column of ones, right of its last column (the bias gradient).
    return select(0.0, 1.0, ONES && k < s.k && col == s.n && s.ones != NONE);
}

fn b_value(s: Sel, at: u32) -> f32 {
    if (SECOND && s.second) { return b2[at]; }
    return b[at];
}

fn c_write(s: Sel, at: u32, v: f32) {
    if (SECOND && s.second) { c2[at] = v; } else { c[at] = v; }
}

// Tiles numbered across both problems, a grid-stride loop over them (a GPU emulated on the
// processor gets as many workgroups as it has cores, see `matmul.wgsl`).
@compute @workgroup_size(WG, WG)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    for (var t = wg.x; t < p.tiles; t = t + p.groups) {
        let second = SECOND && t >= p.tiles0;
        let local = select(t, t - p.tiles0, second);
        let tiles_n = select(p.tiles_n0, p.tiles_n1, second);
        let row0 = (local / tiles_n) * TILE;
        let col0 = (local % tiles_n) * TILE;
        var s = product(second);
        s.keep = GATHER && s.gather == 1u && col0 == 0u;
        let n = s.n + select(0u, 1u, ONES && s.ones != NONE);
        product_tile(s, row0, col0, lid, s.m, n, s.k, s.a_cs == 1u, s.b_cs == 1u);
    }
}

// The epilogue: bias, then the activation's backward (epi 2) or forward (epi 1), as the
// unfused kernels apply them, in the same order; the ones column's products to the bias gradient.
fn store_value(s: Sel, row: u32, col: u32, value: f32) {
    if (ONES && col == s.n) {
        c_write(s, s.ones + row, value);
        return;
    }
    var v = value;
    if (!EPILOGUE) {
        c_write(s, s.c_off + row * s.n + col, v);
        return;
    }
    if (s.bias != NONE) { v = v + b_value(s, s.bias + col); }
    let e = row * s.n + col;
    if (s.epi == 2u) { v = v * act_derivative(s.kind, aux[e]); }
    c_write(s, s.c_off + e, v);
    if (s.epi == 1u) { aux[e] = act(s.kind, v); }
}
