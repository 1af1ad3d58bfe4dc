// Mean per-sample loss and accuracy of a batch, written into slot `slot` of a small log, so that
// many steps can run before the host reads the log back once.
// One workgroup per batch: each invocation sums a strided share, then a tree reduction in
// workgroup memory. The loss landscape runs several points at once: workgroup q averages the
// q-th block of `rows` values into slot `slot + q`, for q below `live`.

struct Params { rows: u32, slot: u32, live: u32, _pad1: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> loss: array<f32>;
@group(0) @binding(2) var<storage, read> correct: array<f32>;
@group(0) @binding(3) var<storage, read_write> log_loss: array<f32>;
@group(0) @binding(4) var<storage, read_write> log_accuracy: array<f32>;

const WG: u32 = 256u;
var<workgroup> part_loss: array<f32, 256>;
var<workgroup> part_correct: array<f32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    if (wg.x >= p.live) { return; }
    let first = wg.x * p.rows;
    var sl = 0.0;
    var sc = 0.0;
    for (var r = lid.x; r < p.rows; r = r + WG) {
        sl = sl + loss[first + r];
        sc = sc + correct[first + r];
    }
    part_loss[lid.x] = sl;
    part_correct[lid.x] = sc;
    workgroupBarrier();
    for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
        if (lid.x < stride) {
            part_loss[lid.x] = part_loss[lid.x] + part_loss[lid.x + stride];
            part_correct[lid.x] = part_correct[lid.x] + part_correct[lid.x + stride];
        }
        workgroupBarrier();
    }
    if (lid.x == 0u) {
        log_loss[p.slot + wg.x] = part_loss[0] / f32(p.rows);
        log_accuracy[p.slot + wg.x] = part_correct[0] / f32(p.rows);
    }
}
