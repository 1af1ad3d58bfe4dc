// 2-D convolution (cross-correlation, as in every framework) with stride and zero padding, over
// NCHW tensors: input [B, C, H, W], weights [F, C, KH, KW] and bias [F] inside the flat parameter
// buffer, output [B, F, OH, OW] with OH = (H + 2·pad − KH) / stride + 1.
//
//   forward:         out[b,f,oy,ox] = bias[f] + Σ_{c,ky,kx} W[f,c,ky,kx] · in[b, c, oy·s+ky−pad, ox·s+kx−pad]
//   backward_weight: dW[f,c,ky,kx]  = Σ_{b,oy,ox} dOut[b,f,oy,ox] · in[b, c, oy·s+ky−pad, ox·s+kx−pad]
//   backward_bias:   dbias[f]       = Σ_{b,oy,ox} dOut[b,f,oy,ox]
//   backward_input:  dIn[b,c,y,x]   = Σ_{f,ky,kx} dOut[b,f,oy,ox] · W[f,c,ky,kx]  where y = oy·s+ky−pad
//                    (the "full" correlation of dOut with the flipped kernel, docs/theory.md §1.2)
//
// forward and backward_weight are implicit GEMMs: the im2col matrix (one row per output position
// r = (b, oy, ox), one column per kernel element q = (c, ky, kx)) is never stored; tiles of it are
// read straight from the input into workgroup memory. Like matmul.wgsl, each workgroup of 64
// invocations computes a 64×16 tile and each invocation a 4×4 block of it in registers.
//
// forward also runs several weight vectors at once (the loss landscape's points): workgroup z = q
// reads its input `q·in_stride` further on (0 when the points share their input, the data), its
// weights `q·w_stride` further on, and writes its own block of the output; points from `live`
// on are skipped.
//
// backward_weight sums over every output position of the batch (tens of thousands): so that many
// workgroups share that work, each sums one chunk of `chunk` positions into its own slot of
// `partials` ("split-K"), and backward_reduce adds the slots up.

