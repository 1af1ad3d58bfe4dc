// Softmax over each row of logits (rows × classes), and for training the cross-entropy loss
// with its gradient  dL/dlogits = (softmax − onehot(label)) / rows  (the mean over the batch).
// One invocation per sample: class counts are small, so a row fits in one invocation's loop.

struct Params { rows: u32, classes: u32, slot: u32, gathered: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> labels: array<u32>;
@group(0) @binding(3) var<storage, read_write> loss: array<f32>;    // per sample
@group(0) @binding(4) var<storage, read_write> correct: array<f32>; // 1 if argmax == label
@group(0) @binding(5) var<storage, read_write> dlogits: array<f32>;
@group(0) @binding(6) var<storage, read_write> probs: array<f32>;
// The fused entry (softmax_xent_mean): the batch's mean loss and accuracy into slot `slot` of the
// log, as `batch_mean.wgsl` writes them; with `gathered`, sample r's label is labels[indices[r]]
// (the data set's labels: the training step's gather kernel is fused away).
@group(0) @binding(7) var<storage, read_write> log_loss: array<f32>;
@group(0) @binding(8) var<storage, read_write> log_accuracy: array<f32>;
@group(0) @binding(9) var<storage, read> indices: array<u32>;

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

// Row r's loss gradient into dlogits; returns its loss and whether its arg-max is the label.
fn xent_row(r: u32, y: u32) -> vec2<f32> {
    let base = r * p.classes;
    let m = row_max(base);
    let s = row_sum_exp(base, m);
    var best = 0u;
    for (var c = 0u; c < p.classes; c = c + 1u) {
        let pc = exp(logits[base + c] - m) / s;
        let target_c = select(0.0, 1.0, c == y);
        dlogits[base + c] = (pc - target_c) / f32(p.rows);
        if (logits[base + c] > logits[base + best]) { best = c; }
    }
    // −log softmax_y = log Σ exp(x − max) − (x_y − max)
    return vec2<f32>(log(s) - (logits[base + y] - m), select(0.0, 1.0, best == y));
}

@compute @workgroup_size(64)
fn softmax_xent(@builtin(global_invocation_id) gid: vec3<u32>) {
    let r = gid.x;
    if (r >= p.rows) { return; }
    let out = xent_row(r, labels[r]);
    loss[r] = out.x;
    correct[r] = out.y;
}

// The loss and its mean in one workgroup: each invocation takes every 256th row and sums its
// share, then a tree reduction, in the order `batch_mean.wgsl` adds (the same sums, bit for bit).
var<workgroup> part_loss: array<f32, 256>;
var<workgroup> part_correct: array<f32, 256>;

@compute @workgroup_size(256)
fn softmax_xent_mean(@builtin(local_invocation_id) lid: vec3<u32>) {
    var sl = 0.0;
    var sc = 0.0;
    for (var r = lid.x; r < p.rows; r = r + 256u) {
        var y = labels[r];
        if (p.gathered != 0u) { y = labels[indices[r]]; }
        let out = xent_row(r, y);
        loss[r] = out.x;
        correct[r] = out.y;
        sl = sl + out.x;
        sc = sc + out.y;
    }
    part_loss[lid.x] = sl;
    part_correct[lid.x] = sc;
    workgroupBarrier();
    for (var stride = 128u; stride > 0u; stride = stride / 2u) {
        if (lid.x < stride) {
            part_loss[lid.x] = part_loss[lid.x] + part_loss[lid.x + stride];
            part_correct[lid.x] = part_correct[lid.x] + part_correct[lid.x + stride];
        }
        workgroupBarrier();
    }
    if (lid.x == 0u) {
        log_loss[p.slot] = part_loss[0] / f32(p.rows);
        log_accuracy[p.slot] = part_correct[0] / f32(p.rows);
    }
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
