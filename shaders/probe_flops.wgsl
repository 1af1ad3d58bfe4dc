// The roofline's compute probe: each invocation runs `iters` rounds of eight independent chains
// of fused multiply-adds on four lanes (x ← a·x + b), so nothing waits on memory and the
// chains keep the arithmetic units busy; 64 FLOPs a round. a and b come from the uniform, so
// the compiler cannot fold the loop away; the one store at the end keeps it from dropping it.
// With a = b = 0.5 every lane walks to exactly 1.0, on any device, so out[i] = 32.

struct Params { n: u32, iters: u32, a: f32, b: f32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.n) { return; }
    let a = vec4<f32>(p.a);
    let b = vec4<f32>(p.b);
    let s = f32(i & 7u) * 0.125;
    var x0 = vec4<f32>(s, s + 0.01, s + 0.02, s + 0.03);
    var x1 = x0 + 0.1; var x2 = x0 + 0.2; var x3 = x0 + 0.3;
    var x4 = x0 + 0.4; var x5 = x0 + 0.5; var x6 = x0 + 0.6; var x7 = x0 + 0.7;
    for (var t = 0u; t < p.iters; t = t + 1u) {
        x0 = fma(x0, a, b); x1 = fma(x1, a, b); x2 = fma(x2, a, b); x3 = fma(x3, a, b);
        x4 = fma(x4, a, b); x5 = fma(x5, a, b); x6 = fma(x6, a, b); x7 = fma(x7, a, b);
    }
    let v = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));
    out[i] = (v.x + v.y) + (v.z + v.w);
}
