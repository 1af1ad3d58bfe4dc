// Counts the values of `x` that overflowed, into count[0]: the loss scaler's overflow test
// (docs/theory.md §7.3). ±∞ and NaN (all exponent bits set) always; when the format saturates
// (E4M3 stores an overflow as ±448, never as ±∞), a value at its largest magnitude too, as FP8
// recipes count it — else the scaler would never see E4M3 overflow. Read by their bits, since WGSL
// arithmetic may assume it never meets ±∞ or NaN (a positive float's bits order as its value).
// CPU twin: `ops::finite::overflowed_cpu`.

struct Params { n: u32, saturates: u32, limit: f32, _pad0: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> count: array<atomic<u32>>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.n) { return; }
    let bits = bitcast<u32>(x[i]);
    let non_finite = (bits & 0x7f800000u) == 0x7f800000u;
    let saturated = p.saturates == 1u && (bits & 0x7fffffffu) >= bitcast<u32>(p.limit);
    if (non_finite || saturated) {
        atomicAdd(&count[0], 1u);
    }
}

// Sets the count to zero before a step's test.
@compute @workgroup_size(1)
fn clear() {
    _ = p.n; // the kernels' bind groups all hold the uniform at binding 0
    atomicStore(&count[0], 0u);
}
