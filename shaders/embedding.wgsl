// Token and position embeddings (docs/theory.md §12.1). forward: x[n] = table[token[n]] +
// positions[n mod seq], a row of `width` per token. backward_table: each row of the table's
// gradient sums the rows of d_x whose token it is (one invocation per value: no two write one);
// `accumulate` adds to what is there (a tied output head wrote its part first).
// backward_positions: each position's gradient sums its rows over the batch. The table and the
// positions (and their gradients) start at `table_off` and `pos_off` of their buffers.

struct Params { tokens: u32, seq: u32, width: u32, vocab: u32, accumulate: u32, table_off: u32, pos_off: u32, _pad0: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> ids: array<u32>;
@group(0) @binding(2) var<storage, read> table: array<f32>;
@group(0) @binding(3) var<storage, read> positions: array<f32>;
@group(0) @binding(4) var<storage, read_write> x: array<f32>;
@group(0) @binding(5) var<storage, read> d_x: array<f32>;
@group(0) @binding(6) var<storage, read_write> d_table: array<f32>;
@group(0) @binding(7) var<storage, read_write> d_positions: array<f32>;

@compute @workgroup_size(256)
fn forward(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.tokens * p.width) { return; }
    let n = i / p.width;
    let c = i % p.width;
    x[i] = table[p.table_off + ids[n] * p.width + c] + positions[p.pos_off + (n % p.seq) * p.width + c];
}

@compute @workgroup_size(256)
fn backward_table(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.vocab * p.width) { return; }
    let v = i / p.width;
    let c = i % p.width;
    var sum = select(0.0, d_table[p.table_off + i], p.accumulate == 1u);
    for (var n = 0u; n < p.tokens; n++) {
        if (ids[n] == v) { sum += d_x[n * p.width + c]; }
    }
    d_table[p.table_off + i] = sum;
}

@compute @workgroup_size(256)
fn backward_positions(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.seq * p.width) { return; }
    var sum = 0.0;
    for (var n = i / p.width; n < p.tokens; n += p.seq) {
        sum += d_x[n * p.width + i % p.width];
    }
    d_positions[p.pos_off + i] = sum;
}
