// Points of a loss-landscape slice (docs/theory.md §4.2): the weights
//   w_q = center + α_q·d1 + β_q·d2
// with (α_q, β_q) the point `slot + q` of a list of points on the device, for q = the dispatch's
// row y: the weight vectors of several points side by side (point q's from q·n on), so that one
// forward pass evaluates them all (the first `live` of them: a last pass may have fewer). A whole list runs back to back with one readback at the end.

struct Params { n: u32, slot: u32, live: u32, _pad1: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> center: array<f32>;
@group(0) @binding(2) var<storage, read> d1: array<f32>;
@group(0) @binding(3) var<storage, read> d2: array<f32>;
@group(0) @binding(4) var<storage, read> points: array<f32>;
@group(0) @binding(5) var<storage, read_write> weights: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.n || gid.y >= p.live) { return; }
    let point = p.slot + gid.y;
    let alpha = points[2u * point];
    let beta = points[2u * point + 1u];
    weights[gid.y * p.n + i] = center[i] + alpha * d1[i] + beta * d2[i];
}
