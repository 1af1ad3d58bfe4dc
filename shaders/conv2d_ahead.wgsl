// The three GEMMs of `conv2d.wgsl` (forward, weight gradient, input gradient) for real GPUs,
// fetching ahead (as `matmul_tile_split_ahead.wgsl` does for products): each invocation reads its
// 16 values of the next slice of A and its 4 of B into registers before the multiply-adds of the
// current slice,
// and writes them to workgroup memory only after. In `conv2d.wgsl`'s loops each value goes to
// workgroup memory as soon as it is read, so a GPU, issuing in order, waits for every read in
// turn; with a workgroup or two per multiprocessor nothing else hides that wait. The values, the
// sums and their order are the same (`tests/conv_pool.rs` on a context sized as a real GPU).
// Put after `conv2d.wgsl`, whose bindings, tiles and helpers it uses; a GPU emulated on the
// processor runs `conv2d.wgsl`'s own loops (see `matmul_tile_split.wgsl` on SwiftShader's
// compiler and loops like this one).

// Which GEMM (one loop serves the three, so each entry point binds the buffers all three read:
// see `fetches_ahead` in `ops/conv2d`).
const FORWARD: u32 = 0u;
const INPUT_GRAD: u32 = 1u;
const WEIGHT_GRAD: u32 = 2u;

// One invocation's row of A: in the forward image b at (y, x), the window's corner, padding
// subtracted; in the input gradient image b's pixel (y, x), padding added; in the weight
// gradient channel b's kernel element (y, x), padding subtracted. And whether the row exists.
struct Row { b: u32, y: i32, x: i32, inside: bool }

// Where the invocation's walk along k stands: (c, ky, kx) in the forward, (f, ky, kx) in the
// input gradient, the output position (b, oy, ox) in the weight gradient.
struct Walk { outer: u32, ky: u32, kx: u32 }

fn step_walk(kind: u32, w: ptr<function, Walk>) {
    let size = select(vec2<u32>(p.k_w, p.k_h), vec2<u32>(p.out_w, p.out_h), kind == WEIGHT_GRAD);
    (*w).kx = (*w).kx + 1u;
    if ((*w).kx == size.x) { (*w).kx = 0u; (*w).ky = (*w).ky + 1u; }
    if ((*w).ky == size.y) { (*w).ky = 0u; (*w).outer = (*w).outer + 1u; }
}

// A at the walk's place (0 where `ok` is false or in the padding), then one step on.
fn a_value(kind: u32, r: Row, ok: bool, w: ptr<function, Walk>) -> f32 {
    var v = 0.0;
    if (kind == FORWARD) {
        if (ok) { v = input_at(r.b, (*w).outer, r.y + i32((*w).ky), r.x + i32((*w).kx)); }
    } else if (kind == WEIGHT_GRAD) {
        let s = p.stride;
        if (ok) { v = input_at((*w).outer, r.b, i32((*w).ky * s) + r.y, i32((*w).kx * s) + r.x); }
    } else {
        // dOut[b, f, oy, ox] where oy·s + ky − pad = y (and likewise x), as in conv2d.wgsl.
        let s = i32(p.stride);
        let ty = r.y - i32((*w).ky);
        let tx = r.x - i32((*w).kx);
        if (ok && ty >= 0 && tx >= 0 && ty % s == 0 && tx % s == 0) {
            let oy = u32(ty / s);
            let ox = u32(tx / s);
            if (oy < p.out_h && ox < p.out_w) {
                v = d_out[((r.b * p.out_c + (*w).outer) * p.out_h + oy) * p.out_w + ox];
            }
        }
    }
    step_walk(kind, w);
    return v;
}

fn a_four(kind: u32, r: Row, k0: u32, k: u32, w: ptr<function, Walk>) -> vec4<f32> {
    let v0 = a_value(kind, r, r.inside && k0 < k, w);
    let v1 = a_value(kind, r, r.inside && k0 + 1u < k, w);
    let v2 = a_value(kind, r, r.inside && k0 + 2u < k, w);
    let v3 = a_value(kind, r, r.inside && k0 + 3u < k, w);
    return vec4<f32>(v0, v1, v2, v3);
}

