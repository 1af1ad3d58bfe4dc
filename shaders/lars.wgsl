// LARS (You et al. 2017; docs/theory.md §2.8): every parameter tensor l (a weight matrix or a bias) gets
// its own learning rate from the trust ratio
//   η_l = η · ‖w_l‖ / (‖g_l‖ + λ ‖w_l‖)          (η_l = η where a norm is zero)
//   v ← μ v + η_l (g + λ w);  w ← w − v
// layer_norms: one workgroup per tensor sums w² and g² over its segment of the flat buffer.
// update: one invocation per parameter finds its tensor and applies the step.

struct Params { n: u32, segments: u32, lr: f32, momentum: f32, weight_decay: f32, _pad0: u32, _pad1: u32, _pad2: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> grads: array<f32>;
@group(0) @binding(2) var<storage, read_write> weights: array<f32>;
@group(0) @binding(3) var<storage, read_write> velocity: array<f32>;
// Tensor l covers [bounds[l], bounds[l + 1]).
@group(0) @binding(4) var<storage, read> bounds: array<u32>;
// norms[2l] = ‖w_l‖, norms[2l + 1] = ‖g_l‖.
@group(0) @binding(5) var<storage, read_write> norms: array<f32>;
@group(0) @binding(6) var<storage, read> norms_in: array<f32>;

const WG: u32 = 256u;
var<workgroup> part_w: array<f32, 256>;
var<workgroup> part_g: array<f32, 256>;

@compute @workgroup_size(256)
fn layer_norms(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let l = wg.x;
    if (l >= p.segments) { return; }
    var sw = 0.0;
    var sg = 0.0;
    for (var i = bounds[l] + lid.x; i < bounds[l + 1u]; i = i + WG) {
        sw = sw + weights[i] * weights[i];
        sg = sg + grads[i] * grads[i];
    }
    part_w[lid.x] = sw;
    part_g[lid.x] = sg;
    workgroupBarrier();
    for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
        if (lid.x < stride) {
            part_w[lid.x] = part_w[lid.x] + part_w[lid.x + stride];
            part_g[lid.x] = part_g[lid.x] + part_g[lid.x + stride];
        }
        workgroupBarrier();
    }
    if (lid.x == 0u) {
        norms[2u * l] = sqrt(part_w[0]);
        norms[2u * l + 1u] = sqrt(part_g[0]);
    }
}

@compute @workgroup_size(256)
fn update(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.n) { return; }
    var l = 0u;
    while (l + 1u < p.segments && i >= bounds[l + 1u]) { l = l + 1u; }
    let wn = norms_in[2u * l];
    let gn = norms_in[2u * l + 1u];
    var local_lr = p.lr;
    if (wn > 0.0 && gn > 0.0) {
        local_lr = p.lr * wn / (gn + p.weight_decay * wn);
    }
    let w = weights[i];
    let v = p.momentum * velocity[i] + local_lr * (grads[i] + p.weight_decay * w);
    velocity[i] = v;
    weights[i] = w - v;
}
