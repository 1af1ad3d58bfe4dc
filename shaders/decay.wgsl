// Decoupled weight decay on one slice of the parameters (docs/theory.md §12.5): w ← (1 − η λ) w
// for w in [off, off + n). Run before an Adam update with λ = 0, it makes that update AdamW's on
// the slice exactly (Adam's moments do not read w), while the parameters outside every decayed
// slice (biases, norms' gains) are left to Adam alone.

struct Params { off: u32, n: u32, lr: f32, decay: f32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> weights: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let keep = 1.0 - p.lr * p.decay;
    for (var i = gid.x; i < p.n; i = i + groups.x * 256u) {
        weights[p.off + i] = keep * weights[p.off + i];
    }
}
