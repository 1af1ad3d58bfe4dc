// Element-wise activations h = act(z) and their backward dz = dh · act'(z).
// kind: 0 linear, 1 ReLU, 2 tanh, 3 sigmoid, 4 leaky ReLU (slope 0.01).

struct Params { n: u32, kind: u32, _pad0: u32, _pad1: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> z: array<f32>;
@group(0) @binding(2) var<storage, read_write> h: array<f32>;
@group(0) @binding(3) var<storage, read> dh: array<f32>;
@group(0) @binding(4) var<storage, read_write> dz: array<f32>;

// act() and act_derivative() are in `activation_fns.wgsl`, which the engine puts before this file.

// Each invocation takes every (workgroups · 256)-th value from its own (a grid-stride loop): an
// emulated GPU gets only a few workgroups (`Kernel::strided`), a real GPU one value each.
@compute @workgroup_size(256)
fn forward(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    for (var i = gid.x; i < p.n; i = i + groups.x * 256u) {
        h[i] = act(p.kind, z[i]);
    }
}

@compute @workgroup_size(256)
fn backward(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    for (var i = gid.x; i < p.n; i = i + groups.x * 256u) {
        dz[i] = dh[i] * act_derivative(p.kind, z[i]);
    }
}
