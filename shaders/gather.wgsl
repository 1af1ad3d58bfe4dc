// Assemble a mini-batch from the data set that stays on the GPU: row b of the batch is row
// indices[b] of the data set. Only the indices travel from the host each step.
// `packed` reads image data stored as bytes, four to a word, and turns each into byte / 255.

struct Params { rows: u32, dim: u32, _pad0: u32, _pad1: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> data_x: array<f32>;
@group(0) @binding(2) var<storage, read> data_y: array<u32>;
@group(0) @binding(3) var<storage, read> indices: array<u32>;
@group(0) @binding(4) var<storage, read_write> batch_x: array<f32>;
@group(0) @binding(5) var<storage, read_write> batch_y: array<u32>;
@group(0) @binding(6) var<storage, read> data_bytes: array<u32>;

// Both entry points walk the batch's values in a grid-stride loop (every (workgroups · 256)-th
// from the invocation's own): an emulated GPU gets only a few workgroups (`Kernel::strided`).
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    for (var i = gid.x; i < p.rows * p.dim; i = i + groups.x * 256u) { copy_value(i); }
}

fn copy_value(i: u32) {
    let r = i / p.dim;
    let d = i % p.dim;
    let src = indices[r];
    batch_x[i] = data_x[src * p.dim + d];
    if (d == 0u) { batch_y[r] = data_y[src]; }
}

@compute @workgroup_size(256)
fn packed(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    for (var i = gid.x; i < p.rows * p.dim; i = i + groups.x * 256u) { unpack_value(i); }
}

fn unpack_value(i: u32) {
    let r = i / p.dim;
    let d = i % p.dim;
    let src = indices[r];
    let at = src * p.dim + d;
    let byte = (data_bytes[at / 4u] >> (8u * (at % 4u))) & 255u;
    batch_x[i] = f32(byte) / 255.0;
    if (d == 0u) { batch_y[r] = data_y[src]; }
}
