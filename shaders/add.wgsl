// The residual sum y = a + b, element-wise over the live copies' values (docs/theory.md §1.5).
// A `b` shared by every copy (the data itself, as the skip of a block that starts at the input)
// is read at i mod per_copy.

struct Params { per_copy: u32, live: u32, b_shared: u32, _pad0: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.per_copy * p.live) { return; }
    let j = select(i, i % p.per_copy, p.b_shared == 1u);
    y[i] = a[i] + b[j];
}
