// The small shape, for `matmul_tile_small.wgsl`: 32×32 tiles of C per workgroup of 8×8
// invocations (each a 4×4 block), 32 steps of k per copy into workgroup memory.
const TILE: u32 = 32u; // rows and columns of C per workgroup
const DEPTH: u32 = 32u; // steps along k per copy into workgroup memory
const WG: u32 = 8u; // invocations per workgroup side
