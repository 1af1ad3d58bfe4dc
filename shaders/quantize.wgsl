// Rounds `len` values of `x` from `offset` on, in place (or from `src`), to a reduced-precision format, kept as
// f32 (docs/theory.md §7.1): the nearest value the format holds (ties to even) or, stochastically,
// one of its two neighbours. The format arrives as its mantissa bits, smallest normal exponent,
// largest value and overflow rule; bf16 (code 2) is rounded in integers, the others by an exact
// power-of-two scaling. Infinities and NaN are recognised by their bits (WGSL may assume
// arithmetic never meets them). CPU twin: `precision::Format::round`; of `tensor` and
// `tensor_copy` (per-tensor delayed scaling), `ops::quantize::tensor_scaled_cpu`.

struct Params {
    offset: u32, len: u32, code: u32, mantissa: u32,
    emin_biased: u32, max: f32, saturates: u32, stochastic: u32,
    seed: u32, scale: f32, slot: u32, record: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> x: array<f32>;
@group(0) @binding(2) var<storage, read> src: array<f32>;
// Delayed scaling: each tensor's scale exponent (written by the host) and amax (as f32 bits).
@group(0) @binding(3) var<storage, read> exponents: array<i32>;
@group(0) @binding(4) var<storage, read_write> amax: array<atomic<u32>>;

var<workgroup> largest: array<u32, 256>;

fn hash(v: u32) -> u32 {
    var h = v;
    h = h ^ (h >> 16u);
    h = h * 0x7feb352du;
    h = h ^ (h >> 15u);
    h = h * 0x846ca68bu;
    h = h ^ (h >> 16u);
    return h;
}

fn round_to_format(v: f32, noise: u32) -> f32 {
    let bits = bitcast<u32>(v);
    let sign = bits & 0x80000000u;
    let magnitude = bits & 0x7fffffffu;
    if (p.code == 0u) { return v; }
    if (p.code == 2u) {
        if (magnitude >= 0x7f800000u) { return v; }
        var add = 0x7fffu + ((magnitude >> 16u) & 1u);
        if (p.stochastic == 1u) { add = noise & 0xffffu; }
        return bitcast<f32>(sign | ((magnitude + add) & 0xffff0000u));
    }
    if (magnitude > 0x7f800000u) { return v; }
    var over = 0x7f800000u;
    if (p.saturates == 1u) { over = bitcast<u32>(p.max); }
    let overflow = bitcast<f32>(sign | over);
    if (magnitude == 0x7f800000u) { return overflow; }
    let a = bitcast<f32>(magnitude);
    if (a >= 2.0 * p.max) { return overflow; }
    let e = max(i32(magnitude >> 23u) - 127, i32(p.emin_biased) - 127);
    let m = i32(p.mantissa);
    let t = ldexp(a, m - e);
    var k = round(t);
    if (p.stochastic == 1u) {
        let below = floor(t);
        let threshold = f32((noise >> 8u) + 1u) / 16777216.0;
        k = below + select(0.0, 1.0, t - below >= threshold);
    }
    let r = ldexp(k, e - m);
    if (r > p.max) { return overflow; }
    return bitcast<f32>(sign | bitcast<u32>(r));
}

// x ← round(x · scale): the scale is 1 but for the loss scaler's unscaling (an exact power of two).
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.len) { return; }
    let j = p.offset + i;
    x[j] = round_to_format(x[j] * p.scale, hash(hash(p.seed) ^ i));
}

// x ← round(src): the reduced copy of the master weights that forward and backward read.
@compute @workgroup_size(256)
fn copy(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.len) { return; }
    let j = p.offset + i;
    x[j] = round_to_format(src[j] * p.scale, hash(hash(p.seed) ^ i));
}

// One value under its tensor's delayed scale 2^k: saturated at the format's largest (the limit
// unscaled, compared by bits, so ±∞ saturates too and NaN stays), scaled, rounded, unscaled. Every
// step is a power-of-two scaling of a value in range: exact.
fn tensor_scaled(v: f32, k: i32, noise: u32) -> f32 {
    let magnitude = bitcast<u32>(v) & 0x7fffffffu;
    if (magnitude > 0x7f800000u) { return v; }
    let limit = ldexp(p.max, -k);
    var w = v;
    if (magnitude > bitcast<u32>(limit)) {
        w = bitcast<f32>((bitcast<u32>(v) & 0x80000000u) | bitcast<u32>(limit));
    }
    return ldexp(round_to_format(ldexp(w, k), noise), -k);
}

// The tensor's amax this step: the workgroup's largest |x| (as bits), then one atomic max.
fn record_amax(m: u32, li: u32) {
    largest[li] = m;
    workgroupBarrier();
    for (var half = 128u; half > 0u; half = half >> 1u) {
        if (li < half) { largest[li] = max(largest[li], largest[li + half]); }
        workgroupBarrier();
    }
    if (li == 0u && p.record == 1u) { atomicMax(&amax[p.slot], largest[0]); }
}

// Stores value i of the tensor, read as `v`, under its delayed scale; its magnitude's bits (the amax's part).
fn store_scaled(i: u32, v: f32) -> u32 {
    x[p.offset + i] = tensor_scaled(v, exponents[p.slot], hash(hash(p.seed) ^ i));
    return bitcast<u32>(v) & 0x7fffffffu;
}

// x ← round(sat(x · 2^k)) · 2^−k, with the tensor's amax recorded.
@compute @workgroup_size(256)
fn tensor(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    var m = 0u;
    if (gid.x < p.len) { m = store_scaled(gid.x, x[p.offset + gid.x]); }
    record_amax(m, li);
}

// The same from `src`: the weights' reduced copy under the weights' delayed scales.
@compute @workgroup_size(256)
fn tensor_copy(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    var m = 0u;
    if (gid.x < p.len) { m = store_scaled(gid.x, src[p.offset + gid.x]); }
    record_amax(m, li);
}
