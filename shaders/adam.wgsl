// Adam and AdamW over the flat parameter buffer (docs/theory.md §2.6–2.7):
//   m ← β1 m + (1−β1) g;  v ← β2 v + (1−β2) g²
//   m̂ = m / (1−β1ᵗ);  v̂ = v / (1−β2ᵗ);  w ← w − η m̂ / (√v̂ + ε) − η λ w
// λ (weight_decay) is 0 for Adam; AdamW's decay is "decoupled": it shrinks w directly instead of
// being added to the gradient, so the adaptive scaling does not weaken it.
// The host passes the bias corrections 1−β1ᵗ and 1−β2ᵗ for the current step t.

struct Params { n: u32, lr: f32, beta1: f32, beta2: f32, eps: f32, bc1: f32, bc2: f32, weight_decay: f32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> grads: array<f32>;
@group(0) @binding(2) var<storage, read_write> weights: array<f32>;
@group(0) @binding(3) var<storage, read_write> m: array<f32>;
@group(0) @binding(4) var<storage, read_write> v: array<f32>;

// A grid-stride loop: every (workgroups · 256)-th parameter from the invocation's own (an
// emulated GPU gets only a few workgroups, `Kernel::strided`; a real GPU one parameter each).
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    for (var i = gid.x; i < p.n; i = i + groups.x * 256u) { update(i); }
}

fn update(i: u32) {
    let g = grads[i];
    let mi = p.beta1 * m[i] + (1.0 - p.beta1) * g;
    let vi = p.beta2 * v[i] + (1.0 - p.beta2) * g * g;
    m[i] = mi;
    v[i] = vi;
    let m_hat = mi / p.bc1;
    let v_hat = vi / p.bc2;
    let w = weights[i];
    weights[i] = w - p.lr * m_hat / (sqrt(v_hat) + p.eps) - p.lr * p.weight_decay * w;
}
