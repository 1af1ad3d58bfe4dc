// The default tile of `conv2d_ahead.wgsl`: 64 positions × 16 filters (or channels) of C.
const COLS: u32 = 16u; // columns of C per workgroup
