// RMSProp (docs/theory.md §2.5): A ← β A + (1 − β) g²;  w ← w − η g / (√A + ε)
// Like AdaGrad, but the squared gradients are a moving average, so old ones are forgotten.

struct Params { n: u32, lr: f32, beta: f32, eps: f32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> grads: array<f32>;
@group(0) @binding(2) var<storage, read_write> weights: array<f32>;
@group(0) @binding(3) var<storage, read_write> accum: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.n) { return; }
    let g = grads[i];
    let a = p.beta * accum[i] + (1.0 - p.beta) * g * g;
    accum[i] = a;
    weights[i] = weights[i] - p.lr * g / (sqrt(a) + p.eps);
}
