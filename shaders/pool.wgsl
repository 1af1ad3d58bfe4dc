// Max and average pooling over NCHW tensors, window `size`, step `stride`, no padding:
// in [B, C, H, W] → out [B, C, OH, OW], OH = (H − size) / stride + 1.
//   max_forward:  out = max of the window; argmax remembers which input won
//   avg_forward:  out = mean of the window
//   max_backward: dIn[i] = Σ over windows whose argmax is i of dOut   (docs/theory.md §1.2: routed to the arg-max only)
//   avg_backward: dIn[i] = Σ over windows containing i of dOut / size²
// Backward passes gather (one invocation per input element) rather than scatter, so no atomics.

struct Params { planes: u32, in_h: u32, in_w: u32, out_h: u32, out_w: u32, size: u32, stride: u32, _pad: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> input: array<f32>;
@group(0) @binding(2) var<storage, read_write> output: array<f32>;
@group(0) @binding(3) var<storage, read_write> argmax: array<u32>;
@group(0) @binding(4) var<storage, read> d_out: array<f32>;
@group(0) @binding(5) var<storage, read_write> d_in: array<f32>;
@group(0) @binding(6) var<storage, read> argmax_in: array<u32>;

fn out_len() -> u32 { return p.planes * p.out_h * p.out_w; }

@compute @workgroup_size(256)
fn max_forward(@builtin(global_invocation_id) gid: vec3<u32>) {
    let o = gid.x;
    if (o >= out_len()) { return; }
    let plane = o / (p.out_h * p.out_w);
    let oy = (o / p.out_w) % p.out_h;
    let ox = o % p.out_w;
    var best = plane * p.in_h * p.in_w + (oy * p.stride) * p.in_w + ox * p.stride;
    for (var dy = 0u; dy < p.size; dy = dy + 1u) {
        for (var dx = 0u; dx < p.size; dx = dx + 1u) {
            let i = plane * p.in_h * p.in_w + (oy * p.stride + dy) * p.in_w + ox * p.stride + dx;
            if (input[i] > input[best]) { best = i; }
        }
    }
    output[o] = input[best];
    argmax[o] = best;
}

@compute @workgroup_size(256)
fn avg_forward(@builtin(global_invocation_id) gid: vec3<u32>) {
    let o = gid.x;
    if (o >= out_len()) { return; }
    let plane = o / (p.out_h * p.out_w);
    let oy = (o / p.out_w) % p.out_h;
    let ox = o % p.out_w;
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
    let hi = min(i32(v / p.stride), i32(out_n) - 1);
    let lo = max(0, (i32(v) - i32(p.size) + i32(p.stride)) / i32(p.stride));
    return vec2<i32>(lo, hi);
}

@compute @workgroup_size(256)
fn max_backward(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.planes * p.in_h * p.in_w) { return; }
    let plane = i / (p.in_h * p.in_w);
    let ry = window_range((i / p.in_w) % p.in_h, p.out_h);
    let rx = window_range(i % p.in_w, p.out_w);
    var s = 0.0;
    for (var oy = ry.x; oy <= ry.y; oy = oy + 1) {
        for (var ox = rx.x; ox <= rx.y; ox = ox + 1) {
            let o = (plane * p.out_h + u32(oy)) * p.out_w + u32(ox);
            if (argmax_in[o] == i) { s = s + d_out[o]; }
        }
    }
    d_in[i] = s;
}

@compute @workgroup_size(256)
fn avg_backward(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.planes * p.in_h * p.in_w) { return; }
    let plane = i / (p.in_h * p.in_w);
    let ry = window_range((i / p.in_w) % p.in_h, p.out_h);
    let rx = window_range(i % p.in_w, p.out_w);
    var s = 0.0;
    for (var oy = ry.x; oy <= ry.y; oy = oy + 1) {
        for (var ox = rx.x; ox <= rx.y; ox = ox + 1) {
            s = s + d_out[(plane * p.out_h + u32(oy)) * p.out_w + u32(ox)];
        }
    }
    d_in[i] = s / f32(p.size * p.size);
}
