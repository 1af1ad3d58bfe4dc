// Max and average pooling over NCHW tensors, window `size`, step `stride`, no padding:
// in [B, C, H, W] → out [B, C, OH, OW], OH = (H − size) / stride + 1.
//   max_forward:  out = max of the window; argmax remembers which input won
//   avg_forward:  out = mean of the window
//   max_backward: dIn[i] = Σ over windows whose argmax is i of dOut   (docs/theory.md §1.2: routed to the arg-max only)
//   avg_backward: dIn[i] = Σ over windows containing i of dOut / size²
// Backward passes gather (one invocation per input element) rather than scatter, so no atomics;
// only max_backward_tiled, where every input lies in exactly one window, writes window by window.
// Each entry point walks its values in a grid-stride loop (every (workgroups · 256)-th from its
// own): an emulated GPU gets only a few workgroups (`Kernel::strided`), a real GPU one value each.

struct Params { planes: u32, in_h: u32, in_w: u32, out_h: u32, out_w: u32, size: u32, stride: u32, _pad: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> input: array<f32>;
@group(0) @binding(2) var<storage, read_write> output: array<f32>;
@group(0) @binding(3) var<storage, read_write> argmax: array<u32>;
@group(0) @binding(4) var<storage, read> d_out: array<f32>;
@group(0) @binding(5) var<storage, read_write> d_in: array<f32>;
@group(0) @binding(6) var<storage, read> argmax_in: array<u32>;

fn out_len() -> u32 { return p.planes * p.out_h * p.out_w; }

// (n / d, n % d) without an integer division, which an emulated GPU runs lane by lane: the f32
// quotient is exact or one off for n < 2^24 (a 1-D grid of 65,535 workgroups of 256 stays
// below that), and the remainder says which way to correct it.
fn div_mod(n: u32, d: u32) -> vec2<u32> {
    var q = u32(f32(n) / f32(d));
    var r = i32(n) - i32(q * d);
    if (r < 0) { q = q - 1u; r = r + i32(d); }
    if (r >= i32(d)) { q = q + 1u; r = r - i32(d); }
    return vec2<u32>(q, u32(r));
}

// Index i of a tensor of h × w planes as (plane, y, x).
fn place(i: u32, h: u32, w: u32) -> vec3<u32> {
    let in_plane = div_mod(i, h * w);
    let yx = div_mod(in_plane.y, w);
    return vec3<u32>(in_plane.x, yx.x, yx.y);
}

@compute @workgroup_size(256)
fn max_forward(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    for (var o = gid.x; o < out_len(); o = o + groups.x * 256u) { max_forward_at(o); }
}

fn max_forward_at(o: u32) {
    let at = place(o, p.out_h, p.out_w);
    let corner = at.x * p.in_h * p.in_w + (at.y * p.stride) * p.in_w + at.z * p.stride;
    var best = corner;
    var best_value = input[corner];
    for (var dy = 0u; dy < p.size; dy = dy + 1u) {
        for (var dx = 0u; dx < p.size; dx = dx + 1u) {
            let i = corner + dy * p.in_w + dx;
            let v = input[i];
            if (v > best_value) {
                best = i;
                best_value = v;
            }
        }
    }
    output[o] = best_value;
    argmax[o] = best;
}

@compute @workgroup_size(256)
fn avg_forward(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    for (var o = gid.x; o < out_len(); o = o + groups.x * 256u) { avg_forward_at(o); }
}

fn avg_forward_at(o: u32) {
    let at = place(o, p.out_h, p.out_w);
    let plane = at.x;
    let oy = at.y;
    let ox = at.z;
    var s = 0.0;
    for (var dy = 0u; dy < p.size; dy = dy + 1u) {
        for (var dx = 0u; dx < p.size; dx = dx + 1u) {
            s = s + input[plane * p.in_h * p.in_w + (oy * p.stride + dy) * p.in_w + ox * p.stride + dx];
        }
    }
    output[o] = s / f32(p.size * p.size);
}

// The output windows that contain input coordinate v: oy in [lo, hi].
fn window_range(v: u32, out_n: u32) -> vec2<i32> {
    let hi = min(i32(div_mod(v, p.stride).x), i32(out_n) - 1);
    // The first window whose last row reaches v: ⌈(v − size + 1) / stride⌉, at least 0.
    let reach = v + p.stride;
    let lo = select(0, i32(div_mod(reach - p.size, p.stride).x), reach > p.size);
    return vec2<i32>(lo, hi);
}

// The windows that contain input i: its plane, and the output rows and columns [lo, hi] of them.
struct Windows { plane: u32, rows: vec2<i32>, cols: vec2<i32> }

fn windows_of(i: u32) -> Windows {
    let at = place(i, p.in_h, p.in_w);
    return Windows(at.x, window_range(at.y, p.out_h), window_range(at.z, p.out_w));
}

// Output (oy, ox) of a plane's windows.
fn window_at(w: Windows, oy: i32, ox: i32) -> u32 {
    return (w.plane * p.out_h + u32(oy)) * p.out_w + u32(ox);
}

@compute @workgroup_size(256)
fn max_backward(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    for (var i = gid.x; i < p.planes * p.in_h * p.in_w; i = i + groups.x * 256u) { max_backward_at(i); }
}

fn max_backward_at(i: u32) {
    let w = windows_of(i);
    var s = 0.0;
    for (var oy = w.rows.x; oy <= w.rows.y; oy = oy + 1) {
        for (var ox = w.cols.x; ox <= w.cols.y; ox = ox + 1) {
            let o = window_at(w, oy, ox);
            if (argmax_in[o] == i) { s = s + d_out[o]; }
        }
    }
    d_in[i] = s;
}

// max_backward when the windows tile the input (stride = size, dividing h and w): every input
// lies in exactly one window, so each invocation writes its own window, dOut at the arg-max and
// 0 elsewhere: a few reads per window rather than a search per input.
@compute @workgroup_size(256)
fn max_backward_tiled(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    for (var o = gid.x; o < out_len(); o = o + groups.x * 256u) { max_backward_window(o); }
}

fn max_backward_window(o: u32) {
    let at = place(o, p.out_h, p.out_w);
    let corner = at.x * p.in_h * p.in_w + (at.y * p.size) * p.in_w + at.z * p.size;
    let winner = argmax_in[o];
    let g = d_out[o];
    for (var dy = 0u; dy < p.size; dy = dy + 1u) {
        for (var dx = 0u; dx < p.size; dx = dx + 1u) {
            let i = corner + dy * p.in_w + dx;
            d_in[i] = select(0.0, g, i == winner);
        }
    }
}

@compute @workgroup_size(256)
fn avg_backward(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    for (var i = gid.x; i < p.planes * p.in_h * p.in_w; i = i + groups.x * 256u) { avg_backward_at(i); }
}

fn avg_backward_at(i: u32) {
    let w = windows_of(i);
    var s = 0.0;
    for (var oy = w.rows.x; oy <= w.rows.y; oy = oy + 1) {
        for (var ox = w.cols.x; ox <= w.cols.y; ox = ox + 1) { s = s + d_out[window_at(w, oy, ox)]; }
    }
    d_in[i] = s / f32(p.size * p.size);
}
