// 2-D convolution (cross-correlation, as in every framework) with stride and zero padding, over
// NCHW tensors: input [B, C, H, W], weights [F, C, KH, KW] and bias [F] inside the flat parameter
// buffer, output [B, F, OH, OW] with OH = (H + 2·pad − KH) / stride + 1.
//
//   forward:         out[b,f,oy,ox] = bias[f] + Σ_{c,ky,kx} W[f,c,ky,kx] · in[b, c, oy·s+ky−pad, ox·s+kx−pad]
//   backward_weight: dW[f,c,ky,kx]  = Σ_{b,oy,ox} dOut[b,f,oy,ox] · in[b, c, oy·s+ky−pad, ox·s+kx−pad]
//   backward_bias:   dbias[f]       = Σ_{b,oy,ox} dOut[b,f,oy,ox]
//   backward_input:  dIn[b,c,y,x]   = Σ_{f,ky,kx} dOut[b,f,oy,ox] · W[f,c,ky,kx]  where y = oy·s+ky−pad
//                    (the "full" correlation of dOut with the flipped kernel, DOMAIN.md §1)
//
// forward and backward_weight are implicit GEMMs: the im2col matrix (one row per output position,
// one column per (c, ky, kx)) is never stored; tiles of it are read straight from the input into
// workgroup memory, 16×16 at a time, like matmul.wgsl.

struct Params {
    batch: u32, in_c: u32, in_h: u32, in_w: u32,
    out_c: u32, out_h: u32, out_w: u32, k_h: u32,
    k_w: u32, stride: u32, pad: u32, w_off: u32,
    b_off: u32, _pad0: u32, _pad1: u32, _pad2: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> input: array<f32>;
@group(0) @binding(2) var<storage, read> weights: array<f32>;
@group(0) @binding(3) var<storage, read_write> output: array<f32>;
@group(0) @binding(4) var<storage, read> d_out: array<f32>;
@group(0) @binding(5) var<storage, read_write> d_in: array<f32>;
@group(0) @binding(6) var<storage, read_write> grads: array<f32>;

const TILE: u32 = 16u;
var<workgroup> tile_a: array<array<f32, 16>, 16>;
var<workgroup> tile_b: array<array<f32, 16>, 16>;

fn patch_len() -> u32 { return p.in_c * p.k_h * p.k_w; }
fn out_plane() -> u32 { return p.out_h * p.out_w; }

// im2col[row, col]: row = output position (b, oy, ox), col = kernel element (c, ky, kx).
fn im2col(row: u32, col: u32) -> f32 {
    let b = row / out_plane();
    let r = row % out_plane();
    let oy = r / p.out_w;
    let ox = r % p.out_w;
    let c = col / (p.k_h * p.k_w);
    let kk = col % (p.k_h * p.k_w);
    let y = i32(oy * p.stride + kk / p.k_w) - i32(p.pad);
    let x = i32(ox * p.stride + kk % p.k_w) - i32(p.pad);
    if (y < 0 || x < 0 || y >= i32(p.in_h) || x >= i32(p.in_w)) { return 0.0; }
    return input[((b * p.in_c + c) * p.in_h + u32(y)) * p.in_w + u32(x)];
}

// dOut viewed as a matrix: row = output position (b, oy, ox), col = filter f.
fn d_out_at(row: u32, f: u32) -> f32 {
    let b = row / out_plane();
    return d_out[(b * p.out_c + f) * out_plane() + row % out_plane()];
}

@compute @workgroup_size(16, 16)
fn forward(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let m = p.batch * out_plane();
    let k = patch_len();
    let row = wg.y * TILE + lid.y; // output position
    let col = wg.x * TILE + lid.x; // filter
    var acc = 0.0;
    for (var t = 0u; t < (k + TILE - 1u) / TILE; t = t + 1u) {
        let ka = t * TILE + lid.x;
        var va = 0.0;
        if (row < m && ka < k) { va = im2col(row, ka); }
        tile_a[lid.y][lid.x] = va;
        let kb = t * TILE + lid.y;
        var vb = 0.0;
        if (kb < k && col < p.out_c) { vb = weights[p.w_off + col * k + kb]; }
        tile_b[lid.y][lid.x] = vb;
        workgroupBarrier();
        for (var i = 0u; i < TILE; i = i + 1u) { acc = acc + tile_a[lid.y][i] * tile_b[i][lid.x]; }
        workgroupBarrier();
    }
    if (row < m && col < p.out_c) {
        let b = row / out_plane();
        output[(b * p.out_c + col) * out_plane() + row % out_plane()] = acc + weights[p.b_off + col];
    }
}

@compute @workgroup_size(16, 16)
fn backward_weight(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let inner = p.batch * out_plane(); // summed over: every output position
    let k = patch_len();
    let f = wg.y * TILE + lid.y;
    let col = wg.x * TILE + lid.x; // kernel element (c, ky, kx)
    var acc = 0.0;
    for (var t = 0u; t < (inner + TILE - 1u) / TILE; t = t + 1u) {
        let ja = t * TILE + lid.x;
        var va = 0.0;
        if (f < p.out_c && ja < inner) { va = d_out_at(ja, f); }
        tile_a[lid.y][lid.x] = va;
        let jb = t * TILE + lid.y;
        var vb = 0.0;
        if (jb < inner && col < k) { vb = im2col(jb, col); }
        tile_b[lid.y][lid.x] = vb;
        workgroupBarrier();
        for (var i = 0u; i < TILE; i = i + 1u) { acc = acc + tile_a[lid.y][i] * tile_b[i][lid.x]; }
        workgroupBarrier();
    }
    if (f < p.out_c && col < k) {
        grads[p.w_off + f * k + col] = acc;
    }
}

@compute @workgroup_size(64)
fn backward_bias(@builtin(global_invocation_id) gid: vec3<u32>) {
    let f = gid.x;
    if (f >= p.out_c) { return; }
    var s = 0.0;
    for (var j = 0u; j < p.batch * out_plane(); j = j + 1u) { s = s + d_out_at(j, f); }
    grads[p.b_off + f] = s;
}

@compute @workgroup_size(256)
fn backward_input(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.batch * p.in_c * p.in_h * p.in_w) { return; }
    let x = i % p.in_w;
    let y = (i / p.in_w) % p.in_h;
    let c = (i / (p.in_w * p.in_h)) % p.in_c;
    let b = i / (p.in_w * p.in_h * p.in_c);
    var s = 0.0;
    for (var ky = 0u; ky < p.k_h; ky = ky + 1u) {
        let ty = i32(y + p.pad) - i32(ky);
        if (ty < 0 || ty % i32(p.stride) != 0) { continue; }
        let oy = u32(ty) / p.stride;
        if (oy >= p.out_h) { continue; }
        for (var kx = 0u; kx < p.k_w; kx = kx + 1u) {
            let tx = i32(x + p.pad) - i32(kx);
            if (tx < 0 || tx % i32(p.stride) != 0) { continue; }
            let ox = u32(tx) / p.stride;
            if (ox >= p.out_w) { continue; }
            for (var f = 0u; f < p.out_c; f = f + 1u) {
                let w = weights[p.w_off + ((f * p.in_c + c) * p.k_h + ky) * p.k_w + kx];
                s = s + d_out[((b * p.out_c + f) * p.out_h + oy) * p.out_w + ox] * w;
            }
        }
    }
    d_in[i] = s;
}
