// Element-wise activations h = act(z) and their backward dz = dh · act'(z).
// kind: 0 linear, 1 ReLU, 2 tanh, 3 sigmoid, 4 leaky ReLU (slope 0.01).

struct Params { n: u32, kind: u32, _pad0: u32, _pad1: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> z: array<f32>;
@group(0) @binding(2) var<storage, read_write> h: array<f32>;
@group(0) @binding(3) var<storage, read> dh: array<f32>;
@group(0) @binding(4) var<storage, read_write> dz: array<f32>;

const LEAK: f32 = 0.01;

fn act(kind: u32, x: f32) -> f32 {
    switch kind {
        case 1u: { return max(x, 0.0); }
        case 2u: { return tanh(x); }
        case 3u: { return 1.0 / (1.0 + exp(-x)); }
        case 4u: { return select(LEAK * x, x, x > 0.0); }
        default: { return x; }
    }
}

fn act_derivative(kind: u32, x: f32) -> f32 {
    switch kind {
        case 1u: { return select(0.0, 1.0, x > 0.0); }
        case 2u: { let t = tanh(x); return 1.0 - t * t; }
        case 3u: { let s = 1.0 / (1.0 + exp(-x)); return s * (1.0 - s); }
        case 4u: { return select(LEAK, 1.0, x > 0.0); }
        default: { return 1.0; }
    }
}

@compute @workgroup_size(256)
fn forward(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.n) { return; }
    h[i] = act(p.kind, z[i]);
}

@compute @workgroup_size(256)
fn backward(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.n) { return; }
    dz[i] = dh[i] * act_derivative(p.kind, z[i]);
}
