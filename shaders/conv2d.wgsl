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
// The three are implicit GEMMs: the im2col matrix (one row per output position r = (b, oy, ox),
// one column per kernel element q = (c, ky, kx)) is never stored. Here each invocation sums an
// 8 × 8 block of the product (8 rows × 8 filters or channels) over all of k, reading its operands
// straight from the storage buffers: no workgroup memory, no barriers. That suits a GPU emulated
// on the processor (SwiftShader, lavapipe), which runs four or eight invocations as the lanes of
// one vector and reads memory lane by lane, so what counts is reads per multiply-add (here 16 per
// 64); a real GPU runs `conv2d_ahead.wgsl`'s tiles in workgroup memory instead.
//
// forward also runs several weight vectors at once (the loss landscape's points): workgroup z = q
// reads its input `q·in_stride` further on (0 when the points share their input, the data), its
// weights `q·w_stride` further on, and writes its own block of the output; points from `live`
// on are skipped.
//
// backward_weight sums over every output position of the batch (tens of thousands): so that many
// invocations share that work, each sums one chunk of `chunk` positions into its own slot of
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

// The point's offsets in forward (see above); zero in the backward passes.
var<private> in_base: u32;
var<private> w_base: u32;
var<private> out_base: u32;

fn patch_len() -> u32 { return p.in_c * p.k_h * p.k_w; }
fn out_plane() -> u32 { return p.out_h * p.out_w; }
fn positions() -> u32 { return p.batch * out_plane(); }
fn weight_len() -> u32 { return p.out_c * patch_len(); }

// Point z's offsets in forward (see above).
fn enter_point(z: u32) {
    in_base = z * p.in_stride;
    w_base = z * p.w_stride;
    out_base = z * positions() * p.out_c;
}

// Invocations per workgroup, and rows and columns of each one's block.
const GROUP: u32 = 64u;
const BLOCK: u32 = 8u;

// Workgroups along the rows take every row_groups-th tile of GROUP · BLOCK rows (a grid-stride
// loop): a few long-lived workgroups rather than many short ones whose start-up would dominate.
fn block_tiles(rows: u32) -> u32 { return (rows + GROUP * BLOCK - 1u) / (GROUP * BLOCK); }

// Four places (y, x) in a plane of h × w: each one's offset y·w + x (clamped inside the plane,
// so reads stay in it) and whether it lies inside (not in the padding).
struct Tap { at: vec4<u32>, inside: vec4<bool> }

fn tap_in(y: vec4<i32>, x: vec4<i32>, h: u32, w: u32) -> Tap {
    let zero = vec4<i32>(0);
    let hh = vec4<i32>(i32(h));
    let ww = vec4<i32>(i32(w));
    let inside = (y >= zero) & (y < hh) & (x >= zero) & (x < ww);
    return Tap(vec4<u32>(clamp(y, zero, hh - 1)) * w + vec4<u32>(clamp(x, zero, ww - 1)), inside);
}

// input[i] for four indices, zero where `inside` is false: selected, not branched around.
fn input_four(i: vec4<u32>, inside: vec4<bool>) -> vec4<f32> {
    return select(vec4<f32>(0.0), vec4<f32>(input[i.x], input[i.y], input[i.z], input[i.w]), inside);
}

fn weights_four(i: vec4<u32>) -> vec4<f32> {
    return vec4<f32>(weights[i.x], weights[i.y], weights[i.z], weights[i.w]);
}

fn d_out_four(i: vec4<u32>) -> vec4<f32> {
    return vec4<f32>(d_out[i.x], d_out[i.y], d_out[i.z], d_out[i.w]);
}

// One step along a walk (kx fastest, then ky, then the outer index) over an extent (w, h).
fn step_walk3(walk: ptr<function, vec3<u32>>, w: u32, h: u32) {
    var v = *walk + vec3<u32>(1u, 0u, 0u);
    if (v.x == w) { v = vec3<u32>(0u, v.y + 1u, v.z); }
    if (v.y == h) { v = vec3<u32>(0u, 0u, v.z + 1u); }
    *walk = v;
}

