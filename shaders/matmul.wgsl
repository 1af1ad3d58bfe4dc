// C = A · B for row-major matrices, with A and B read through strides so one kernel
// serves the forward pass (H · Wᵀ), the input gradient (dZ · W) and the weight gradient (dZᵀ · H).
//
//   C[m, n] (+)= Σ_k A[a_off + m·a_rs + k·a_cs] · B[b_off + k·b_rs + n·b_cs]
//   C is M×N, stored densely from c_off.
//
// Tiled: each 16×16 workgroup loads a 16×16 tile of A and of B into workgroup memory, so every
// value read from global memory is reused 16 times.

struct Params {
    m: u32, n: u32, k: u32, accumulate: u32,
    a_off: u32, a_rs: u32, a_cs: u32, b_off: u32,
    b_rs: u32, b_cs: u32, c_off: u32, _pad: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

const TILE: u32 = 16u;
var<workgroup> tile_a: array<array<f32, 16>, 16>;
var<workgroup> tile_b: array<array<f32, 16>, 16>;

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = wg.y * TILE + lid.y; // m
    let col = wg.x * TILE + lid.x; // n
    var acc = 0.0;
    let tiles = (p.k + TILE - 1u) / TILE;
    for (var t = 0u; t < tiles; t = t + 1u) {
        // Each invocation loads one element of each tile (zero outside the matrix).
        let ka = t * TILE + lid.x;
        var va = 0.0;
        if (row < p.m && ka < p.k) {
            va = a[p.a_off + row * p.a_rs + ka * p.a_cs];
        }
        tile_a[lid.y][lid.x] = va;
        let kb = t * TILE + lid.y;
        var vb = 0.0;
        if (kb < p.k && col < p.n) {
            vb = b[p.b_off + kb * p.b_rs + col * p.b_cs];
        }
        tile_b[lid.y][lid.x] = vb;
        workgroupBarrier();
        for (var i = 0u; i < TILE; i = i + 1u) {
            acc = acc + tile_a[lid.y][i] * tile_b[i][lid.x];
        }
        workgroupBarrier();
    }
    if (row < p.m && col < p.n) {
        let idx = p.c_off + row * p.n + col;
        if (p.accumulate != 0u) {
            c[idx] = c[idx] + acc;
        } else {
            c[idx] = acc;
        }
    }
}
