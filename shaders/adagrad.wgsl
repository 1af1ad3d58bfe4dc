// AdaGrad (docs/theory.md §2.4; ε inside the root, §2.9): A ← A + g²;  w ← w − η g / √(A + ε)
// Each parameter's step shrinks with the total squared gradient it has seen.

struct Params { n: u32, lr: f32, eps: f32, _pad: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> grads: array<f32>;
@group(0) @binding(2) var<storage, read_write> weights: array<f32>;
@group(0) @binding(3) var<storage, read_write> accum: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.n) { return; }
    let g = grads[i];
    let a = accum[i] + g * g;
    accum[i] = a;
    weights[i] = weights[i] - p.lr * g / sqrt(a + p.eps);
}
