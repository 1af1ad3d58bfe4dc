// Softmax over each row of logits (rows × classes), and for training the cross-entropy loss
// with its gradient  dL/dlogits = (softmax − onehot(label)) / rows  (the mean over the batch).
// One invocation per sample: class counts are small, so a row fits in one invocation's loop.

struct Params { rows: u32, classes: u32, _pad0: u32, _pad1: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> labels: array<u32>;
@group(0) @binding(3) var<storage, read_write> loss: array<f32>;    // per sample
@group(0) @binding(4) var<storage, read_write> correct: array<f32>; // 1 if argmax == label
@group(0) @binding(5) var<storage, read_write> dlogits: array<f32>;
@group(0) @binding(6) var<storage, read_write> probs: array<f32>;

fn row_max(base: u32) -> f32 {
    var m = logits[base];
    for (var c = 1u; c < p.classes; c = c + 1u) { m = max(m, logits[base + c]); }
    return m;
}

// Σ exp(x − max): subtracting the max keeps exp from overflowing.
fn row_sum_exp(base: u32, m: f32) -> f32 {
    var s = 0.0;
    for (var c = 0u; c < p.classes; c = c + 1u) { s = s + exp(logits[base + c] - m); }
    return s;
}

@compute @workgroup_size(64)
fn softmax_xent(@builtin(global_invocation_id) gid: vec3<u32>) {
    let r = gid.x;
    if (r >= p.rows) { return; }
    let base = r * p.classes;
    let m = row_max(base);
    let s = row_sum_exp(base, m);
    let y = labels[r];
    var best = 0u;
    for (var c = 0u; c < p.classes; c = c + 1u) {
        let pc = exp(logits[base + c] - m) / s;
        let target_c = select(0.0, 1.0, c == y);
        dlogits[base + c] = (pc - target_c) / f32(p.rows);
        if (logits[base + c] > logits[base + best]) { best = c; }
    }
    // −log softmax_y = log Σ exp(x − max) − (x_y − max)
    loss[r] = log(s) - (logits[base + y] - m);
    correct[r] = select(0.0, 1.0, best == y);
}

@compute @workgroup_size(64)
fn softmax(@builtin(global_invocation_id) gid: vec3<u32>) {
    let r = gid.x;
    if (r >= p.rows) { return; }
    let base = r * p.classes;
    let m = row_max(base);
    let s = row_sum_exp(base, m);
    for (var c = 0u; c < p.classes; c = c + 1u) {
        probs[base + c] = exp(logits[base + c] - m) / s;
    }
}
