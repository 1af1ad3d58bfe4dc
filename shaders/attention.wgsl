// Multi-head self-attention, one query row per invocation (docs/theory.md §12.1). `qkv` holds
// each token's query, key and value side by side, [rows = batch · seq, 3 · width], width = heads ·
// head_dim, head h at columns h · head_dim of each; `out` is [rows, width]; `probs` and `d_scores`
// are [batch, heads, seq, seq]. Causal: query i attends to keys j ≤ i only (the mask), and the
// masked probabilities are stored as 0.
//
// forward:        S = scale · Q Kᵀ, P = softmax(S) row by row, O = P V.
// backward_query: dP = dO Vᵀ, dS = scale · P ⊙ (dP − Σⱼ P dP) (stored), dQ = dS K.
// backward_key:   dK = dSᵀ Q, dV = Pᵀ dO, one key row per invocation (no two write one row).

struct Params { batch: u32, seq: u32, heads: u32, head_dim: u32, scale: f32, causal: u32, _pad0: u32, _pad1: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> qkv: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<storage, read_write> probs: array<f32>;
@group(0) @binding(4) var<storage, read> d_out: array<f32>;
@group(0) @binding(5) var<storage, read_write> d_scores: array<f32>;
@group(0) @binding(6) var<storage, read_write> d_qkv: array<f32>;

fn width() -> u32 { return p.heads * p.head_dim; }

// Where token t of sample b keeps element c of head h's query (its key: + width, value: + 2 width).
fn at(b: u32, t: u32, h: u32, c: u32) -> u32 {
    return (b * p.seq + t) * 3u * width() + h * p.head_dim + c;
}

// Element c of head h in token t's row of `out` or `d_out`.
fn row_at(b: u32, t: u32, h: u32, c: u32) -> u32 {
    return (b * p.seq + t) * width() + h * p.head_dim + c;
}

// (sample, head, token) of row r of the scores, [batch, heads, seq] in order.
fn split(r: u32) -> vec3<u32> {
    return vec3<u32>(r / (p.seq * p.heads), (r / p.seq) % p.heads, r % p.seq);
}

// The last key a query attends to.
fn last_key(i: u32) -> u32 {
    return select(p.seq - 1u, i, p.causal == 1u);
}

@compute @workgroup_size(64)
fn forward(@builtin(global_invocation_id) gid: vec3<u32>) {
    let r = gid.x;
    if (r >= p.batch * p.heads * p.seq) { return; }
    let at_row = split(r);
    let b = at_row.x;
    let h = at_row.y;
    let i = at_row.z;
    let last = last_key(i);
    let base = r * p.seq;
    var top = -3.0e38;
    for (var j = 0u; j <= last; j++) {
        var s = 0.0;
        for (var c = 0u; c < p.head_dim; c++) {
            s += qkv[at(b, i, h, c)] * qkv[at(b, j, h, c) + width()];
        }
        s *= p.scale;
        probs[base + j] = s;
        top = max(top, s);
    }
    var sum = 0.0;
    for (var j = 0u; j <= last; j++) {
        let e = exp(probs[base + j] - top);
        probs[base + j] = e;
        sum += e;
    }
    for (var j = 0u; j < p.seq; j++) {
        probs[base + j] = select(0.0, probs[base + j] / sum, j <= last);
    }
    for (var c = 0u; c < p.head_dim; c++) {
        var o = 0.0;
        for (var j = 0u; j <= last; j++) {
            o += probs[base + j] * qkv[at(b, j, h, c) + 2u * width()];
        }
        out[row_at(b, i, h, c)] = o;
    }
}

@compute @workgroup_size(64)
fn backward_query(@builtin(global_invocation_id) gid: vec3<u32>) {
    let r = gid.x;
    if (r >= p.batch * p.heads * p.seq) { return; }
    let at_row = split(r);
    let b = at_row.x;
    let h = at_row.y;
    let i = at_row.z;
    let last = last_key(i);
    let base = r * p.seq;
    // dP (kept in d_scores for now) and Σⱼ P dP.
    var dot = 0.0;
    for (var j = 0u; j <= last; j++) {
        var dp = 0.0;
        for (var c = 0u; c < p.head_dim; c++) {
            dp += d_out[row_at(b, i, h, c)] * qkv[at(b, j, h, c) + 2u * width()];
        }
        d_scores[base + j] = dp;
        dot += probs[base + j] * dp;
    }
    for (var j = 0u; j < p.seq; j++) {
        d_scores[base + j] = select(0.0, p.scale * probs[base + j] * (d_scores[base + j] - dot), j <= last);
    }
    for (var c = 0u; c < p.head_dim; c++) {
        var dq = 0.0;
        for (var j = 0u; j <= last; j++) {
            dq += d_scores[base + j] * qkv[at(b, j, h, c) + width()];
        }
        d_qkv[at(b, i, h, c)] = dq;
    }
}

@compute @workgroup_size(64)
fn backward_key(@builtin(global_invocation_id) gid: vec3<u32>) {
    let r = gid.x;
    if (r >= p.batch * p.heads * p.seq) { return; }
    let at_row = split(r);
    let b = at_row.x;
    let h = at_row.y;
    let j = at_row.z;
    // The queries that attend to key j.
    let first = select(0u, j, p.causal == 1u);
    let block = (r - j) * p.seq;
    for (var c = 0u; c < p.head_dim; c++) {
        var dk = 0.0;
        var dv = 0.0;
        for (var i = first; i < p.seq; i++) {
            dk += d_scores[block + i * p.seq + j] * qkv[at(b, i, h, c)];
            dv += probs[block + i * p.seq + j] * d_out[row_at(b, i, h, c)];
        }
        d_qkv[at(b, j, h, c) + width()] = dk;
        d_qkv[at(b, j, h, c) + 2u * width()] = dv;
    }
}
