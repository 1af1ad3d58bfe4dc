// The three GEMMs of `conv2d.wgsl` (forward, weight gradient, input gradient) for real GPUs:
// tiles of ROWS positions × COLS filters in workgroup memory (64 × 16, or 128 × 8 for a GEMM of
// at most 8 columns, where 16 would leave half of every tile on columns that do not exist: COLS
// comes from `conv_cols_16.wgsl` or `conv_cols_8.wgsl`, chosen per device by the autotune), 256
// invocations a workgroup, each summing a column of four values and fetching ahead (as
// `matmul_tile_split_ahead.wgsl` does for products): each reads its values of the next slice of
// A and B into registers before the multiply-adds of the current slice, and writes them to
// workgroup memory only after. W2's
// GEMMs have a tile or two per multiprocessor: with 64 invocations a tile, each writing every
// value to workgroup memory as soon as it was read, a multiprocessor had two warps and nothing
// to hide their waits behind. Every value of C is the same sum in the same order as
// `conv2d.wgsl`'s blocks give (`tests/conv_pool.rs` on a context sized as a real GPU).
// Put after `conv2d.wgsl`, whose bindings and helpers it uses; a GPU emulated on the processor
// runs `conv2d.wgsl`'s own blocks, without workgroup memory.

// Rows of C per tile (1,024 values a tile either way); invocations along the rows, each summing
// four; vec4s of A each invocation copies a slice (16 steps of k: ROWS × 16 values over 256);
// invocations that copy one value of B each (16 × COLS of them).
const ROWS: u32 = 1024u / COLS;
const ROW_INVOCATIONS: u32 = 256u / COLS;
const A_SETS: u32 = 16u / COLS;
const B_COPIERS: u32 = 16u * COLS;

// tile_a[k][i]: four consecutive rows (4i..4i+3) of the ROWS-row operand at step k;
// tile_b[k][j]: four consecutive filters (4j..4j+3) of the COLS-filter operand at step k.
var<workgroup> tile_a: array<array<vec4<f32>, ROWS / 4u>, 16>;
var<workgroup> tile_b: array<array<vec4<f32>, COLS / 4u>, 16>;

// Tiles of ROWS rows: workgroup y takes every row_groups-th (on a real GPU, one each).
fn row_tiles(rows: u32) -> u32 { return (rows + ROWS - 1u) / ROWS; }

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

// Which GEMM (one loop serves the three, so each entry point binds the buffers all three read:
// see `fetches_ahead` in `ops/conv2d`).
const FORWARD: u32 = 0u;
const INPUT_GRAD: u32 = 1u;
const WEIGHT_GRAD: u32 = 2u;

// The row of A an invocation copies: in the forward image b at (y, x), the window's corner, padding
// subtracted; in the input gradient image b's pixel (y, x), padding added; in the weight
// gradient channel b's kernel element (y, x), padding subtracted. And whether the row exists.
struct Row { b: u32, y: i32, x: i32, inside: bool }

// A step q of k as a place: (c, ky, kx) in the forward, (f, ky, kx) in the input gradient, the
// output position (b, oy, ox) in the weight gradient.
struct Walk { outer: u32, ky: u32, kx: u32 }

fn place(kind: u32, q: u32) -> Walk {
    if (kind == WEIGHT_GRAD) { return Walk(q / out_plane(), (q % out_plane()) / p.out_w, q % p.out_w); }
    let taps = p.k_h * p.k_w;
    return Walk(q / taps, (q % taps) / p.k_w, q % p.k_w);
}

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

// The invocation's four values of A in a slice: steps q0 .. q0 + 3 of its row (zero from `end`).
fn a_four(kind: u32, r: Row, q0: u32, end: u32) -> vec4<f32> {
    var w = place(kind, q0);
    let v0 = a_value(kind, r, r.inside && q0 < end, &w);
    let v1 = a_value(kind, r, r.inside && q0 + 1u < end, &w);
    let v2 = a_value(kind, r, r.inside && q0 + 2u < end, &w);
    let v3 = a_value(kind, r, r.inside && q0 + 3u < end, &w);
    return vec4<f32>(v0, v1, v2, v3);
}

