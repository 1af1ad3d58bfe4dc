// Group lasso on a dense layer's neurons (Wen et al. 2016): the penalty λ Σ_o ‖W_o‖₂ over the rows
// W_o (a neuron's incoming weights, `inputs` of them from `w_off + o·inputs`) adds to each
// weight's gradient
//   ∂/∂w = λ · w / ‖W_o‖₂      (0 for a row that is all zero: its subgradient's smallest choice)
// which pulls whole rows toward zero together, so training leaves neurons that can be removed.
// One invocation per row.

struct Params { w_off: u32, inputs: u32, outputs: u32, lambda: f32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> weights: array<f32>;
@group(0) @binding(2) var<storage, read_write> grads: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let o = gid.x;
    if (o >= p.outputs) { return; }
    let start = p.w_off + o * p.inputs;
    var sq = 0.0;
    for (var j = 0u; j < p.inputs; j = j + 1u) {
        let w = weights[start + j];
        sq = sq + w * w;
    }
    if (sq == 0.0) { return; }
    let scale = p.lambda / sqrt(sq);
    for (var j = 0u; j < p.inputs; j = j + 1u) {
        grads[start + j] = grads[start + j] + scale * weights[start + j];
    }
}
