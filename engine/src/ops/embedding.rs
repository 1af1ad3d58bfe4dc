//! Token and position embeddings (`shaders/embedding.wgsl`, docs/theory.md §12.1): a token's
//! vector is its row of the table plus its position's row; the backward pass sums each token's
//! and each position's gradient rows. Positions are learned (a table of their own) or sinusoidal
//! (Vaswani et al. 2017, fixed: `sinusoidal`).

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

/// `tokens` ids (batch × seq, sequence by sequence), each embedded in `width` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmbedGeom {
    pub tokens: usize,
    pub seq: usize,
    pub width: usize,
    pub vocab: usize,
    /// Where the table and the positions (and their gradients) start in their buffers.
    pub table_off: usize,
    pub pos_off: usize,
}

impl EmbedGeom {
    fn words(&self, accumulate: bool) -> Words {
        Words::default()
            .u("tokens", self.tokens as u32)
            .u("seq", self.seq as u32)
            .u("width", self.width as u32)
            .u("vocab", self.vocab as u32)
            .u("accumulate", accumulate as u32)
            .u("table_off", self.table_off as u32)
            .u("pos_off", self.pos_off as u32)
    }
}

/// The fixed positions of Vaswani et al. 2017: PE[t, 2i] = sin(t / 10000^(2i/width)),
/// PE[t, 2i + 1] = cos of the same, [seq, width].
pub fn sinusoidal(seq: usize, width: usize) -> Vec<f32> {
    let mut pe = vec![0.0; seq * width];
    for t in 0..seq {
        for c in 0..width {
            let angle = t as f64 / 10_000f64.powf((c - c % 2) as f64 / width as f64);
            pe[t * width + c] = if c % 2 == 0 { angle.sin() } else { angle.cos() } as f32;
        }
    }
    pe
}

/// The twins take the table [vocab, width] and positions [seq, width] themselves (a kernel
/// applies the offsets).
pub fn embed_cpu(g: &EmbedGeom, ids: &[u32], table: &[f32], positions: &[f32], x: &mut [f32]) {
    let w = g.width;
    for n in 0..g.tokens {
        let (row, pos) = (ids[n] as usize * w, (n % g.seq) * w);
        for c in 0..w {
            x[n * w + c] = table[row + c] + positions[pos + c];
        }
    }
}

/// The table's gradient: each token's rows of `d_x` summed into its row (added to what
/// `d_table` holds when `accumulate`).
pub fn embed_table_grad_cpu(
    g: &EmbedGeom,
    (ids, d_x): (&[u32], &[f32]),
    accumulate: bool,
    d_table: &mut [f32],
) {
    let w = g.width;
    if !accumulate {
        d_table.iter_mut().for_each(|v| *v = 0.0);
    }
    for n in 0..g.tokens {
        let row = ids[n] as usize * w;
        for c in 0..w {
            d_table[row + c] += d_x[n * w + c];
        }
    }
}

/// The positions' gradient: each position's rows of `d_x` summed over the batch.
pub fn embed_positions_grad_cpu(g: &EmbedGeom, d_x: &[f32], d_positions: &mut [f32]) {
    let w = g.width;
    d_positions.iter_mut().for_each(|v| *v = 0.0);
    for n in 0..g.tokens {
        let pos = (n % g.seq) * w;
        for c in 0..w {
            d_positions[pos + c] += d_x[n * w + c];
        }
    }
}

#[derive(Clone)]
pub struct Embed {
    pub g: EmbedGeom,
    pub ids: BufId,
    pub table: BufId,
    pub positions: BufId,
    pub x: BufId,
}

/// The table's gradient; `accumulate`: add to what a tied output head wrote.
#[derive(Clone)]
pub struct EmbedTableGrad {
    pub g: EmbedGeom,
    pub ids: BufId,
    pub d_x: BufId,
    pub d_table: BufId,
    pub accumulate: bool,
}

#[derive(Clone)]
pub struct EmbedPositionsGrad {
    pub g: EmbedGeom,
    pub d_x: BufId,
    pub d_positions: BufId,
}

impl Kernel for Embed {
    fn shader(&self) -> Shader {
        wgsl!("embedding.wgsl", "forward")
    }
    fn params(&self, _: &StepScalars) -> Words {
        self.g.words(false)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.ids), (2, self.table), (3, self.positions), (4, self.x)]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.g.tokens * self.g.width, 256)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let mut x = bufs.take_f32(self.x);
        let g = &self.g;
        let table = &bufs.f32(self.table)[g.table_off..g.table_off + g.vocab * g.width];
        let positions = &bufs.f32(self.positions)[g.pos_off..g.pos_off + g.seq * g.width];
        embed_cpu(g, bufs.u32(self.ids), table, positions, &mut x);
        bufs.put_f32(self.x, x);
    }
    fn bytes(&self) -> f64 {
        // The ids, a table row and a position row read and a row written per token.
        4.0 * (self.g.tokens * (1 + 3 * self.g.width)) as f64
    }
}

impl Kernel for EmbedTableGrad {
    fn shader(&self) -> Shader {
        wgsl!("embedding.wgsl", "backward_table")
    }
    fn params(&self, _: &StepScalars) -> Words {
        self.g.words(self.accumulate)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.ids), (5, self.d_x), (6, self.d_table)]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.g.vocab * self.g.width, 256)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let mut d_table = bufs.take_f32(self.d_table);
        let rows = self.g.table_off..self.g.table_off + self.g.vocab * self.g.width;
        let inputs = (bufs.u32(self.ids), bufs.f32(self.d_x));
        embed_table_grad_cpu(&self.g, inputs, self.accumulate, &mut d_table[rows]);
        bufs.put_f32(self.d_table, d_table);
    }
}

impl Kernel for EmbedPositionsGrad {
    fn shader(&self) -> Shader {
        wgsl!("embedding.wgsl", "backward_positions")
    }
    fn params(&self, _: &StepScalars) -> Words {
        self.g.words(false)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(5, self.d_x), (7, self.d_positions)]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.g.seq * self.g.width, 256)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let mut d_positions = bufs.take_f32(self.d_positions);
        let rows = self.g.pos_off..self.g.pos_off + self.g.seq * self.g.width;
        embed_positions_grad_cpu(&self.g, bufs.f32(self.d_x), &mut d_positions[rows]);
        bufs.put_f32(self.d_positions, d_positions);
    }
}
