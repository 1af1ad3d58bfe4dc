//! 2-D convolution with stride and zero padding over NCHW tensors (`shaders/conv2d.wgsl`).

use crate::kernel::{
    groups_1d, wgsl_with, BufId, CpuBuffers, DeviceFit, Kernel, Points, Shader, StepScalars, Words,
};

mod build;
mod cpu;
mod geom;

pub use build::{backward_kernels, BackwardBuffers};
pub use geom::{ConvGeom, GRAD_CHUNK};

pub use cpu::{
    conv2d_backward_input_cpu, conv2d_backward_input_reference, conv2d_backward_params_cpu,
    conv2d_backward_params_reference, conv2d_forward_cpu, conv2d_forward_reference,
};

/// Workgroups along the rows of the forward and input-gradient GEMMs at most on a GPU emulated on
/// the processor, which runs one workgroup per core at a time: each takes every ROW_GROUPS-th tile
/// of 512 rows (see `shaders/conv2d.wgsl`). A real GPU gets one workgroup per tile of 64 rows
/// (`Kernel::fit_device`): capped, W2's convolutions kept 16 of an H100's 132 multiprocessors busy.
pub const ROW_GROUPS: u32 = 16;

/// Invocations per workgroup of `shaders/conv2d.wgsl`, and rows (and columns) of each one's block.
const GROUP: usize = 64;
const BLOCK: usize = 8;

/// The most workgroups a dispatch may have along y (WebGPU's default limit).
const MAX_GROUPS: u32 = 65_535;

/// The forward pass; with several `points`, point q convolves its own `g.batch` images (or the
/// shared ones when `input_shared`) with its own weights, into its own block of `output`.
#[derive(Clone)]
pub struct Conv2dForward {
    pub input: BufId,
    pub params: BufId,
    pub output: BufId,
    pub g: ConvGeom,
    pub points: Points,
    pub input_shared: bool,
    /// Workgroups along the rows at most (`ROW_GROUPS`, or `u32::MAX` on a real GPU).
    pub row_groups: u32,
    /// The real GPU's narrow tiles (see `narrow`): set by `fit_device`.
    pub narrow: bool,
}

impl Conv2dForward {
    fn input_stride(&self) -> usize {
        if self.input_shared {
            0
        } else {
            self.g.in_len()
        }
    }
}

/// Weight and bias gradients, chunk by chunk, into `partials` (chunks × partial_len).
#[derive(Clone)]
pub struct Conv2dBackwardWeight {
    pub input: BufId,
    pub d_out: BufId,
    pub partials: BufId,
    pub g: ConvGeom,
    /// Positions per chunk (`GRAD_CHUNK`, or `ConvGeom::grad_chunk` for the device).
    pub chunk: usize,
    /// The real GPU's loop (`shaders/conv2d_ahead.wgsl`, see `fetches_ahead`): set by `fit_device`.
    pub fetch_ahead: bool,
    /// As `Conv2dForward::narrow`.
    pub narrow: bool,
}

/// Sums the chunks of `partials` into the weight and bias gradients.
#[derive(Clone)]
pub struct Conv2dBackwardReduce {
    pub partials: BufId,
    pub grads: BufId,
    pub g: ConvGeom,
    /// As `Conv2dBackwardWeight::chunk`.
    pub chunk: usize,
}

#[derive(Clone)]
pub struct Conv2dBackwardInput {
    pub params: BufId,
    pub d_out: BufId,
    pub d_in: BufId,
    pub g: ConvGeom,
    /// As `Conv2dForward::row_groups`.
    pub row_groups: u32,
    /// As `Conv2dForward::narrow`.
    pub narrow: bool,
}

/// At most `cap` workgroups along the rows; they loop over the rest.
fn row_groups([x, y, z]: [u32; 3], cap: u32) -> [u32; 3] {
    [x, y.min(cap).min(MAX_GROUPS), z]
}

/// The row cap for a device: none on a real GPU.
fn row_cap(fit: DeviceFit) -> u32 {
    if fit.real_gpu() {
        u32::MAX
    } else {
        ROW_GROUPS
    }
}

/// Whether a GEMM with this row cap runs the real GPU's loop (`shaders/conv2d_ahead.wgsl`: 256
/// invocations a tile, fetching ahead): on a real GPU, where it runs one workgroup per tile
/// (SwiftShader's compiler is slow on such loops, and an emulated GPU's few long-lived
/// workgroups have no latency to hide). One loop there serves the three GEMMs, so each binds,
/// besides its own buffers, those the others read (a read-only buffer of its own in their place).
fn fetches_ahead(row_groups: u32) -> bool {
    row_groups == u32::MAX
}

/// Columns of a GEMM that the narrow tiles fit.
const NARROW_COLS: usize = 8;