struct Params {
    batch: u32, in_c: u32, in_h: u32, in_w: u32,
    out_c: u32, out_h: u32, out_w: u32, k_h: u32,
    k_w: u32, stride: u32, pad: u32, w_off: u32,
    b_off: u32, chunk: u32, row_groups: u32, _pad2: u32,
    in_stride: u32, w_stride: u32, live: u32, _pad4: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> input: array<f32>;
@group(0) @binding(2) var<storage, read> weights: array<f32>;
@group(0) @binding(3) var<storage, read_write> output: array<f32>;
@group(0) @binding(4) var<storage, read> d_out: array<f32>;
@group(0) @binding(5) var<storage, read_write> d_in: array<f32>;
@group(0) @binding(6) var<storage, read_write> grads: array<f32>;
@group(0) @binding(7) var<storage, read_write> partials: array<f32>;

// tile_a[k][i]: four consecutive rows (4i..4i+3) of the 64-row operand at step k;
// tile_b[k][j]: four consecutive filters (4j..4j+3) of the 16-filter operand at step k.
var<workgroup> tile_a: array<array<vec4<f32>, 16>, 16>;
var<workgroup> tile_b: array<array<vec4<f32>, 4>, 16>;

// The point's offsets in forward (see above); zero in the backward passes.
var<private> in_base: u32;
var<private> w_base: u32;
var<private> out_base: u32;

fn patch_len() -> u32 { return p.in_c * p.k_h * p.k_w; }
fn out_plane() -> u32 { return p.out_h * p.out_w; }
fn positions() -> u32 { return p.batch * out_plane(); }
fn weight_len() -> u32 { return p.out_c * patch_len(); }

// in[b, c, y, x], zero in the padding (coordinates outside the image).
fn input_at(b: u32, c: u32, y: i32, x: i32) -> f32 {
    if (y < 0 || x < 0 || y >= i32(p.in_h) || x >= i32(p.in_w)) { return 0.0; }
    return input[in_base + ((b * p.in_c + c) * p.in_h + u32(y)) * p.in_w + u32(x)];
}

// dOut viewed as a matrix: row = output position (b, oy, ox), col = filter f.
fn d_out_at(row: u32, f: u32) -> f32 {
    let b = row / out_plane();
    return d_out[(b * p.out_c + f) * out_plane() + row % out_plane()];
}

// acc[i] += a[i] · b for the 16 steps in the tiles.
fn multiply_tiles(acc: ptr<function, array<vec4<f32>, 4>>, i: u32, j: u32) {
    for (var k = 0u; k < 16u; k = k + 1u) {
        let av = tile_a[k][i];
        let bv = tile_b[k][j];
        (*acc)[0] = (*acc)[0] + av.x * bv;
        (*acc)[1] = (*acc)[1] + av.y * bv;
        (*acc)[2] = (*acc)[2] + av.z * bv;
        (*acc)[3] = (*acc)[3] + av.w * bv;
    }
}

// Point z's offsets in forward (see above).
fn enter_point(z: u32) {
    in_base = z * p.in_stride;
    w_base = z * p.w_stride;
    out_base = z * positions() * p.out_c;
}

// Workgroups along the rows take every row_groups-th tile of 64 (a grid-stride loop): a few
// long-lived workgroups rather than hundreds of short ones whose start-up would dominate.
fn row_tiles(rows: u32) -> u32 { return (rows + 63u) / 64u; }

// out[r, f] = bias[f] + Σ_q im2col[r, q] · W[f, q]: 64 positions × 16 filters per tile.
@compute @workgroup_size(4, 16)
fn forward(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    if (wg.z >= p.live) { return; }
    enter_point(wg.z);
    for (var t = wg.y; t < row_tiles(positions()); t = t + p.row_groups) {
        forward_tile(t * 64u, wg.x * 16u, lid);
    }
}

fn forward_tile(row0: u32, f0: u32, lid: vec3<u32>) {
    let k = patch_len();
    let flat = lid.y * 4u + lid.x;
    // This invocation copies im2col row `mine`: locate its window once, then walk (c, ky, kx).
    let mine = row0 + flat;
    let b = mine / out_plane();
    let pix = mine % out_plane();
    let y0 = i32((pix / p.out_w) * p.stride) - i32(p.pad);
    let x0 = i32((pix % p.out_w) * p.stride) - i32(p.pad);
    var c = 0u;
    var ky = 0u;
    var kx = 0u;
    var acc: array<vec4<f32>, 4>;
    for (var k0 = 0u; k0 < k; k0 = k0 + 16u) {
        for (var e = 0u; e < 16u; e = e + 1u) {
            var v = 0.0;
            if (mine < positions() && k0 + e < k) {
                v = input_at(b, c, y0 + i32(ky), x0 + i32(kx));
            }
            tile_a[e][flat / 4u][flat % 4u] = v;
            kx = kx + 1u;
            if (kx == p.k_w) { kx = 0u; ky = ky + 1u; }
            if (ky == p.k_h) { ky = 0u; c = c + 1u; }
        }
        for (var e = 0u; e < 4u; e = e + 1u) {
            let idx = e * 64u + flat;
            let ff = idx % 16u;
            let kk = idx / 16u;
            var v = 0.0;
            if (f0 + ff < p.out_c && k0 + kk < k) { v = weights[w_base + p.w_off + (f0 + ff) * k + k0 + kk]; }
            tile_b[kk][ff / 4u][ff % 4u] = v;
        }
        workgroupBarrier();
        multiply_tiles(&acc, lid.y, lid.x);
        workgroupBarrier();
    }
    // Constant indices into acc only: an array indexed by a loop counter can live in local
    // memory (slow) on a GPU whose compiler does not unroll the loop.
    let r = row0 + lid.y * 4u;
    let f = f0 + lid.x * 4u;
    store_forward(r, f, acc[0]);
    store_forward(r + 1u, f, acc[1]);
    store_forward(r + 2u, f, acc[2]);
    store_forward(r + 3u, f, acc[3]);
}

// out[position r, filters f .. f + 3] = v + bias, those inside the output.
fn store_forward(r: u32, f: u32, v: vec4<f32>) {
    if (r >= positions()) { return; }
    let rb = r / out_plane();
    let rp = r % out_plane();
    for (var j = 0u; j < 4u; j = j + 1u) {
        if (f + j < p.out_c) {
            let at = out_base + (rb * p.out_c + f + j) * out_plane() + rp;
            output[at] = v[j] + weights[w_base + p.b_off + f + j];
        }
    }
}

// partials[s, f, q] = Σ_{r in chunk s} dOut[r, f] · im2col[r, q], and partials[s, bias f] =
// Σ_{r in chunk s} dOut[r, f]: 64 kernel elements × 16 filters per workgroup, chunk s = wg.z.
@compute @workgroup_size(4, 16)
fn backward_weight(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let k = patch_len();
    let q0 = wg.y * 64u;
    let f0 = wg.x * 16u;
    let flat = lid.y * 4u + lid.x;
    let first = wg.z * p.chunk;
    let last = min(first + p.chunk, positions());
    // This invocation copies im2col column `mine` = (c, ky, kx) and walks the positions.
    let mine = q0 + flat;
    let c = mine / (p.k_h * p.k_w);
    let ky = i32((mine / p.k_w) % p.k_h) - i32(p.pad);
    let kx = i32(mine % p.k_w) - i32(p.pad);
    var b = first / out_plane();
    var oy = (first % out_plane()) / p.out_w;
    var ox = first % p.out_w;
    var acc: array<vec4<f32>, 4>;
    var bias = vec4<f32>(0.0);
    for (var r0 = first; r0 < last; r0 = r0 + 16u) {
        for (var e = 0u; e < 16u; e = e + 1u) {
            var v = 0.0;
            if (mine < k && r0 + e < last) {
                v = input_at(b, c, i32(oy * p.stride) + ky, i32(ox * p.stride) + kx);
            }
            tile_a[e][flat / 4u][flat % 4u] = v;
            ox = ox + 1u;
            if (ox == p.out_w) { ox = 0u; oy = oy + 1u; }
            if (oy == p.out_h) { oy = 0u; b = b + 1u; }
        }
        for (var e = 0u; e < 4u; e = e + 1u) {
            let idx = e * 64u + flat;
            let ff = idx % 16u;
            let rr = idx / 16u;
            var v = 0.0;
            if (f0 + ff < p.out_c && r0 + rr < last) { v = d_out_at(r0 + rr, f0 + ff); }
            tile_b[rr][ff / 4u][ff % 4u] = v;
        }
        workgroupBarrier();
        multiply_tiles(&acc, lid.y, lid.x);
        if (lid.y == 0u) {
            for (var kk = 0u; kk < 16u; kk = kk + 1u) { bias = bias + tile_b[kk][lid.x]; }
        }
        workgroupBarrier();
    }
    let slot = wg.z * (weight_len() + p.out_c);
    // Constant indices into acc only (see forward_tile).
    let q = q0 + lid.y * 4u;
    let f = f0 + lid.x * 4u;
    store_partial(slot, q, f, acc[0]);
    store_partial(slot, q + 1u, f, acc[1]);
    store_partial(slot, q + 2u, f, acc[2]);
    store_partial(slot, q + 3u, f, acc[3]);
    if (lid.y == 0u && wg.y == 0u) {
        for (var j = 0u; j < 4u; j = j + 1u) {
            if (f + j < p.out_c) { partials[slot + weight_len() + f + j] = bias[j]; }
        }
    }
}

// partials[slot, filters f .. f + 3, kernel element q] = v, those inside the weights.
fn store_partial(slot: u32, q: u32, f: u32, v: vec4<f32>) {
    let k = patch_len();
    if (q >= k) { return; }
    for (var j = 0u; j < 4u; j = j + 1u) {
        if (f + j < p.out_c) { partials[slot + (f + j) * k + q] = v[j]; }
    }
}

// grads[weights, then bias] = Σ_s partials[s, ·]: one invocation per weight or bias.
@compute @workgroup_size(64)
fn backward_reduce(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let len = weight_len() + p.out_c;
    if (i >= len) { return; }
    let chunks = (positions() + p.chunk - 1u) / p.chunk;
    var s = 0.0;
    for (var c = 0u; c < chunks; c = c + 1u) { s = s + partials[c * len + i]; }
    if (i < weight_len()) {
        grads[p.w_off + i] = s;
    } else {
        grads[p.b_off + i - weight_len()] = s;
    }
}

// dIn[b, c, y, x] = Σ_{f, ky, kx} dOut[b, f, oy, ox] · W[f, c, ky, kx] over the (oy, ox) whose
// window covers (y, x): oy·s + ky − pad = y. Also an implicit GEMM: rows = input positions
// (b, y, x), columns = channels c, summed over (f, ky, kx); 64 positions × 16 channels per tile.
@compute @workgroup_size(4, 16)
fn backward_input(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    for (var t = wg.y; t < row_tiles(p.batch * p.in_h * p.in_w); t = t + p.row_groups) {
        backward_input_tile(t * 64u, wg.x * 16u, lid);
    }
}

fn backward_input_tile(row0: u32, c0: u32, lid: vec3<u32>) {
    let plane = p.in_h * p.in_w;
    let rows = p.batch * plane;
    let taps = p.k_h * p.k_w;
    let k = p.out_c * taps;
    let flat = lid.y * 4u + lid.x;
    // This invocation copies row `mine` = (b, y, x) and walks (f, ky, kx).
    let mine = row0 + flat;
    let b = mine / plane;
    let y = i32((mine % plane) / p.in_w + p.pad);
    let x = i32(mine % p.in_w + p.pad);
    let s = i32(p.stride);
    var f = 0u;
    var ky = 0u;
    var kx = 0u;
    var acc: array<vec4<f32>, 4>;
    for (var k0 = 0u; k0 < k; k0 = k0 + 16u) {
        for (var e = 0u; e < 16u; e = e + 1u) {
            var v = 0.0;
            let ty = y - i32(ky);
            let tx = x - i32(kx);
            if (mine < rows && k0 + e < k && ty >= 0 && tx >= 0 && ty % s == 0 && tx % s == 0) {
                let oy = u32(ty / s);
                let ox = u32(tx / s);
                if (oy < p.out_h && ox < p.out_w) {
                    v = d_out[((b * p.out_c + f) * p.out_h + oy) * p.out_w + ox];
                }
            }
            tile_a[e][flat / 4u][flat % 4u] = v;
            kx = kx + 1u;
            if (kx == p.k_w) { kx = 0u; ky = ky + 1u; }
            if (ky == p.k_h) { ky = 0u; f = f + 1u; }
        }
        for (var e = 0u; e < 4u; e = e + 1u) {
            let idx = e * 64u + flat;
            let cc = idx % 16u;
            let kk = idx / 16u;
            var v = 0.0;
            if (c0 + cc < p.in_c && k0 + kk < k) {
                let q = k0 + kk;
                v = weights[p.w_off + ((q / taps) * p.in_c + c0 + cc) * taps + q % taps];
            }
            tile_b[kk][cc / 4u][cc % 4u] = v;
        }
        workgroupBarrier();
        multiply_tiles(&acc, lid.y, lid.x);
        workgroupBarrier();
    }
    // Constant indices into acc only (see forward_tile).
    let r = row0 + lid.y * 4u;
    let c = c0 + lid.x * 4u;
    store_input_grad(r, c, acc[0]);
    store_input_grad(r + 1u, c, acc[1]);
    store_input_grad(r + 2u, c, acc[2]);
    store_input_grad(r + 3u, c, acc[3]);
}

// dIn[position r, channels c .. c + 3] = v, those inside the input.
fn store_input_grad(r: u32, c: u32, v: vec4<f32>) {
    let plane = p.in_h * p.in_w;
    if (r >= p.batch * plane) { return; }
    for (var j = 0u; j < 4u; j = j + 1u) {
        if (c + j < p.in_c) { d_in[((r / plane) * p.in_c + c + j) * plane + r % plane] = v[j]; }
    }
}
