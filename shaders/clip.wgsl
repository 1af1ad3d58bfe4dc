// Clipping the gradient by its global norm (docs/theory.md §12.3): `norm` sums every gradient's
// square in one workgroup (a grid-stride loop, then a tree in workgroup memory) and stores
// factor = min(1, max_norm / ‖g‖) and ‖g‖; `scale` multiplies every gradient by the factor.

struct Params { n: u32, max_norm: f32, _pad0: u32, _pad1: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> grads: array<f32>;
@group(0) @binding(2) var<storage, read_write> clip: array<f32>;

const SIZE: u32 = 256u;
var<workgroup> partial: array<f32, SIZE>;

@compute @workgroup_size(256)
fn norm(@builtin(local_invocation_index) lane: u32) {
    var sum = 0.0;
    for (var i = lane; i < p.n; i += SIZE) {
        sum += grads[i] * grads[i];
    }
    partial[lane] = sum;
    workgroupBarrier();
    for (var half = SIZE / 2u; half > 0u; half /= 2u) {
        if (lane < half) { partial[lane] += partial[lane + half]; }
        workgroupBarrier();
    }
    if (lane == 0u) {
        let total = sqrt(partial[0]);
        clip[0] = select(1.0, p.max_norm / total, total > p.max_norm);
        clip[1] = total;
    }
}

@compute @workgroup_size(256)
fn scale(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.n) { return; }
    grads[i] *= clip[0];
}
