//! 2-D convolution with stride and zero padding over NCHW tensors (`shaders/conv2d.wgsl`).

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

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

    fn words(&self) -> Words {
        Words::default()
            .u(self.batch as u32)
            .u(self.in_c as u32)
            .u(self.in_h as u32)
            .u(self.in_w as u32)
            .u(self.out_c as u32)
            .u(self.out_h() as u32)
            .u(self.out_w() as u32)
            .u(self.k_h as u32)
            .u(self.k_w as u32)
            .u(self.stride as u32)
            .u(self.pad as u32)
            .u(self.w_off as u32)
            .u(self.b_off as u32)
    }

    /// Index of the input a term [b, f, oy, ox, c, ky, kx] reads, None in the zero padding.
    fn input_index(&self, [b, _, oy, ox, c, ky, kx]: [usize; 7]) -> Option<usize> {
        let y = (oy * self.stride + ky) as isize - self.pad as isize;
        let x = (ox * self.stride + kx) as isize - self.pad as isize;
        if y < 0 || x < 0 || y >= self.in_h as isize || x >= self.in_w as isize {
            return None;
        }
        Some(((b * self.in_c + c) * self.in_h + y as usize) * self.in_w + x as usize)
    }

    fn input_at(&self, input: &[f32], term: [usize; 7]) -> f32 {
        self.input_index(term).map_or(0.0, |i| input[i])
    }

    fn w_index(&self, f: usize, c: usize, ky: usize, kx: usize) -> usize {
        self.w_off + ((f * self.in_c + c) * self.k_h + ky) * self.k_w + kx
    }

    fn out_index(&self, b: usize, f: usize, oy: usize, ox: usize) -> usize {
        ((b * self.out_c + f) * self.out_h() + oy) * self.out_w() + ox
    }

    /// Visits every (b, f, oy, ox, c, ky, kx) term of the convolution sum.
    fn for_each_term(&self, mut visit: impl FnMut([usize; 7])) {
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

/// CPU twin of `forward`.
pub fn conv2d_forward_cpu(g: &ConvGeom, input: &[f32], params: &[f32], out: &mut [f32]) {
    for b in 0..g.batch {
        for f in 0..g.out_c {
            for oy in 0..g.out_h() {
                for ox in 0..g.out_w() {
                    out[g.out_index(b, f, oy, ox)] = params[g.b_off + f];
                }
            }
        }
    }
    g.for_each_term(|t @ [b, f, oy, ox, c, ky, kx]| {
        out[g.out_index(b, f, oy, ox)] += params[g.w_index(f, c, ky, kx)] * g.input_at(input, t);
    });
}

/// CPU twin of `backward_weight` and `backward_bias`.
pub fn conv2d_backward_params_cpu(g: &ConvGeom, input: &[f32], d_out: &[f32], grads: &mut [f32]) {
    grads[g.w_off..g.w_off + g.out_c * g.patch_len()].fill(0.0);
    grads[g.b_off..g.b_off + g.out_c].fill(0.0);
    g.for_each_term(|t @ [b, f, oy, ox, c, ky, kx]| {
        grads[g.w_index(f, c, ky, kx)] += d_out[g.out_index(b, f, oy, ox)] * g.input_at(input, t);
    });
    for b in 0..g.batch {
        for f in 0..g.out_c {
            for oy in 0..g.out_h() {
                for ox in 0..g.out_w() {
                    grads[g.b_off + f] += d_out[g.out_index(b, f, oy, ox)];
                }
            }
        }
    }
}

/// CPU twin of `backward_input`: each term's gradient flows back to the input it read.
pub fn conv2d_backward_input_cpu(g: &ConvGeom, params: &[f32], d_out: &[f32], d_in: &mut [f32]) {
    d_in[..g.in_len()].fill(0.0);
    g.for_each_term(|t @ [b, f, oy, ox, c, ky, kx]| {
        if let Some(i) = g.input_index(t) {
            d_in[i] += d_out[g.out_index(b, f, oy, ox)] * params[g.w_index(f, c, ky, kx)];
        }
    });
}

pub struct Conv2dForward {
    pub input: BufId,
    pub params: BufId,
    pub output: BufId,
    pub g: ConvGeom,
}

pub struct Conv2dBackwardWeight {
    pub input: BufId,
    pub d_out: BufId,
    pub grads: BufId,
    pub g: ConvGeom,
}

pub struct Conv2dBackwardBias {
    pub d_out: BufId,
    pub grads: BufId,
    pub g: ConvGeom,
}

pub struct Conv2dBackwardInput {
    pub params: BufId,
    pub d_out: BufId,
    pub d_in: BufId,
    pub g: ConvGeom,
}

fn tiles(cols: usize, rows: usize) -> [u32; 3] {
    [
        (cols as u32).div_ceil(16).max(1),
        (rows as u32).div_ceil(16).max(1),
        1,
    ]
}

impl Kernel for Conv2dForward {
    fn shader(&self) -> Shader {
        wgsl!("conv2d.wgsl", "forward")
    }
    fn params(&self, _: &StepScalars) -> Words {
        self.g.words()
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.input), (2, self.params), (3, self.output)]
    }
    fn workgroups(&self) -> [u32; 3] {
        tiles(self.g.out_c, self.g.batch * self.g.out_h() * self.g.out_w())
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let mut out = bufs.take_f32(self.output);
        conv2d_forward_cpu(&self.g, bufs.f32(self.input), bufs.f32(self.params), &mut out);
        bufs.put_f32(self.output, out);
    }
}

impl Kernel for Conv2dBackwardWeight {
    fn shader(&self) -> Shader {
        wgsl!("conv2d.wgsl", "backward_weight")
    }
    fn params(&self, _: &StepScalars) -> Words {
        self.g.words()
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.input), (4, self.d_out), (6, self.grads)]
    }
    fn workgroups(&self) -> [u32; 3] {
        tiles(self.g.patch_len(), self.g.out_c)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        // The twin computes weight and bias gradients together (see Conv2dBackwardBias).
        let mut grads = bufs.take_f32(self.grads);
        conv2d_backward_params_cpu(&self.g, bufs.f32(self.input), bufs.f32(self.d_out), &mut grads);
        bufs.put_f32(self.grads, grads);
    }
}

impl Kernel for Conv2dBackwardBias {
    fn shader(&self) -> Shader {
        wgsl!("conv2d.wgsl", "backward_bias")
    }
    fn params(&self, _: &StepScalars) -> Words {
        self.g.words()
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(4, self.d_out), (6, self.grads)]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.g.out_c, 64)
    }
    fn run_cpu(&self, _: &mut CpuBuffers, _: &StepScalars) {
        // Done by Conv2dBackwardWeight's twin, which always runs with it.
    }
}

impl Kernel for Conv2dBackwardInput {
    fn shader(&self) -> Shader {
        wgsl!("conv2d.wgsl", "backward_input")
    }
    fn params(&self, _: &StepScalars) -> Words {
        self.g.words()
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(2, self.params), (4, self.d_out), (5, self.d_in)]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.g.in_len(), 256)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let mut d_in = bufs.take_f32(self.d_in);
        conv2d_backward_input_cpu(&self.g, bufs.f32(self.params), bufs.f32(self.d_out), &mut d_in);
        bufs.put_f32(self.d_in, d_in);
    }
}