/// Whether a GEMM of `cols` columns (filters, or input channels in the input gradient) runs the
/// narrow tiles on this device, 128 rows × 8 columns (`shaders/conv_cols_8.wgsl`) rather than
/// 64 × 16: on a real GPU whose plan says so (`TilePlan::conv_narrow`, timed per device), where
/// it has at most 8 columns. The wide tile would spend half its multiply-adds and copies on
/// columns past the GEMM's; the narrow one makes half the workgroups, which a GPU with more
/// cores than W2's tiles may not want.
fn narrow(fit: DeviceFit, cols: usize) -> bool {
    fit.real_gpu() && fit.tiles.conv_narrow && cols <= NARROW_COLS
}

/// The real GPU's loop (`shaders/conv2d_ahead.wgsl`) at `$entry` with the wide or the narrow
/// tiles (`narrow`), the narrow named apart ("conv2d_ahead_narrow") so it gets its own module.
macro_rules! ahead_shader {
    ($narrow:expr, $entry:literal) => {
        if $narrow {
            Shader {
                file: "conv2d_ahead_narrow.wgsl",
                ..wgsl_with!(
                    ["block_fns.wgsl", "conv2d.wgsl", "conv_cols_8.wgsl"],
                    "conv2d_ahead.wgsl",
                    $entry
                )
            }
        } else {
            wgsl_with!(
                ["block_fns.wgsl", "conv2d.wgsl", "conv_cols_16.wgsl"],
                "conv2d_ahead.wgsl",
                $entry
            )
        }
    };
}

/// Workgroups of 64 rows × 16 filters (or 128 × 8, `narrow`) on a real GPU
/// (`shaders/conv2d_ahead.wgsl`), else of 64 blocks of 8 rows × 8 filters (`shaders/conv2d.wgsl`).
fn tiles(filters: usize, rows: usize, chunks: usize, ahead: bool, narrow: bool) -> [u32; 3] {
    let (cols, rows_per_group) = match (ahead, narrow) {
        (true, false) => (16, 64),
        (true, true) => (NARROW_COLS, 128),
        (false, _) => (BLOCK, GROUP * BLOCK),
    };
    [
        filters.div_ceil(cols).max(1) as u32,
        rows.div_ceil(rows_per_group).max(1) as u32,
        chunks as u32,
    ]
}

impl Kernel for Conv2dForward {
    fn bytes(&self) -> f64 {
        // Reads each point's input (once when shared) and weights, writes its output.
        let g = &self.g;
        let inputs = if self.input_shared { 1 } else { self.points.n() };
        let weights = g.out_c * g.patch_len() + g.out_c;
        4.0 * (inputs * g.in_len() + self.points.n() * (weights + g.out_len())) as f64
    }
    fn flops(&self) -> f64 {
        self.points.n() as f64 * self.g.gemm_flops()
    }
    fn shader(&self) -> Shader {
        if fetches_ahead(self.row_groups) {
            ahead_shader!(self.narrow, "forward_ahead")
        } else {
            wgsl_with!(["block_fns.wgsl"], "conv2d.wgsl", "forward")
        }
    }
    fn params(&self, step: &StepScalars) -> Words {
        let live = self.points.live(step);
        let groups = self.workgroups()[1];
        self.g.words_for_points(
            self.input_stride(),
            self.points.param_stride,
            live,
            groups,
            GRAD_CHUNK,
        )
    }
    fn fit_device(&mut self, fit: DeviceFit) {
        self.row_groups = row_cap(fit);
        self.narrow = narrow(fit, self.g.out_c);
    }
    fn per_step(&self) -> bool {
        self.points.n() > 1
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        let mut b = vec![(1, self.input), (2, self.params), (3, self.output)];
        if fetches_ahead(self.row_groups) {
            // dOut, read only by the other GEMMs (see `fetches_ahead`).
            b.push((4, self.params));
        }
        b
    }
    fn workgroups(&self) -> [u32; 3] {
        let points = self.points.n();
        let ahead = fetches_ahead(self.row_groups);
        row_groups(
            tiles(self.g.out_c, self.g.positions(), points, ahead, self.narrow),
            self.row_groups,
        )
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, step: &StepScalars) {
        let mut out = bufs.take_f32(self.output);
        let (input, params) = (bufs.f32(self.input), bufs.f32(self.params));
        let blocks = out.chunks_mut(self.g.out_len()).take(self.points.live(step));
        for (q, block) in blocks.enumerate() {
            let input = &input[q * self.input_stride()..];
            let params = &params[q * self.points.param_stride..];
            conv2d_forward_cpu(&self.g, input, params, block);
        }
        bufs.put_f32(self.output, out);
    }
}

