// The large shape of `matmul_tile.wgsl`, for large products on a real GPU: 128×128 tiles of C per
// workgroup of 16×16 invocations (four times the invocations, to hide memory latency, and twice
// the reuse of each loaded value), 16 steps of k per copy, so the two tiles fill 16 KB.
const TILE: u32 = 128u; // rows and columns of C per workgroup
const DEPTH: u32 = 16u; // steps along k per copy into workgroup memory
const WG: u32 = 16u; // invocations per workgroup side
