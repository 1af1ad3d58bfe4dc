// Bias of a dense layer, Z is rows×cols (one row per sample).
//   add_bias:  Z[r, j] += bias[j]                 (forward)
//   bias_grad: dbias[j] = Σ_r dZ[r, j]            (backward; dZ already carries the 1/batch of the mean loss)

struct Params { rows: u32, cols: u32, bias_off: u32, _pad: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> bias: array<f32>;
@group(0) @binding(2) var<storage, read_write> z: array<f32>;
@group(0) @binding(3) var<storage, read> dz: array<f32>;
@group(0) @binding(4) var<storage, read_write> dbias: array<f32>;

@compute @workgroup_size(256)
fn add_bias(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.rows * p.cols) { return; }
    z[i] = z[i] + bias[p.bias_off + i % p.cols];
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
