// L1 and L2 regularization, added to the gradient of every weight (not the biases) before the
// optimizer runs:  g ← g + λ2 · w + λ1 · sign(w)
// The flat buffer alternates weight and bias tensors: tensor l covers [bounds[l], bounds[l + 1]),
// and even l are weights.

struct Params { n: u32, segments: u32, l1: f32, l2: f32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> weights: array<f32>;
@group(0) @binding(2) var<storage, read_write> grads: array<f32>;
@group(0) @binding(3) var<storage, read> bounds: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.n) { return; }
    var l = 0u;
    while (l + 1u < p.segments && i >= bounds[l + 1u]) { l = l + 1u; }
    if (l % 2u != 0u) { return; }
    let w = weights[i];
    grads[i] = grads[i] + p.l2 * w + p.l1 * sign(w);
}
