//! Layer and batch normalization (`shaders/norm.wgsl`, docs/theory.md §1.4): the forward pass with
//! the group's own statistics (or, for batch norm when predicting, the running ones), the input
//! gradient, γ's and β's gradients, and batch norm's running statistics.

use serde::{Deserialize, Serialize};

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Points, Shader, StepScalars, Words};

mod cpu;

pub use cpu::{
    norm_backward_input_cpu, norm_backward_params_cpu, norm_forward_cpu, norm_forward_running_cpu,
    update_running_cpu,
};

/// The ε under the square root, as PyTorch's default.
pub const NORM_EPS: f32 = 1e-5;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NormKind {
    /// Each sample over all its values (per-channel γ and β: PyTorch's `LayerNorm` on dense
    /// inputs, `GroupNorm(1, C)` on images).
    Layer,
    /// Each channel over the batch (and the image's positions).
    Batch,
}

/// Where a normalization layer's values and parameters are.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NormGeom {
    pub kind: NormKind,
    pub rows: usize,
    pub channels: usize,
    /// Values per channel of a sample (H·W; 1 after a dense layer).
    pub spatial: usize,
    /// γ at `w_off`, β at `b_off` of the parameters (and of the gradients).
    pub w_off: usize,
    pub b_off: usize,
    /// Batch norm's running mean and variance at `run_off` of the running buffer, in pairs.
    pub run_off: usize,
}

