// Counts the values of `x` that are ±∞ or NaN (all exponent bits set), into count[0]: the loss
// scaler's overflow test (docs/theory.md §7.3). Read by their bits, since WGSL arithmetic may
// assume it never meets them. CPU twin: `ops::finite::non_finite_cpu`.

struct Params { n: u32, _pad0: u32, _pad1: u32, _pad2: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> count: array<atomic<u32>>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.n) { return; }
    if ((bitcast<u32>(x[i]) & 0x7f800000u) == 0x7f800000u) {
        atomicAdd(&count[0], 1u);
    }
}

// Sets the count to zero before a step's test.
@compute @workgroup_size(1)
fn clear() {
    _ = p.n; // the kernels' bind groups all hold the uniform at binding 0
    atomicStore(&count[0], 0u);
}