// out[r, f] = bias[f] + Σ_q im2col[r, q] · W[f, q]. Workgroup x: 8 filters; y: every
// row_groups-th tile of 512 positions; z: the point.
@compute @workgroup_size(64)
fn forward(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    if (wg.z >= p.live) { return; }
    enter_point(wg.z);
    for (var t = wg.y; t < block_tiles(positions()); t = t + p.row_groups) {
        forward_block((t * GROUP + li) * BLOCK, wg.x * BLOCK);
    }
}

fn forward_block(r0: u32, f0: u32) {
    let plane = out_plane();
    let last = positions() - 1u;
    let k = patch_len();
    let image = p.in_c * p.in_h * p.in_w;
    let s = p.stride;
    // Each row's image and the window's corner (padding subtracted).
    let r_lo = four_from(r0, last);
    let r_hi = four_from(r0 + 4u, last);
    let at_lo = in_base + (r_lo / plane) * image;
    let at_hi = in_base + (r_hi / plane) * image;
    let y_lo = vec4<i32>(((r_lo % plane) / p.out_w) * s) - i32(p.pad);
    let y_hi = vec4<i32>(((r_hi % plane) / p.out_w) * s) - i32(p.pad);
    let x_lo = vec4<i32>((r_lo % p.out_w) * s) - i32(p.pad);
    let x_hi = vec4<i32>((r_hi % p.out_w) * s) - i32(p.pad);
    // Each filter's row of W.
    let w_lo = w_base + p.w_off + four_from(f0, p.out_c - 1u) * k;
    let w_hi = w_base + p.w_off + four_from(f0 + 4u, p.out_c - 1u) * k;
    var acc: array<vec4<f32>, 16>;
    var walk = vec3<u32>(0u); // (kx, ky, c)
    for (var q = 0u; q < k; q = q + 1u) {
        let chan = walk.z * p.in_h * p.in_w;
        let t_lo = tap_in(y_lo + i32(walk.y), x_lo + i32(walk.x), p.in_h, p.in_w);
        let t_hi = tap_in(y_hi + i32(walk.y), x_hi + i32(walk.x), p.in_h, p.in_w);
        let a_lo = input_four(at_lo + chan + t_lo.at, t_lo.inside);
        let a_hi = input_four(at_hi + chan + t_hi.at, t_hi.inside);
        outer_add(&acc, a_lo, a_hi, weights_four(w_lo + q), weights_four(w_hi + q));
        step_walk3(&walk, p.k_w, p.k_h);
    }
    store_forward(r0, f0, acc[0], acc[1]);
    store_forward(r0 + 1u, f0, acc[2], acc[3]);
    store_forward(r0 + 2u, f0, acc[4], acc[5]);
    store_forward(r0 + 3u, f0, acc[6], acc[7]);
    store_forward(r0 + 4u, f0, acc[8], acc[9]);
    store_forward(r0 + 5u, f0, acc[10], acc[11]);
    store_forward(r0 + 6u, f0, acc[12], acc[13]);
    store_forward(r0 + 7u, f0, acc[14], acc[15]);
}

// out[position r, filters f .. f + 7] = (lo, hi) + bias, those inside the output.
fn store_forward(r: u32, f: u32, lo: vec4<f32>, hi: vec4<f32>) {
    if (r >= positions()) { return; }
    let at = out_base + (r / out_plane()) * p.out_c * out_plane() + r % out_plane();
    for (var j = 0u; j < 8u; j = j + 1u) {
        if (f + j < p.out_c) {
            let v = select(hi[j % 4u], lo[j % 4u], j < 4u);
            output[at + (f + j) * out_plane()] = v + weights[w_base + p.b_off + f + j];
        }
    }
}

