// SGD and its momentum variants over the flat parameter buffer (docs/theory.md §2).
//   mode 0, SGD:       w ← w − η g
//   mode 1, momentum:  v ← μ v − η g;  w ← w + v
//   mode 2, Nesterov:  v ← μ v − η g;  w ← w + μ v − η g
// Nesterov is the look-ahead form: w here is the point w' + μ v' at which docs/theory.md's
// v ← μ v − η ∇ℓ(w' + μ v'), w' ← w' + v evaluates its gradient, so only one gradient per step is needed.

struct Params { n: u32, lr: f32, momentum: f32, mode: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> grads: array<f32>;
@group(0) @binding(2) var<storage, read_write> weights: array<f32>;
@group(0) @binding(3) var<storage, read_write> velocity: array<f32>;

// The pipeline's mode, set by the engine (an overridable constant, so the compiler keeps only its
// branch: a GPU emulated on the processor runs every branch, masked); ANY_MODE: the uniform's.
const ANY_MODE: u32 = 255u;
override MODE: u32 = 255u;

// A grid-stride loop: every (workgroups · 256)-th parameter from the invocation's own (an
// emulated GPU gets only a few workgroups, `Kernel::strided`; a real GPU one parameter each).
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    // Four parameters a pass: an emulated GPU pays for each pass of a loop (its values are
    // merged under the lanes' mask), not only for the work in it.
    let stride = groups.x * 256u;
    var i = gid.x;
    for (; i + 3u * stride < p.n; i = i + 4u * stride) {
        update(i);
        update(i + stride);
        update(i + 2u * stride);
        update(i + 3u * stride);
    }
    for (; i < p.n; i = i + stride) { update(i); }
}

fn update(i: u32) {
    let g = grads[i];
    let mode = select(p.mode, MODE, MODE != ANY_MODE);
    if (mode == 0u) {
        weights[i] = weights[i] - p.lr * g;
        return;
    }
    let v = p.momentum * velocity[i] - p.lr * g;
    velocity[i] = v;
    if (mode == 1u) {
        weights[i] = weights[i] + v;
    } else {
        weights[i] = weights[i] + p.momentum * v - p.lr * g;
    }
}