// The invocation's 16 values of A for the slice from k0: steps k0 .. k0 + 15 of its row.
fn a_slice(kind: u32, r: Row, k0: u32, k: u32, w: ptr<function, Walk>) -> array<vec4<f32>, 4> {
    let v0 = a_four(kind, r, k0, k, w);
    let v1 = a_four(kind, r, k0 + 4u, k, w);
    let v2 = a_four(kind, r, k0 + 8u, k, w);
    let v3 = a_four(kind, r, k0 + 12u, k, w);
    return array<vec4<f32>, 4>(v0, v1, v2, v3);
}

fn put_a_four(e0: u32, i: u32, l: u32, v: vec4<f32>) {
    tile_a[e0][i][l] = v.x;
    tile_a[e0 + 1u][i][l] = v.y;
    tile_a[e0 + 2u][i][l] = v.z;
    tile_a[e0 + 3u][i][l] = v.w;
}

fn put_a_slice(flat: u32, s: array<vec4<f32>, 4>) {
    put_a_four(0u, flat / 4u, flat % 4u, s[0]);
    put_a_four(4u, flat / 4u, flat % 4u, s[1]);
    put_a_four(8u, flat / 4u, flat % 4u, s[2]);
    put_a_four(12u, flat / 4u, flat % 4u, s[3]);
}

// B's value number e of the invocation's four, as conv2d.wgsl copies it, at step q = k0 + kk:
// the forward's W[col0 + j, q]; the input gradient's W[f, col0 + j, ky, kx] with q = (f, ky, kx);
// the weight gradient's dOut[position q, filter col0 + j]. Zero from `end` on.
fn b_value(kind: u32, col0: u32, k0: u32, end: u32, flat: u32, e: u32) -> f32 {
    let idx = e * 64u + flat;
    let j = idx % 16u;
    let q = k0 + idx / 16u;
    if (q >= end) { return 0.0; }
    if (kind == FORWARD) {
        if (col0 + j < p.out_c) { return weights[w_base + p.w_off + (col0 + j) * end + q]; }
        return 0.0;
    }
    if (kind == WEIGHT_GRAD) {
        if (col0 + j < p.out_c) { return d_out_at(q, col0 + j); }
        return 0.0;
    }
    let taps = p.k_h * p.k_w;
    if (col0 + j < p.in_c) { return weights[p.w_off + ((q / taps) * p.in_c + col0 + j) * taps + q % taps]; }
    return 0.0;
}

fn b_four(kind: u32, col0: u32, k0: u32, end: u32, flat: u32) -> vec4<f32> {
    return vec4<f32>(b_value(kind, col0, k0, end, flat, 0u), b_value(kind, col0, k0, end, flat, 1u),
                     b_value(kind, col0, k0, end, flat, 2u), b_value(kind, col0, k0, end, flat, 3u));
}

fn put_b_one(flat: u32, e: u32, v: f32) {
    let idx = e * 64u + flat;
    let j = idx % 16u;
    tile_b[idx / 16u][j / 4u][j % 4u] = v;
}

// The 64 × 16 tile at column col0 of a GEMM summed over steps start .. end of k, from the walk
// `w` (at step `start`), fetching ahead; returns the invocation's 4 × 4 block. In the weight
// gradient the invocations of the first row of the workgroup also sum B's slices into `bias`
// (dOut's sum over the positions, the bias gradient). Every invocation must call it (barriers).
fn gemm_ahead(kind: u32, r: Row, col0: u32, start: u32, end: u32, w: ptr<function, Walk>,
              lid: vec3<u32>, bias: ptr<function, vec4<f32>>) -> array<vec4<f32>, 4> {
    let flat = lid.y * 4u + lid.x;
    var a = a_slice(kind, r, start, end, w);
    var b = b_four(kind, col0, start, end, flat);
    var acc: array<vec4<f32>, 4>;
    for (var k0 = start; k0 < end; k0 = k0 + 16u) {
        put_a_slice(flat, a);
        put_b_one(flat, 0u, b.x);
        put_b_one(flat, 1u, b.y);
        put_b_one(flat, 2u, b.z);
        put_b_one(flat, 3u, b.w);
        workgroupBarrier();
        if (k0 + 16u < end) {
            a = a_slice(kind, r, k0 + 16u, end, w);
            b = b_four(kind, col0, k0 + 16u, end, flat);
        }
        multiply_tiles(&acc, lid.y, lid.x);
        if (kind == WEIGHT_GRAD && lid.y == 0u) {
            for (var kk = 0u; kk < 16u; kk = kk + 1u) { *bias = *bias + tile_b[kk][lid.x]; }
        }
        workgroupBarrier();
    }
    return acc;
}