impl NormGeom {
    pub fn groups(&self) -> usize {
        match self.kind {
            NormKind::Layer => self.rows,
            NormKind::Batch => self.channels,
        }
    }
    pub fn group_len(&self) -> usize {
        match self.kind {
            NormKind::Layer => self.channels * self.spatial,
            NormKind::Batch => self.rows * self.spatial,
        }
    }
    pub fn len(&self) -> usize {
        self.rows * self.channels * self.spatial
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The offset of value j of group g, and its channel.
    pub fn at(&self, g: usize, j: usize) -> (usize, usize) {
        let cs = self.channels * self.spatial;
        match self.kind {
            NormKind::Layer => (g * cs + j, j / self.spatial),
            NormKind::Batch => ((j / self.spatial) * cs + g * self.spatial + j % self.spatial, g),
        }
    }
    /// The contiguous runs of group g's values: (offset, channel) of each run of `spatial`
    /// values, one per sample of a batch-norm channel, one per channel of a layer-norm sample.
    pub fn spans(&self, g: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        let count = match self.kind {
            NormKind::Layer => self.channels,
            NormKind::Batch => self.rows,
        };
        (0..count).map(move |r| match self.kind {
            NormKind::Layer => ((g * self.channels + r) * self.spatial, r),
            NormKind::Batch => ((r * self.channels + g) * self.spatial, g),
        })
    }
    fn words(&self, points: Points, step: &StepScalars, momentum: f32) -> Words {
        Words::default()
            .u("kind", (self.kind == NormKind::Batch) as u32)
            .u("rows", self.rows as u32)
            .u("channels", self.channels as u32)
            .u("spatial", self.spatial as u32)
            .u("w_off", self.w_off as u32)
            .u("b_off", self.b_off as u32)
            .u("run_off", self.run_off as u32)
            .u("param_stride", points.param_stride as u32)
            .u("live", points.live(step) as u32)
            .f("eps", NORM_EPS)
            .f("momentum", momentum)
    }
}

/// Normalizes `input` into `output` with each group's own statistics, kept in `stats`; with
/// several points, each copy with its own parameters.
#[derive(Clone)]
pub struct NormForward {
    pub g: NormGeom,
    pub input: BufId,
    pub params: BufId,
    pub output: BufId,
    pub stats: BufId,
    pub points: Points,
}

/// Batch norm when predicting: the running statistics instead of the batch's.
#[derive(Clone)]
pub struct NormForwardRunning {
    pub g: NormGeom,
    pub input: BufId,
    pub params: BufId,
    pub running: BufId,
    pub output: BufId,
    pub points: Points,
}

#[derive(Clone)]
pub struct NormBackwardInput {
    pub g: NormGeom,
    pub input: BufId,
    pub params: BufId,
    pub stats: BufId,
    pub d_out: BufId,
    pub d_in: BufId,
}

#[derive(Clone)]
pub struct NormBackwardParams {
    pub g: NormGeom,
    pub input: BufId,
    pub stats: BufId,
    pub d_out: BufId,
    pub grads: BufId,
}

/// Batch norm's running statistics after a training step, PyTorch's convention: momentum 0.1
/// keeps 90 % of the old value.
#[derive(Clone)]
pub struct UpdateRunning {
    pub g: NormGeom,
    pub stats: BufId,
    pub running: BufId,
    pub momentum: f32,
}

impl Kernel for NormForward {
    fn shader(&self) -> Shader {
        wgsl!("norm.wgsl", "forward")
    }
    fn params(&self, step: &StepScalars) -> Words {
        self.g.words(self.points, step, 0.0)
    }
    fn per_step(&self) -> bool {
        self.points.n() > 1
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![
            (1, self.input),
            (2, self.params),
            (3, self.output),
            (4, self.stats),
        ]
    }
    fn workgroups(&self) -> [u32; 3] {
        [self.g.groups() as u32, self.points.n() as u32, 1]
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, step: &StepScalars) {
        let (mut y, mut stats) = (bufs.take_f32(self.output), bufs.take_f32(self.stats));
        let (n, s) = (self.g.len(), 2 * self.g.groups());
        for q in 0..self.points.live(step) {
            let params = &bufs.f32(self.params)[q * self.points.param_stride..];
            let x = &bufs.f32(self.input)[q * n..(q + 1) * n];
            norm_forward_cpu(
                &self.g,
                x,
                params,
                &mut y[q * n..(q + 1) * n],
                &mut stats[q * s..(q + 1) * s],
            );
        }
        bufs.put_f32(self.output, y);
        bufs.put_f32(self.stats, stats);
    }
}

impl Kernel for NormForwardRunning {
    fn shader(&self) -> Shader {
        wgsl!("norm.wgsl", "forward_running")
    }
    fn params(&self, step: &StepScalars) -> Words {
        self.g.words(self.points, step, 0.0)
    }
    fn per_step(&self) -> bool {
        self.points.n() > 1
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![
            (1, self.input),
            (2, self.params),
            (3, self.output),
            (5, self.running),
        ]
    }
    fn workgroups(&self) -> [u32; 3] {
        let [x, _, _] = groups_1d(self.g.len(), 256);
        [x, self.points.n() as u32, 1]
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, step: &StepScalars) {
        let mut y = bufs.take_f32(self.output);
        let n = self.g.len();
        for q in 0..self.points.live(step) {
            let params = &bufs.f32(self.params)[q * self.points.param_stride..];
            let x = &bufs.f32(self.input)[q * n..(q + 1) * n];
            norm_forward_running_cpu(
                &self.g,
                x,
                params,
                bufs.f32(self.running),
                &mut y[q * n..(q + 1) * n],
            );
        }
        bufs.put_f32(self.output, y);
    }
}

impl Kernel for NormBackwardInput {
    fn shader(&self) -> Shader {
        wgsl!("norm.wgsl", "backward_input")
    }
    fn params(&self, step: &StepScalars) -> Words {
        self.g.words(Points::default(), step, 0.0)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![
            (1, self.input),
            (2, self.params),
            (3, self.d_in),
            (6, self.d_out),
            (8, self.stats),
        ]
    }
    fn workgroups(&self) -> [u32; 3] {
        [self.g.groups() as u32, 1, 1]
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let mut dx = bufs.take_f32(self.d_in);
        norm_backward_input_cpu(
            &self.g,
            bufs.f32(self.input),
            bufs.f32(self.params),
            bufs.f32(self.stats),
            bufs.f32(self.d_out),
            &mut dx,
        );
        bufs.put_f32(self.d_in, dx);
    }
}

impl Kernel for NormBackwardParams {
    fn shader(&self) -> Shader {
        wgsl!("norm.wgsl", "backward_params")
    }
    fn params(&self, step: &StepScalars) -> Words {
        self.g.words(Points::default(), step, 0.0)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.input), (6, self.d_out), (7, self.grads), (8, self.stats)]
    }
    fn workgroups(&self) -> [u32; 3] {
        [self.g.channels as u32, 1, 1]
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let mut grads = bufs.take_f32(self.grads);
        norm_backward_params_cpu(
            &self.g,
            bufs.f32(self.input),
            bufs.f32(self.stats),
            bufs.f32(self.d_out),
            &mut grads,
        );
        bufs.put_f32(self.grads, grads);
    }
}

impl Kernel for UpdateRunning {
    fn shader(&self) -> Shader {
        wgsl!("norm.wgsl", "update_running")
    }
    fn params(&self, step: &StepScalars) -> Words {
        self.g.words(Points::default(), step, self.momentum)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(5, self.running), (8, self.stats)]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.g.channels, 256)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let mut running = bufs.take_f32(self.running);
        update_running_cpu(&self.g, bufs.f32(self.stats), &mut running, self.momentum);
        bufs.put_f32(self.running, running);
    }
}
