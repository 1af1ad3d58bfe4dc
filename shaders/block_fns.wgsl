// What the kernels that sum 8 × 8 blocks straight from storage buffers share (the convolutions'
// `conv2d.wgsl` and the fused products' `matmul_fused_block.wgsl`, on a GPU emulated on the
// processor): the block's multiply-add and its clamped indices. The engine puts this file first.

const LANES: vec4<u32> = vec4<u32>(0u, 1u, 2u, 3u);

// acc += a ⊗ b for one step of k: a the block's 8 rows (lo: rows 0..3, hi: 4..7), b its 8
// columns; acc[2i] holds row i's columns 0..3 and acc[2i + 1] its columns 4..7. Constant indices
// only: an array indexed by a variable is read and written lane by lane.
fn outer_add(acc: ptr<function, array<vec4<f32>, 16>>, a_lo: vec4<f32>, a_hi: vec4<f32>,
             b_lo: vec4<f32>, b_hi: vec4<f32>) {
    (*acc)[0] += a_lo.x * b_lo;
    (*acc)[1] += a_lo.x * b_hi;
    (*acc)[2] += a_lo.y * b_lo;
    (*acc)[3] += a_lo.y * b_hi;
    (*acc)[4] += a_lo.z * b_lo;
    (*acc)[5] += a_lo.z * b_hi;
    (*acc)[6] += a_lo.w * b_lo;
    (*acc)[7] += a_lo.w * b_hi;
    (*acc)[8] += a_hi.x * b_lo;
    (*acc)[9] += a_hi.x * b_hi;
    (*acc)[10] += a_hi.y * b_lo;
    (*acc)[11] += a_hi.y * b_hi;
    (*acc)[12] += a_hi.z * b_lo;
    (*acc)[13] += a_hi.z * b_hi;
    (*acc)[14] += a_hi.w * b_lo;
    (*acc)[15] += a_hi.w * b_hi;
}

// Four consecutive indices from `first`, none past `last`: a block's rows or columns past the
// matrix read its last one, and their sums are not stored.
fn four_from(first: u32, last: u32) -> vec4<u32> { return min(vec4<u32>(first) + LANES, vec4<u32>(last)); }

