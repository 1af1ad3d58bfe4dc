//! A convolution's shapes, its GEMMs' sizes, and how its weight gradient is chunked per device.

use crate::kernel::{DeviceFit, Words};
use crate::tiles::CONV_CHUNK_CAPS;

/// Output positions per chunk of the weight gradient on a GPU emulated on the processor (and the
/// default), each chunk's blocks summed by invocations of their own (`shaders/conv2d.wgsl`):
/// enough chunks that W2's first convolution, 4 blocks a chunk, fills several workgroups of 64 to
/// share among the cores, few enough that the reduce adds up few partial sums.
pub const GRAD_CHUNK: usize = 512;
/// On a real GPU, chunks of at least this many positions, at most the device's cap of them
/// (`TilePlan::conv_chunks`, timed per device; at 2,048, W2's second convolution made 8).
const GPU_GRAD_CHUNK: usize = 128;

/// Shapes of one convolution; weights [out_c, in_c, k_h, k_w] at `w_off`, bias [out_c] at `b_off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ConvGeom {
    pub batch: usize,
    pub in_c: usize,
    pub in_h: usize,
    pub in_w: usize,
    pub out_c: usize,
    pub k_h: usize,
    pub k_w: usize,
    pub stride: usize,
    pub pad: usize,
    pub w_off: usize,
    pub b_off: usize,
}

impl ConvGeom {
    pub fn out_h(&self) -> usize {
        (self.in_h + 2 * self.pad - self.k_h) / self.stride + 1
    }
    pub fn out_w(&self) -> usize {
        (self.in_w + 2 * self.pad - self.k_w) / self.stride + 1
    }
    pub fn in_len(&self) -> usize {
        self.batch * self.in_c * self.in_h * self.in_w
    }
    pub fn out_len(&self) -> usize {
        self.batch * self.out_c * self.out_h() * self.out_w()
    }
    pub fn patch_len(&self) -> usize {
        self.in_c * self.k_h * self.k_w
    }
    /// Output positions (b, oy, ox) of the batch: the rows of the implicit GEMM.
    pub fn positions(&self) -> usize {
        self.batch * self.out_h() * self.out_w()
    }
    /// Positions per chunk of the weight gradient on the device (see `shaders/conv2d.wgsl`).
    pub fn grad_chunk(&self, fit: DeviceFit) -> usize {
        if fit.real_gpu() {
            self.grad_chunk_capped(fit.tiles.conv_chunks)
        } else {
            GRAD_CHUNK
        }
    }
    /// Positions per chunk on a real GPU that splits the gradient into at most `cap` chunks.
    pub(super) fn grad_chunk_capped(&self, cap: u32) -> usize {
        GPU_GRAD_CHUNK.max(self.positions().div_ceil(cap.max(1) as usize))
    }
    /// Chunks of `chunk` positions the weight gradient is split into on the GPU.
    pub fn chunks(&self, chunk: usize) -> usize {
        self.positions().div_ceil(chunk).max(1)
    }
    /// Chunks the partial gradients' buffer has room for: as many as any device makes, under
    /// any of the caps the autotune may choose.
    pub fn chunk_slots(&self) -> usize {
        CONV_CHUNK_CAPS
            .into_iter()
            .map(|cap| self.chunks(self.grad_chunk_capped(cap)))
            .fold(self.chunks(GRAD_CHUNK), usize::max)
    }
    /// One chunk's partial gradients: the weights, then the biases.
    pub fn partial_len(&self) -> usize {
        self.out_c * self.patch_len() + self.out_c
    }
    /// FLOPs of the forward pass, which each of the two backward GEMMs repeats.
    pub fn gemm_flops(&self) -> f64 {
        2.0 * (self.out_len() * self.patch_len()) as f64
    }

    pub(super) fn words(&self, row_groups: u32, chunk: usize) -> Words {
        self.words_for_points(0, 0, 1, row_groups, chunk)
    }

    /// The uniform, with the forward pass's per-point input and weight strides and its count, the
    /// workgroups dispatched along the rows and the weight gradient's chunk.
    pub(super) fn words_for_points(
        &self,
        in_stride: usize,
        w_stride: usize,
        live: usize,
        row_groups: u32,
        chunk: usize,
    ) -> Words {
        Words::default()
            .u("batch", self.batch as u32)
            .u("in_c", self.in_c as u32)
            .u("in_h", self.in_h as u32)
            .u("in_w", self.in_w as u32)
            .u("out_c", self.out_c as u32)
            .u("out_h", self.out_h() as u32)
            .u("out_w", self.out_w() as u32)
            .u("k_h", self.k_h as u32)
            .u("k_w", self.k_w as u32)
            .u("stride", self.stride as u32)
            .u("pad", self.pad as u32)
            .u("w_off", self.w_off as u32)
            .u("b_off", self.b_off as u32)
            .u("chunk", chunk as u32)
            .u("row_groups", row_groups)
            .u("_pad2", 0)
            .u("in_stride", in_stride as u32)
            .u("w_stride", w_stride as u32)
            .u("live", live as u32)
    }

    /// Index of the input a term [b, f, oy, ox, c, ky, kx] reads, None in the zero padding.
    pub(super) fn input_index(&self, [b, _, oy, ox, c, ky, kx]: [usize; 7]) -> Option<usize> {
        let y = (oy * self.stride + ky) as isize - self.pad as isize;
        let x = (ox * self.stride + kx) as isize - self.pad as isize;
        if y < 0 || x < 0 || y >= self.in_h as isize || x >= self.in_w as isize {
            return None;
        }
        Some(((b * self.in_c + c) * self.in_h + y as usize) * self.in_w + x as usize)
    }

    pub(super) fn input_at(&self, input: &[f32], term: [usize; 7]) -> f32 {
        self.input_index(term).map_or(0.0, |i| input[i])
    }

    pub(super) fn w_index(&self, f: usize, c: usize, ky: usize, kx: usize) -> usize {
        self.w_off + ((f * self.in_c + c) * self.k_h + ky) * self.k_w + kx
    }

    pub(super) fn out_index(&self, b: usize, f: usize, oy: usize, ox: usize) -> usize {
        ((b * self.out_c + f) * self.out_h() + oy) * self.out_w() + ox
    }

    /// Visits every (b, f, oy, ox, c, ky, kx) term of the convolution sum.
    pub(super) fn for_each_term(&self, mut visit: impl FnMut([usize; 7])) {
        for b in 0..self.batch {
            for f in 0..self.out_c {
                for oy in 0..self.out_h() {
                    for ox in 0..self.out_w() {
                        for c in 0..self.in_c {
                            for ky in 0..self.k_h {
                                for kx in 0..self.k_w {
                                    visit([b, f, oy, ox, c, ky, kx]);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
