// Layer and batch normalization (docs/theory.md §1.4). A layer's values, per copy, are a tensor
// [rows, channels, spatial]; normalization works on groups of them:
//   layer norm (kind 0): one group per row, over its channels × spatial values;
//   batch norm (kind 1): one group per channel, over rows × spatial values.
// y = γ[c] · (x − mean_g) / sqrt(var_g + eps) + β[c], γ at w_off and β at b_off of the
// parameters, c the value's channel. stats[2g] = mean_g, stats[2g + 1] = var_g (biased), kept
// for the backward pass; running[run_off + 2c], running[run_off + 2c + 1]: batch norm's running
// mean and (unbiased) variance, used when predicting.
//
// forward:          one workgroup per (group, copy): mean, variance, then the normalized values.
// forward_running:  one invocation per value: batch norm with the running statistics.
// backward_input:   one workgroup per group: dx = inv_std · (dx̂ − mean(dx̂) − x̂ · mean(dx̂ · x̂)),
//                   dx̂ = dy · γ[c].
// backward_params:  one workgroup per channel: dγ[c] = Σ dy · x̂, dβ[c] = Σ dy over its values.
// running:          one invocation per channel: running ← (1 − m) running + m · batch statistics.

struct Params {
    kind: u32, rows: u32, channels: u32, spatial: u32,
    w_off: u32, b_off: u32, run_off: u32, param_stride: u32,
    live: u32, eps: f32, momentum: f32, _pad0: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> params: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<storage, read_write> stats: array<f32>;
@group(0) @binding(5) var<storage, read_write> running: array<f32>;
@group(0) @binding(6) var<storage, read> dy: array<f32>;
@group(0) @binding(7) var<storage, read_write> grads: array<f32>;
@group(0) @binding(8) var<storage, read> stats_in: array<f32>;

const WG: u32 = 256u;
var<workgroup> part_a: array<f32, 256>;
var<workgroup> part_b: array<f32, 256>;

fn groups() -> u32 { return select(p.channels, p.rows, p.kind == 0u); }
fn group_len() -> u32 { return select(p.rows * p.spatial, p.channels * p.spatial, p.kind == 0u); }
fn copy_len() -> u32 { return p.rows * p.channels * p.spatial; }

// The offset within a copy of value j of group g, and its channel.
fn index(g: u32, j: u32) -> u32 {
    if (p.kind == 0u) { return g * p.channels * p.spatial + j; }
    return (j / p.spatial) * p.channels * p.spatial + g * p.spatial + j % p.spatial;
}
fn channel(g: u32, j: u32) -> u32 {
    if (p.kind == 0u) { return j / p.spatial; }
    return g;
}

// Sums part_a and part_b over the workgroup; the totals end in element 0.
fn reduce(lid: u32) {
    workgroupBarrier();
    for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
        if (lid < stride) {
            part_a[lid] = part_a[lid] + part_a[lid + stride];
            part_b[lid] = part_b[lid] + part_b[lid + stride];
        }
        workgroupBarrier();
    }
}

@compute @workgroup_size(256)
fn forward(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let g = wg.x;
    let q = wg.y;
    if (q >= p.live) { return; }
    let lid = lid3.x;
    let base = q * copy_len();
    let pbase = q * p.param_stride;
    let n = group_len();
    var s = 0.0;
    for (var j = lid; j < n; j = j + WG) { s = s + x[base + index(g, j)]; }
    part_a[lid] = s;
    part_b[lid] = 0.0;
    reduce(lid);
    let mean = part_a[0] / f32(n);
    workgroupBarrier();
    var v = 0.0;
    for (var j = lid; j < n; j = j + WG) {
        let d = x[base + index(g, j)] - mean;
        v = v + d * d;
    }
    part_a[lid] = v;
    reduce(lid);
    let variance = part_a[0] / f32(n);
    let inv_std = inverseSqrt(variance + p.eps);
    if (lid == 0u) {
        stats[2u * (q * groups() + g)] = mean;
        stats[2u * (q * groups() + g) + 1u] = variance;
    }
    for (var j = lid; j < n; j = j + WG) {
        let i = base + index(g, j);
        let c = channel(g, j);
        y[i] = params[pbase + p.w_off + c] * (x[i] - mean) * inv_std + params[pbase + p.b_off + c];
    }
}

@compute @workgroup_size(256)
fn forward_running(@builtin(global_invocation_id) gid: vec3<u32>) {
    let q = gid.y;
    let i = gid.x;
    if (q >= p.live || i >= copy_len()) { return; }
    let c = (i / p.spatial) % p.channels;
    let pbase = q * p.param_stride;
    let mean = running[p.run_off + 2u * c];
    let inv_std = inverseSqrt(running[p.run_off + 2u * c + 1u] + p.eps);
    let k = q * copy_len() + i;
    y[k] = params[pbase + p.w_off + c] * (x[k] - mean) * inv_std + params[pbase + p.b_off + c];
}

@compute @workgroup_size(256)
fn backward_input(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let g = wg.x;
    let lid = lid3.x;
    let n = group_len();
    let mean = stats_in[2u * g];
    let inv_std = inverseSqrt(stats_in[2u * g + 1u] + p.eps);
    var sa = 0.0;
    var sb = 0.0;
    for (var j = lid; j < n; j = j + WG) {
        let i = index(g, j);
        let dxh = dy[i] * params[p.w_off + channel(g, j)];
        sa = sa + dxh;
        sb = sb + dxh * (x[i] - mean) * inv_std;
    }
    part_a[lid] = sa;
    part_b[lid] = sb;
    reduce(lid);
    let mean_a = part_a[0] / f32(n);
    let mean_b = part_b[0] / f32(n);
    for (var j = lid; j < n; j = j + WG) {
        let i = index(g, j);
        let dxh = dy[i] * params[p.w_off + channel(g, j)];
        let xh = (x[i] - mean) * inv_std;
        y[i] = inv_std * (dxh - mean_a - xh * mean_b);
    }
}

@compute @workgroup_size(256)
fn backward_params(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let c = wg.x;
    let lid = lid3.x;
    let n = p.rows * p.spatial;
    var sa = 0.0;
    var sb = 0.0;
    for (var j = lid; j < n; j = j + WG) {
        let r = j / p.spatial;
        let i = r * p.channels * p.spatial + c * p.spatial + j % p.spatial;
        let g = select(c, r, p.kind == 0u);
        let xh = (x[i] - stats_in[2u * g]) * inverseSqrt(stats_in[2u * g + 1u] + p.eps);
        sa = sa + dy[i] * xh;
        sb = sb + dy[i];
    }
    part_a[lid] = sa;
    part_b[lid] = sb;
    reduce(lid);
    if (lid == 0u) {
        grads[p.w_off + c] = part_a[0];
        grads[p.b_off + c] = part_b[0];
    }
}

@compute @workgroup_size(256)
fn update_running(@builtin(global_invocation_id) gid: vec3<u32>) {
    let c = gid.x;
    if (c >= p.channels) { return; }
    let n = f32(p.rows * p.spatial);
    let unbiased = stats_in[2u * c + 1u] * n / max(n - 1.0, 1.0);
    let m = p.momentum;
    running[p.run_off + 2u * c] = (1.0 - m) * running[p.run_off + 2u * c] + m * stats_in[2u * c];
    running[p.run_off + 2u * c + 1u] = (1.0 - m) * running[p.run_off + 2u * c + 1u] + m * unbiased;
}
