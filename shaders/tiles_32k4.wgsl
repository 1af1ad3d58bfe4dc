// The split shape, for `matmul_tile_split.wgsl`: 32×32 tiles of C per workgroup of 16×16
// invocations, in four groups of 64 that each take a quarter of every copy's 64 steps of k (the
// two tiles fill 16 KB).
const TILE: u32 = 32u; // rows and columns of C per workgroup
const DEPTH: u32 = 64u; // steps along k per copy into workgroup memory
const WG: u32 = 16u; // invocations per workgroup side (for the copy: four groups of 8×8)
