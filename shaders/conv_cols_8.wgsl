// The narrow tile of `conv2d_ahead.wgsl`, for GEMMs of at most 8 columns (W2's first convolution
// has 8 filters, its second 8 input channels): 128 positions × 8 filters (or channels) of C.
const COLS: u32 = 8u; // columns of C per workgroup
