// The default shape of `matmul_tile.wgsl`: 64×64 tiles of C per workgroup of 8×8 invocations,
// 32 steps of k per copy into workgroup memory.
const TILE: u32 = 64u; // rows and columns of C per workgroup
const DEPTH: u32 = 32u; // steps along k per copy into workgroup memory
const WG: u32 = 8u; // invocations per workgroup side
