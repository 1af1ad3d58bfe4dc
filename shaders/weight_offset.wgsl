// One point of a loss-landscape slice (DOMAIN.md §4): the weights
//   w = center + α·d1 + β·d2
// with (α, β) the point `slot` of a list of points on the device, so a whole row of a slice runs
// back to back (this, then the forward pass and the loss) with one readback at the end.

struct Params { n: u32, slot: u32, _pad0: u32, _pad1: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> center: array<f32>;
@group(0) @binding(2) var<storage, read> d1: array<f32>;
@group(0) @binding(3) var<storage, read> d2: array<f32>;
@group(0) @binding(4) var<storage, read> points: array<f32>;
@group(0) @binding(5) var<storage, read_write> weights: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.n) { return; }
    let alpha = points[2u * p.slot];
    let beta = points[2u * p.slot + 1u];
    weights[i] = center[i] + alpha * d1[i] + beta * d2[i];
}