// partials[s, f, q] = Σ_{r in chunk s} dOut[r, f] · im2col[r, q] and partials[s, bias f] =
// Σ_{r in chunk s} dOut[r, f]. Each invocation sums an 8 × 8 block (8 kernel elements × 8
// filters) over one chunk; they are numbered chunk by chunk, each chunk's blocks filter-fastest.
@compute @workgroup_size(64)
fn backward_weight(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = patch_len();
    let q_blocks = (k + BLOCK - 1u) / BLOCK;
    let f_blocks = (p.out_c + BLOCK - 1u) / BLOCK;
    let chunks = (positions() + p.chunk - 1u) / p.chunk;
    if (gid.x >= chunks * q_blocks * f_blocks) { return; }
    let chunk = gid.x / (q_blocks * f_blocks);
    let q0 = ((gid.x / f_blocks) % q_blocks) * BLOCK;
    let f0 = (gid.x % f_blocks) * BLOCK;
    let first = chunk * p.chunk;
    let last = min(first + p.chunk, positions());
    let plane = out_plane();
    let s = p.stride;
    // Each kernel element (c, ky, kx): its channel plane's offset and its tap, padding subtracted.
    let taps = p.k_h * p.k_w;
    let q_lo = four_from(q0, k - 1u);
    let q_hi = four_from(q0 + 4u, k - 1u);
    let chan_lo = (q_lo / taps) * p.in_h * p.in_w;
    let chan_hi = (q_hi / taps) * p.in_h * p.in_w;
    let ky_lo = vec4<i32>((q_lo % taps) / p.k_w) - i32(p.pad);
    let ky_hi = vec4<i32>((q_hi % taps) / p.k_w) - i32(p.pad);
    let kx_lo = vec4<i32>(q_lo % p.k_w) - i32(p.pad);
    let kx_hi = vec4<i32>(q_hi % p.k_w) - i32(p.pad);
    // Each filter's plane of dOut.
    let f_lo = four_from(f0, p.out_c - 1u) * plane;
    let f_hi = four_from(f0 + 4u, p.out_c - 1u) * plane;
    var acc: array<vec4<f32>, 16>;
    var bias_lo = vec4<f32>(0.0);
    var bias_hi = vec4<f32>(0.0);
    var walk = vec3<u32>(first % p.out_w, (first % plane) / p.out_w, first / plane); // (ox, oy, b)
    for (var r = first; r < last; r = r + 1u) {
        let at = vec4<u32>(walk.z * p.in_c * p.in_h * p.in_w);
        let y = i32(walk.y * s);
        let x = i32(walk.x * s);
        let t_lo = tap_in(ky_lo + y, kx_lo + x, p.in_h, p.in_w);
        let t_hi = tap_in(ky_hi + y, kx_hi + x, p.in_h, p.in_w);
        let a_lo = input_four(at + chan_lo + t_lo.at, t_lo.inside);
        let a_hi = input_four(at + chan_hi + t_hi.at, t_hi.inside);
        let d = walk.z * p.out_c * plane + walk.y * p.out_w + walk.x;
        let g_lo = d_out_four(f_lo + d);
        let g_hi = d_out_four(f_hi + d);
        outer_add(&acc, a_lo, a_hi, g_lo, g_hi);
        bias_lo += g_lo;
        bias_hi += g_hi;
        step_walk3(&walk, p.out_w, p.out_h);
    }
    let slot = chunk * (weight_len() + p.out_c);
    store_partial(slot, q0, f0, acc[0], acc[1]);
    store_partial(slot, q0 + 1u, f0, acc[2], acc[3]);
    store_partial(slot, q0 + 2u, f0, acc[4], acc[5]);
    store_partial(slot, q0 + 3u, f0, acc[6], acc[7]);
    store_partial(slot, q0 + 4u, f0, acc[8], acc[9]);
    store_partial(slot, q0 + 5u, f0, acc[10], acc[11]);
    store_partial(slot, q0 + 6u, f0, acc[12], acc[13]);
    store_partial(slot, q0 + 7u, f0, acc[14], acc[15]);
    if (q0 == 0u) {
        for (var j = 0u; j < 8u; j = j + 1u) {
            if (f0 + j < p.out_c) {
                partials[slot + weight_len() + f0 + j] = select(bias_hi[j % 4u], bias_lo[j % 4u], j < 4u);
            }
        }
    }
}

