// Inverted dropout while training: each value is kept with probability keep = 1 − rate and scaled
// by 1/keep, so nothing changes at prediction time (where the layer is skipped).
//   forward:  y = x · m / keep      backward: dx = dy · m / keep
// The mask m is a hash of (seed, step, index), so the backward pass recomputes exactly the forward's
// mask without storing it, and the CPU twin draws the same mask.

struct Params { n: u32, seed: u32, step: u32, keep: f32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

// A 32-bit integer hash (lowbias32, Chris Wellons): well mixed, cheap, identical in Rust.
fn hash(v: u32) -> u32 {
    var h = v;
    h = h ^ (h >> 16u);
    h = h * 0x7feb352du;
    h = h ^ (h >> 15u);
    h = h * 0x846ca68bu;
    h = h ^ (h >> 16u);
    return h;
}

fn kept(i: u32) -> bool {
    let h = hash(hash(hash(p.seed) ^ p.step) ^ i);
    return f32(h >> 8u) / 16777216.0 < p.keep;
}

// Used for both directions: forward maps x → y, backward maps dy → dx.
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.n) { return; }
    y[i] = select(0.0, x[i] / p.keep, kept(i));
}
