//! Max and average pooling over NCHW tensors (`shaders/pool.wgsl`).

use serde::{Deserialize, Serialize};

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PoolKind {
    Max,
    Avg,
}

/// `planes` = batch × channels; window `size`, step `stride`, no padding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolGeom {
    pub planes: usize,
    pub in_h: usize,
    pub in_w: usize,
    pub size: usize,
    pub stride: usize,
}

impl PoolGeom {
    pub fn out_h(&self) -> usize {
        (self.in_h - self.size) / self.stride + 1
    }
    pub fn out_w(&self) -> usize {
        (self.in_w - self.size) / self.stride + 1
    }
    pub fn in_len(&self) -> usize {
        self.planes * self.in_h * self.in_w
    }
    pub fn out_len(&self) -> usize {
        self.planes * self.out_h() * self.out_w()
    }
    fn words(&self) -> Words {
        Words::default()
            .u("planes", self.planes as u32)
            .u("in_h", self.in_h as u32)
            .u("in_w", self.in_w as u32)
            .u("out_h", self.out_h() as u32)
            .u("out_w", self.out_w() as u32)
            .u("size", self.size as u32)
            .u("stride", self.stride as u32)
    }
    /// The windows tile the input: each input lies in exactly one.
    pub fn tiles_input(&self) -> bool {
        self.stride == self.size && self.in_h.is_multiple_of(self.size) && self.in_w.is_multiple_of(self.size)
    }
    /// Input indices of output o's window, row by row.
    fn window(&self, o: usize) -> impl Iterator<Item = usize> + '_ {
        let plane = o / (self.out_h() * self.out_w());
        let (oy, ox) = ((o / self.out_w()) % self.out_h(), o % self.out_w());
        (0..self.size).flat_map(move |dy| {
            (0..self.size).map(move |dx| {
                plane * self.in_h * self.in_w + (oy * self.stride + dy) * self.in_w + ox * self.stride + dx
            })
        })
    }
}

/// CPU twin of the forward passes; `argmax` is written for max pooling.
pub fn pool_forward_cpu(kind: PoolKind, g: &PoolGeom, input: &[f32], out: &mut [f32], argmax: &mut [u32]) {
    for o in 0..g.out_len() {
        match kind {
            PoolKind::Max => {
                // First maximum wins, as in the shader.
                let best = g.window(o).fold(None, |best: Option<usize>, i| match best {
                    Some(b) if input[i] <= input[b] => Some(b),
                    _ => Some(i),
                });
                let best = best.expect("a window is never empty");
                out[o] = input[best];
                argmax[o] = best as u32;
            }
            PoolKind::Avg => {
                out[o] = g.window(o).map(|i| input[i]).sum::<f32>() / (g.size * g.size) as f32;
            }
        }
    }
}

/// CPU twin of the backward passes.
pub fn pool_backward_cpu(kind: PoolKind, g: &PoolGeom, d_out: &[f32], argmax: &[u32], d_in: &mut [f32]) {
    d_in[..g.in_len()].fill(0.0);
    for o in 0..g.out_len() {
        match kind {
            PoolKind::Max => d_in[argmax[o] as usize] += d_out[o],
            PoolKind::Avg => {
                for i in g.window(o).collect::<Vec<_>>() {
                    d_in[i] += d_out[o] / (g.size * g.size) as f32;
                }
            }
        }
    }
}

#[derive(Clone)]
pub struct PoolForward {
    pub kind: PoolKind,
    pub input: BufId,
    pub output: BufId,
    pub argmax: BufId,
    pub g: PoolGeom,
}

#[derive(Clone)]
pub struct PoolBackward {
    pub kind: PoolKind,
    pub d_out: BufId,
    pub argmax: BufId,
    pub d_in: BufId,
    pub g: PoolGeom,
}

impl Kernel for PoolForward {
    fn bytes(&self) -> f64 {
        // Reads the input; writes the output and each window's argmax.
        4.0 * (self.g.in_len() + 2 * self.g.out_len()) as f64
    }
    fn shader(&self) -> Shader {
        match self.kind {
            PoolKind::Max => wgsl!("pool.wgsl", "max_forward"),
            PoolKind::Avg => wgsl!("pool.wgsl", "avg_forward"),
        }
    }
    fn params(&self, _: &StepScalars) -> Words {
        self.g.words()
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        match self.kind {
            PoolKind::Max => vec![(1, self.input), (2, self.output), (3, self.argmax)],
            PoolKind::Avg => vec![(1, self.input), (2, self.output)],
        }
    }
    fn strided(&self) -> bool {
        true
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.g.out_len(), 256)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let (mut out, mut arg) = (bufs.take_f32(self.output), bufs.take_u32(self.argmax));
        pool_forward_cpu(self.kind, &self.g, bufs.f32(self.input), &mut out, &mut arg);
        bufs.put_f32(self.output, out);
        bufs.put_u32(self.argmax, arg);
    }
}

impl PoolBackward {
    /// Max pooling over windows that tile the input: one invocation per window
    /// (`max_backward_tiled`) rather than one per input.
    fn by_window(&self) -> bool {
        self.kind == PoolKind::Max && self.g.tiles_input()
    }
}

impl Kernel for PoolBackward {
    fn bytes(&self) -> f64 {
        4.0 * (2 * self.g.out_len() + self.g.in_len()) as f64
    }
    fn shader(&self) -> Shader {
        match self.kind {
            PoolKind::Max if self.by_window() => wgsl!("pool.wgsl", "max_backward_tiled"),
            PoolKind::Max => wgsl!("pool.wgsl", "max_backward"),
            PoolKind::Avg => wgsl!("pool.wgsl", "avg_backward"),
        }
    }
    fn params(&self, _: &StepScalars) -> Words {
        self.g.words()
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        match self.kind {
            PoolKind::Max => vec![(4, self.d_out), (5, self.d_in), (6, self.argmax)],
            PoolKind::Avg => vec![(4, self.d_out), (5, self.d_in)],
        }
    }
    fn strided(&self) -> bool {
        true
    }
    fn workgroups(&self) -> [u32; 3] {
        if self.by_window() {
            groups_1d(self.g.out_len(), 256)
        } else {
            groups_1d(self.g.in_len(), 256)
        }
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let mut d_in = bufs.take_f32(self.d_in);
        pool_backward_cpu(
            self.kind,
            &self.g,
            bufs.f32(self.d_out),
            bufs.u32(self.argmax),
            &mut d_in,
        );
        bufs.put_f32(self.d_in, d_in);
    }
}
