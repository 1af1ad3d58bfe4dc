// A sparse layer's forward pass: W in compressed sparse row form (CSR) times a batch of inputs.
//   y[n, o] = act(b[o] + Σ_{k = row_ptr[o]}^{row_ptr[o+1] − 1} values[k] · x[n, col(k)])
// Only the kept weights are stored and multiplied; each costs its column index, read here as
// 16 bits, two to a word (cols[k / 2] >> 16·(k mod 2)), so the bytes match what the sparsity lab
// counts. One invocation per output: x along the workgroup's 64 outputs, the sample along y, so a
// workgroup reads one sample's inputs.

struct Params { rows: u32, inputs: u32, batch: u32, relu: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> row_ptr: array<u32>;
@group(0) @binding(2) var<storage, read> cols: array<u32>;
@group(0) @binding(3) var<storage, read> values: array<f32>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;
@group(0) @binding(5) var<storage, read> x: array<f32>;
@group(0) @binding(6) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let o = gid.x;
    let n = gid.y;
    if (o >= p.rows || n >= p.batch) { return; }
    let base = n * p.inputs;
    var s = 0.0;
    for (var k = row_ptr[o]; k < row_ptr[o + 1u]; k = k + 1u) {
        let col = (cols[k >> 1u] >> (16u * (k & 1u))) & 0xffffu;
        s = s + values[k] * x[base + col];
    }
    s = s + bias[o];
    if (p.relu != 0u) { s = max(s, 0.0); }
    y[n * p.rows + o] = s;
}