impl Kernel for Conv2dBackwardWeight {
    fn bytes(&self) -> f64 {
        // Reads the input and the output's gradient; writes a partial gradient per chunk.
        let g = &self.g;
        4.0 * (g.in_len() + g.out_len() + g.chunks(self.chunk) * g.partial_len()) as f64
    }
    fn flops(&self) -> f64 {
        self.g.gemm_flops()
    }
    fn shader(&self) -> Shader {
        if self.fetch_ahead {
            ahead_shader!(self.narrow, "backward_weight_ahead")
        } else {
            wgsl_with!(["block_fns.wgsl"], "conv2d.wgsl", "backward_weight")
        }
    }
    fn params(&self, _: &StepScalars) -> Words {
        self.g.words(ROW_GROUPS, self.chunk)
    }
    fn fit_device(&mut self, fit: DeviceFit) {
        self.chunk = self.g.grad_chunk(fit);
        self.fetch_ahead = fit.real_gpu();
        self.narrow = narrow(fit, self.g.out_c);
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        let mut b = vec![(1, self.input), (4, self.d_out), (7, self.partials)];
        if self.fetch_ahead {
            // The weights, read only by the other GEMMs (see `fetches_ahead`).
            b.push((2, self.input));
        }
        b
    }
    fn workgroups(&self) -> [u32; 3] {
        let chunks = self.g.chunks(self.chunk);
        if self.fetch_ahead {
            tiles(self.g.out_c, self.g.patch_len(), chunks, true, self.narrow)
        } else {
            // One invocation per chunk and block of 8 kernel elements × 8 filters.
            let blocks = self.g.patch_len().div_ceil(BLOCK) * self.g.out_c.div_ceil(BLOCK);
            groups_1d(chunks * blocks, GROUP as u32)
        }
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        // The twin sums every position at once: the whole gradient goes in chunk 0.
        let mut partials = bufs.take_f32(self.partials);
        partials.fill(0.0);
        let g = ConvGeom {
            w_off: 0,
            b_off: self.g.out_c * self.g.patch_len(),
            ..self.g
        };
        conv2d_backward_params_cpu(&g, bufs.f32(self.input), bufs.f32(self.d_out), &mut partials);
        bufs.put_f32(self.partials, partials);
    }
}

impl Kernel for Conv2dBackwardReduce {
    fn bytes(&self) -> f64 {
        4.0 * ((self.g.chunks(self.chunk) + 1) * self.g.partial_len()) as f64
    }
    fn shader(&self) -> Shader {
        wgsl_with!(["block_fns.wgsl"], "conv2d.wgsl", "backward_reduce")
    }
    fn params(&self, _: &StepScalars) -> Words {
        self.g.words(ROW_GROUPS, self.chunk)
    }
    fn fit_device(&mut self, fit: DeviceFit) {
        self.chunk = self.g.grad_chunk(fit);
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(7, self.partials), (6, self.grads)]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.g.partial_len(), 64)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let len = self.g.partial_len();
        let weights = self.g.out_c * self.g.patch_len();
        let mut grads = bufs.take_f32(self.grads);
        let partials = bufs.f32(self.partials);
        for i in 0..len {
            let sum = (0..self.g.chunks(self.chunk))
                .map(|c| partials[c * len + i])
                .sum();
            let at = if i < weights {
                self.g.w_off + i
            } else {
                self.g.b_off + i - weights
            };
            grads[at] = sum;
        }
        bufs.put_f32(self.grads, grads);
    }
}

impl Kernel for Conv2dBackwardInput {
    fn bytes(&self) -> f64 {
        4.0 * (self.g.out_len() + self.g.out_c * self.g.patch_len() + self.g.in_len()) as f64
    }
    fn flops(&self) -> f64 {
        self.g.gemm_flops()
    }
    fn shader(&self) -> Shader {
        if fetches_ahead(self.row_groups) {
            ahead_shader!(self.narrow, "backward_input_ahead")
        } else {
            wgsl_with!(["block_fns.wgsl"], "conv2d.wgsl", "backward_input")
        }
    }
    fn params(&self, _: &StepScalars) -> Words {
        self.g.words(self.workgroups()[1], GRAD_CHUNK)
    }
    fn fit_device(&mut self, fit: DeviceFit) {
        self.row_groups = row_cap(fit);
        self.narrow = narrow(fit, self.g.in_c);
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        let mut b = vec![(2, self.params), (4, self.d_out), (5, self.d_in)];
        if fetches_ahead(self.row_groups) {
            // The input, read only by the other GEMMs (see `fetches_ahead`).
            b.push((1, self.params));
        }
        b
    }
    fn workgroups(&self) -> [u32; 3] {
        let rows = self.g.batch * self.g.in_h * self.g.in_w;
        let ahead = fetches_ahead(self.row_groups);
        row_groups(tiles(self.g.in_c, rows, 1, ahead, self.narrow), self.row_groups)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let mut d_in = bufs.take_f32(self.d_in);
        conv2d_backward_input_cpu(&self.g, bufs.f32(self.params), bufs.f32(self.d_out), &mut d_in);
        bufs.put_f32(self.d_in, d_in);
    }
}

#[cfg(test)]
mod tests;