@compute @workgroup_size(4, 16)
fn forward_ahead(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    if (wg.z >= p.live) { return; }
    in_base = wg.z * p.in_stride;
    w_base = wg.z * p.w_stride;
    out_base = wg.z * positions() * p.out_c;
    let flat = lid.y * 4u + lid.x;
    var unused = vec4<f32>(0.0);
    for (var t = wg.y; t < row_tiles(positions()); t = t + p.row_groups) {
        let row0 = t * 64u;
        let f0 = wg.x * 16u;
        let mine = row0 + flat;
        let pix = mine % out_plane();
        let r = Row(mine / out_plane(), i32((pix / p.out_w) * p.stride) - i32(p.pad),
                    i32((pix % p.out_w) * p.stride) - i32(p.pad), mine < positions());
        var w = Walk(0u, 0u, 0u);
        let acc = gemm_ahead(FORWARD, r, f0, 0u, patch_len(), &w, lid, &unused);
        // Constant indices into acc only (see conv2d.wgsl's forward_tile).
        let at = row0 + lid.y * 4u;
        let f = f0 + lid.x * 4u;
        store_forward(at, f, acc[0]);
        store_forward(at + 1u, f, acc[1]);
        store_forward(at + 2u, f, acc[2]);
        store_forward(at + 3u, f, acc[3]);
    }
}

// As conv2d.wgsl's backward_weight: kernel elements q0 .. q0 + 63 × filters f0 .. f0 + 15 summed
// over the positions of chunk wg.z into its slot of `partials`.
@compute @workgroup_size(4, 16)
fn backward_weight_ahead(@builtin(workgroup_id) wg: vec3<u32>,
                         @builtin(local_invocation_id) lid: vec3<u32>) {
    let q0 = wg.y * 64u;
    let f0 = wg.x * 16u;
    let first = wg.z * p.chunk;
    let last = min(first + p.chunk, positions());
    let mine = q0 + lid.y * 4u + lid.x;
    let r = Row(mine / (p.k_h * p.k_w), i32((mine / p.k_w) % p.k_h) - i32(p.pad),
                i32(mine % p.k_w) - i32(p.pad), mine < patch_len());
    var w = Walk(first / out_plane(), (first % out_plane()) / p.out_w, first % p.out_w);
    var bias = vec4<f32>(0.0);
    let acc = gemm_ahead(WEIGHT_GRAD, r, f0, first, last, &w, lid, &bias);
    let slot = wg.z * (weight_len() + p.out_c);
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

@compute @workgroup_size(4, 16)
fn backward_input_ahead(@builtin(workgroup_id) wg: vec3<u32>,
                        @builtin(local_invocation_id) lid: vec3<u32>) {
    let plane = p.in_h * p.in_w;
    let rows = p.batch * plane;
    let flat = lid.y * 4u + lid.x;
    var unused = vec4<f32>(0.0);
    for (var t = wg.y; t < row_tiles(rows); t = t + p.row_groups) {
        let row0 = t * 64u;
        let c0 = wg.x * 16u;
        let mine = row0 + flat;
        let r = Row(mine / plane, i32((mine % plane) / p.in_w + p.pad), i32(mine % p.in_w + p.pad),
                    mine < rows);
        var w = Walk(0u, 0u, 0u);
        let acc = gemm_ahead(INPUT_GRAD, r, c0, 0u, p.out_c * p.k_h * p.k_w, &w, lid, &unused);
        let at = row0 + lid.y * 4u;
        let c = c0 + lid.x * 4u;
        store_input_grad(at, c, acc[0]);
        store_input_grad(at + 1u, c, acc[1]);
        store_input_grad(at + 2u, c, acc[2]);
        store_input_grad(at + 3u, c, acc[3]);
    }
}
