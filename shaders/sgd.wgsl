// SGD with (heavy-ball) momentum over the flat parameter buffer (DOMAIN.md §2):
//   v ← μ v − η g;  w ← w + v        (μ = 0 is plain SGD: w ← w − η g)

struct Params { n: u32, lr: f32, momentum: f32, _pad: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> grads: array<f32>;
@group(0) @binding(2) var<storage, read_write> weights: array<f32>;
@group(0) @binding(3) var<storage, read_write> velocity: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.n) { return; }
    let v = p.momentum * velocity[i] - p.lr * grads[i];
    velocity[i] = v;
    weights[i] = weights[i] + v;
}