// The first of the slice's steps that invocation `flat` copies of A (its row is flat % ROWS).
fn a_first(flat: u32) -> u32 { return 4u * A_SETS * (flat / ROWS); }

// Invocation `flat` copies row flat % ROWS of A's slice, steps a_first .. + 4·A_SETS − 1 (set s
// being the four from a_first + 4s), and, if flat < B_COPIERS, B's value at step flat / COLS,
// column flat % COLS.
fn put_a_four(flat: u32, s: u32, v: vec4<f32>) {
    let e = a_first(flat) + 4u * s;
    let i = (flat % ROWS) / 4u;
    let l = flat % 4u;
    tile_a[e][i][l] = v.x;
    tile_a[e + 1u][i][l] = v.y;
    tile_a[e + 2u][i][l] = v.z;
    tile_a[e + 3u][i][l] = v.w;
}

fn put_b_one(flat: u32, v: f32) {
    if (flat >= B_COPIERS) { return; }
    let j = flat % COLS;
    tile_b[flat / COLS][j / 4u][j % 4u] = v;
}

// B at step q, column col0 + j: the forward's W[col0 + j, q]; the input gradient's
// W[f, col0 + j, ky, kx] with q = (f, ky, kx); the weight gradient's dOut[position q, filter
// col0 + j]. Zero from `end` on and past the last column.
fn b_value(kind: u32, col0: u32, q: u32, end: u32, j: u32) -> f32 {
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

// C's column j at rows 4i .. 4i + 3 of the tile: += A[rows, kk] · B[kk, j] over the slice's steps.
fn multiply_column(acc: ptr<function, vec4<f32>>, i: u32, j: u32) {
    for (var kk = 0u; kk < 16u; kk = kk + 1u) {
        *acc = *acc + tile_a[kk][i] * tile_b[kk][j / 4u][j % 4u];
    }
}

// The ROWS × COLS tile at column col0 of a GEMM summed over steps start .. end of k, fetching
// ahead; `r` is the row the invocation copies. Returns C at rows 4·lid.y .. + 3, column lid.x.
// In the weight gradient the invocations of the first row also sum B's column into `bias`
// (dOut's sum over the positions, the bias gradient). Every invocation must call it (barriers).
fn gemm_ahead(kind: u32, r: Row, col0: u32, start: u32, end: u32, lid: vec3<u32>,
              bias: ptr<function, f32>) -> vec4<f32> {
    let flat = lid.y * COLS + lid.x;
    let first = a_first(flat);
    var a: array<vec4<f32>, A_SETS>;
    for (var s = 0u; s < A_SETS; s = s + 1u) { a[s] = a_four(kind, r, start + first + 4u * s, end); }
    var b = b_value(kind, col0, start + flat / COLS, end, flat % COLS);
    var acc = vec4<f32>(0.0);
    for (var k0 = start; k0 < end; k0 = k0 + 16u) {
        for (var s = 0u; s < A_SETS; s = s + 1u) { put_a_four(flat, s, a[s]); }
        put_b_one(flat, b);
        workgroupBarrier();
        if (k0 + 16u < end) {
            for (var s = 0u; s < A_SETS; s = s + 1u) {
                a[s] = a_four(kind, r, k0 + 16u + first + 4u * s, end);
            }
            b = b_value(kind, col0, k0 + 16u + flat / COLS, end, flat % COLS);
        }
        multiply_column(&acc, lid.y, lid.x);
        if (kind == WEIGHT_GRAD && lid.y == 0u) {
            for (var kk = 0u; kk < 16u; kk = kk + 1u) {
                *bias = *bias + tile_b[kk][lid.x / 4u][lid.x % 4u];
            }
        }
        workgroupBarrier();
    }
    return acc;
}

@compute @workgroup_size(COLS, ROW_INVOCATIONS)
fn forward_ahead(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    if (wg.z >= p.live) { return; }
    enter_point(wg.z);
    let copy = (lid.y * COLS + lid.x) % ROWS;
    var unused = 0.0;
    for (var t = wg.y; t < row_tiles(positions()); t = t + p.row_groups) {
        let row0 = t * ROWS;
        let f = wg.x * COLS + lid.x;
        let mine = row0 + copy;
        let pix = mine % out_plane();
        let r = Row(mine / out_plane(), i32((pix / p.out_w) * p.stride) - i32(p.pad),
                    i32((pix % p.out_w) * p.stride) - i32(p.pad), mine < positions());
        let acc = gemm_ahead(FORWARD, r, wg.x * COLS, 0u, patch_len(), lid, &unused);
        let at = row0 + lid.y * 4u;
        store_forward_one(at, f, acc.x);
        store_forward_one(at + 1u, f, acc.y);
        store_forward_one(at + 2u, f, acc.z);
        store_forward_one(at + 3u, f, acc.w);
    }
}

// out[position r, filter f] = v + bias[f], if inside the output.
fn store_forward_one(r: u32, f: u32, v: f32) {
    if (r >= positions() || f >= p.out_c) { return; }
    let at = out_base + ((r / out_plane()) * p.out_c + f) * out_plane() + r % out_plane();
    output[at] = v + weights[w_base + p.b_off + f];
}

// As conv2d.wgsl's backward_weight: kernel elements q0 .. q0 + ROWS − 1 × filters f0 .. f0 +
// COLS − 1 summed over the positions of chunk wg.z into its slot of `partials`.
@compute @workgroup_size(COLS, ROW_INVOCATIONS)
fn backward_weight_ahead(@builtin(workgroup_id) wg: vec3<u32>,
                         @builtin(local_invocation_id) lid: vec3<u32>) {
    let q0 = wg.y * ROWS;
    let first = wg.z * p.chunk;
    let last = min(first + p.chunk, positions());
    let mine = q0 + (lid.y * COLS + lid.x) % ROWS;
    let r = Row(mine / (p.k_h * p.k_w), i32((mine / p.k_w) % p.k_h) - i32(p.pad),
                i32(mine % p.k_w) - i32(p.pad), mine < patch_len());
    var bias = 0.0;
    let acc = gemm_ahead(WEIGHT_GRAD, r, wg.x * COLS, first, last, lid, &bias);
    let slot = wg.z * (weight_len() + p.out_c);
    let q = q0 + lid.y * 4u;
    let f = wg.x * COLS + lid.x;
    store_partial_one(slot, q, f, acc.x);
    store_partial_one(slot, q + 1u, f, acc.y);
    store_partial_one(slot, q + 2u, f, acc.z);
    store_partial_one(slot, q + 3u, f, acc.w);
    if (lid.y == 0u && wg.y == 0u && f < p.out_c) { partials[slot + weight_len() + f] = bias; }
}

// partials[slot, filter f, kernel element q] = v, if inside the weights.
fn store_partial_one(slot: u32, q: u32, f: u32, v: f32) {
    if (q < patch_len() && f < p.out_c) { partials[slot + f * patch_len() + q] = v; }
}

@compute @workgroup_size(COLS, ROW_INVOCATIONS)
fn backward_input_ahead(@builtin(workgroup_id) wg: vec3<u32>,
                        @builtin(local_invocation_id) lid: vec3<u32>) {
    let plane = p.in_h * p.in_w;
    let rows = p.batch * plane;
    let copy = (lid.y * COLS + lid.x) % ROWS;
    var unused = 0.0;
    for (var t = wg.y; t < row_tiles(rows); t = t + p.row_groups) {
        let row0 = t * ROWS;
        let mine = row0 + copy;
        let r = Row(mine / plane, i32((mine % plane) / p.in_w + p.pad), i32(mine % p.in_w + p.pad),
                    mine < rows);
        let acc = gemm_ahead(INPUT_GRAD, r, wg.x * COLS, 0u, p.out_c * p.k_h * p.k_w, lid, &unused);
        let at = row0 + lid.y * 4u;
        let c = wg.x * COLS + lid.x;
        store_input_grad_one(at, c, acc.x);
        store_input_grad_one(at + 1u, c, acc.y);
        store_input_grad_one(at + 2u, c, acc.z);
        store_input_grad_one(at + 3u, c, acc.w);
    }
}

// dIn[position r, channel c] = v, if inside the input.
fn store_input_grad_one(r: u32, c: u32, v: f32) {
    let plane = p.in_h * p.in_w;
    if (r < p.batch * plane && c < p.in_c) { d_in[((r / plane) * p.in_c + c) * plane + r % plane] = v; }
}
