// A pruning mask applied to the weights after every update: w[i] ← w[i] · m[i], m[i] ∈ {0, 1}.
// After the optimizer's kernels, so a pruned weight stays exactly zero whatever the optimizer's
// state would move it by (momentum, Adam's moments, weight decay).

struct Params { n: u32, _pad0: u32, _pad1: u32, _pad2: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> mask: array<f32>;
@group(0) @binding(2) var<storage, read_write> weights: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.n) { return; }
    weights[i] = weights[i] * mask[i];
}
