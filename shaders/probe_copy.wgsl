// The roofline's bandwidth probe: dst[i] = src[i] over n floats, each invocation striding by
// the whole grid, so consecutive invocations touch consecutive words (coalesced) and every byte
// is read once and written once: 8 bytes a float moved, no arithmetic.

struct Params { n: u32, _pad0: u32, _pad1: u32, _pad2: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let stride = groups.x * 256u;
    for (var i = gid.x; i < p.n; i = i + stride) {
        dst[i] = src[i];
    }
}
