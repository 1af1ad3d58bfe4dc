// Bias of a dense layer, Z is rows×cols (one row per sample).
//   add_bias:  Z[r, j] += bias[j]                 (forward)
//              for each of several weight vectors (landscape points) at once: dispatch row y = q
//              adds point q's bias (param_stride further on) to its own rows×cols block of Z;
//              points from `live` on are skipped
//   bias_grad: dbias[j] = Σ_r dZ[r, j]            (backward; dZ already carries the 1/batch of the mean loss)

struct Params { rows: u32, cols: u32, bias_off: u32, param_stride: u32, live: u32, _pad0: u32, _pad1: u32, _pad2: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> bias: array<f32>;
@group(0) @binding(2) var<storage, read_write> z: array<f32>;
@group(0) @binding(3) var<storage, read> dz: array<f32>;
@group(0) @binding(4) var<storage, read_write> dbias: array<f32>;

@compute @workgroup_size(256)
fn add_bias(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let q = gid.y;
    if (i >= p.rows * p.cols || q >= p.live) { return; }
    let at = q * p.rows * p.cols + i;
    z[at] = z[at] + bias[q * p.param_stride + p.bias_off + i % p.cols];
}

// One invocation per column: batches here are small (≤ a few thousand rows), so a serial
// sum per column is simple and exact enough; the column count gives the parallelism.
@compute @workgroup_size(64)
fn bias_grad(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = gid.x;
    if (j >= p.cols) { return; }
    var s = 0.0;
    for (var r = 0u; r < p.rows; r = r + 1u) {
        s = s + dz[r * p.cols + j];
    }
    dbias[p.bias_off + j] = s;
}