// partials[slot, filters f .. f + 7, kernel element q] = (lo, hi), those inside the weights.
fn store_partial(slot: u32, q: u32, f: u32, lo: vec4<f32>, hi: vec4<f32>) {
    let k = patch_len();
    if (q >= k) { return; }
    for (var j = 0u; j < 8u; j = j + 1u) {
        if (f + j < p.out_c) { partials[slot + (f + j) * k + q] = select(hi[j % 4u], lo[j % 4u], j < 4u); }
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
// (b, y, x), columns = channels c, summed over (f, ky, kx). Workgroups as in forward.
@compute @workgroup_size(64)
fn backward_input(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    for (var t = wg.y; t < block_tiles(p.batch * p.in_h * p.in_w); t = t + p.row_groups) {
        backward_input_block((t * GROUP + li) * BLOCK, wg.x * BLOCK);
    }
}

fn backward_input_block(r0: u32, c0: u32) {
    let plane = p.in_h * p.in_w;
    let last = p.batch * plane - 1u;
    let taps = p.k_h * p.k_w;
    // Each row's image in dOut, and its (y, x) with the padding added.
    let r_lo = four_from(r0, last);
    let r_hi = four_from(r0 + 4u, last);
    let at_lo = (r_lo / plane) * p.out_c * out_plane();
    let at_hi = (r_hi / plane) * p.out_c * out_plane();
    let y_lo = vec4<i32>((r_lo % plane) / p.in_w + p.pad);
    let y_hi = vec4<i32>((r_hi % plane) / p.in_w + p.pad);
    let x_lo = vec4<i32>(r_lo % p.in_w + p.pad);
    let x_hi = vec4<i32>(r_hi % p.in_w + p.pad);
    // Each channel's first weight, W[0, c, 0, 0].
    let w_lo = p.w_off + four_from(c0, p.in_c - 1u) * taps;
    let w_hi = p.w_off + four_from(c0 + 4u, p.in_c - 1u) * taps;
    // Tap by tap, each filter in turn: where the tap lands is worked out once for all filters.
    var acc: array<vec4<f32>, 16>;
    var walk = vec3<u32>(0u); // (kx, ky, tap)
    for (var tap = 0u; tap < taps; tap = tap + 1u) {
        let ky = i32(walk.y);
        let kx = i32(walk.x);
        step_walk3(&walk, p.k_w, p.k_h);
        let t_lo = tap_out(y_lo - ky, x_lo - kx);
        let t_hi = tap_out(y_hi - ky, x_hi - kx);
        for (var f = 0u; f < p.out_c; f = f + 1u) {
            let d = f * out_plane();
            let a_lo = select(vec4<f32>(0.0), d_out_four(at_lo + t_lo.at + d), t_lo.inside);
            let a_hi = select(vec4<f32>(0.0), d_out_four(at_hi + t_hi.at + d), t_hi.inside);
            let q = f * p.in_c * taps + tap;
            outer_add(&acc, a_lo, a_hi, weights_four(w_lo + q), weights_four(w_hi + q));
        }
    }
    store_input_grad(r0, c0, acc[0], acc[1]);
    store_input_grad(r0 + 1u, c0, acc[2], acc[3]);
    store_input_grad(r0 + 2u, c0, acc[4], acc[5]);
    store_input_grad(r0 + 3u, c0, acc[6], acc[7]);
    store_input_grad(r0 + 4u, c0, acc[8], acc[9]);
    store_input_grad(r0 + 5u, c0, acc[10], acc[11]);
    store_input_grad(r0 + 6u, c0, acc[12], acc[13]);
    store_input_grad(r0 + 7u, c0, acc[14], acc[15]);
}

// The output places (oy, ox) with oy·s = ty and ox·s = tx for four rows, as a tap of the output
// plane: inside where such a place exists. Divided in f32 (exact for these small integers, and
// one vector instruction where an emulated GPU divides integers lane by lane); rounded, then
// checked, so the quotient's last bit does not matter.
fn tap_out(ty: vec4<i32>, tx: vec4<i32>) -> Tap {
    let s = i32(p.stride);
    let oy = vec4<i32>(round(vec4<f32>(ty) / f32(s)));
    let ox = vec4<i32>(round(vec4<f32>(tx) / f32(s)));
    let t = tap_in(oy, ox, p.out_h, p.out_w);
    return Tap(t.at, t.inside & (oy * s == ty) & (ox * s == tx));
}

// dIn[position r, channels c .. c + 7] = (lo, hi), those inside the input.
fn store_input_grad(r: u32, c: u32, lo: vec4<f32>, hi: vec4<f32>) {
    let plane = p.in_h * p.in_w;
    if (r >= p.batch * plane) { return; }
    let at = (r / plane) * p.in_c * plane + r % plane;
    for (var j = 0u; j < 8u; j = j + 1u) {
        if (c + j < p.in_c) { d_in[at + (c + j) * plane] = select(hi[j % 4u], lo[j % 4u], j < 4u); }
    }
}
