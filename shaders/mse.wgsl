// Mean squared error against one-hot targets, as TensorFlow Playground offers it for classification:
//   loss_r = Σ_c (o_rc − t_rc)² / C          (BatchMean then averages over the batch: the mean over all B·C values)
//   dL/do_rc = 2 (o_rc − t_rc) / (B · C)
// The network's last layer outputs o directly (no softmax).
// `regression`: one output per row against a real target, whose f32 bits travel in the label
// buffer: loss_r = (o_r − t_r)², dL/do_r = 2 (o_r − t_r) / B; "correct" is 0 (no classes).

struct Params { rows: u32, classes: u32, _pad0: u32, _pad1: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> outputs: array<f32>;
@group(0) @binding(2) var<storage, read> labels: array<u32>;
@group(0) @binding(3) var<storage, read_write> loss: array<f32>;
@group(0) @binding(4) var<storage, read_write> correct: array<f32>;
@group(0) @binding(5) var<storage, read_write> d_outputs: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let r = gid.x;
    if (r >= p.rows) { return; }
    let base = r * p.classes;
    let y = labels[r];
    var s = 0.0;
    var best = 0u;
    for (var c = 0u; c < p.classes; c = c + 1u) {
        let diff = outputs[base + c] - select(0.0, 1.0, c == y);
        s = s + diff * diff;
        d_outputs[base + c] = 2.0 * diff / f32(p.rows * p.classes);
        if (outputs[base + c] > outputs[base + best]) { best = c; }
    }
    loss[r] = s / f32(p.classes);
    correct[r] = select(0.0, 1.0, best == y);
}

@compute @workgroup_size(64)
fn regression(@builtin(global_invocation_id) gid: vec3<u32>) {
    let r = gid.x;
    if (r >= p.rows) { return; }
    let diff = outputs[r] - bitcast<f32>(labels[r]);
    loss[r] = diff * diff;
    d_outputs[r] = 2.0 * diff / f32(p.rows);
    correct[r] = 0.0;
}
