//! Multi-head self-attention (`shaders/attention.wgsl`, docs/theory.md §12.1): the scores
//! S = QKᵀ/√d of each head, the causal mask, the softmax P, and PV, with the backward pass in two
//! kernels — one query row at a time (dS, dQ) and one key row at a time (dK, dV), so no two
//! invocations write one value. Naive on purpose: a row of scores per invocation, what the lab
//! shows; a sequence of a few dozen tokens keeps it cheap.

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

/// The shapes: `batch` sequences of `seq` tokens, `heads` heads of `head_dim` values each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttentionGeom {
    pub batch: usize,
    pub seq: usize,
    pub heads: usize,
    pub head_dim: usize,
    /// Each query attends to itself and the keys before it only.
    pub causal: bool,
}

impl AttentionGeom {
    /// A token's width, heads × head_dim.
    pub fn width(&self) -> usize {
        self.heads * self.head_dim
    }
    /// Rows of scores: one per sequence, head and query.
    pub fn rows(&self) -> usize {
        self.batch * self.heads * self.seq
    }
    /// Values of the probabilities (and of their gradient): [batch, heads, seq, seq].
    pub fn scores_len(&self) -> usize {
        self.rows() * self.seq
    }
    /// The scale of the scores, 1/√head_dim (Vaswani et al. 2017).
    pub fn scale(&self) -> f32 {
        1.0 / (self.head_dim as f32).sqrt()
    }
    /// Query-key pairs that take part: all, or the lower triangle of each head's square.
    pub fn pairs(&self) -> usize {
        let per_head = if self.causal {
            self.seq * (self.seq + 1) / 2
        } else {
            self.seq * self.seq
        };
        self.batch * self.heads * per_head
    }
    fn last_key(&self, i: usize) -> usize {
        if self.causal {
            i
        } else {
            self.seq - 1
        }
    }
    /// Where token t of sample b keeps element c of head h's query (key: + width, value: + 2 width).
    fn at(&self, b: usize, t: usize, h: usize, c: usize) -> usize {
        (b * self.seq + t) * 3 * self.width() + h * self.head_dim + c
    }
    fn row_at(&self, b: usize, t: usize, h: usize, c: usize) -> usize {
        (b * self.seq + t) * self.width() + h * self.head_dim + c
    }
    fn words(&self) -> Words {
        Words::default()
            .u("batch", self.batch as u32)
            .u("seq", self.seq as u32)
            .u("heads", self.heads as u32)
            .u("head_dim", self.head_dim as u32)
            .f("scale", self.scale())
            .u("causal", self.causal as u32)
    }
    /// (b, h, i) of a row of scores.
    fn split(&self, r: usize) -> (usize, usize, usize) {
        (
            r / (self.seq * self.heads),
            (r / self.seq) % self.heads,
            r % self.seq,
        )
    }
}

/// O = softmax(scale · QKᵀ, masked) V into `out` [batch · seq, width], P into `probs`.
pub fn attention_forward_cpu(g: &AttentionGeom, qkv: &[f32], out: &mut [f32], probs: &mut [f32]) {
    let w = g.width();
    for r in 0..g.rows() {
        let (b, h, i) = g.split(r);
        let last = g.last_key(i);
        let row = &mut probs[r * g.seq..(r + 1) * g.seq];
        let mut top = f32::MIN;
        for (j, s) in row.iter_mut().enumerate().take(last + 1) {
            let dot: f32 = (0..g.head_dim)
                .map(|c| qkv[g.at(b, i, h, c)] * qkv[g.at(b, j, h, c) + w])
                .sum();
            *s = dot * g.scale();
            top = top.max(*s);
        }
        let mut sum = 0.0;
        for s in row.iter_mut().take(last + 1) {
            *s = (*s - top).exp();
            sum += *s;
        }
        for (j, s) in row.iter_mut().enumerate() {
            *s = if j <= last { *s / sum } else { 0.0 };
        }
        for c in 0..g.head_dim {
            out[g.row_at(b, i, h, c)] = (0..=last).map(|j| row[j] * qkv[g.at(b, j, h, c) + 2 * w]).sum();
        }
    }
}

/// dS = scale · P ⊙ (dP − Σⱼ P dP) with dP = dO Vᵀ into `d_scores`; dQ = dS K into `d_qkv`.
pub fn attention_backward_query_cpu(
    g: &AttentionGeom,
    (qkv, probs, d_out): (&[f32], &[f32], &[f32]),
    d_scores: &mut [f32],
    d_qkv: &mut [f32],
) {
    let w = g.width();
    for r in 0..g.rows() {
        let (b, h, i) = g.split(r);
        let last = g.last_key(i);
        let p = &probs[r * g.seq..(r + 1) * g.seq];
        let ds = &mut d_scores[r * g.seq..(r + 1) * g.seq];
        let mut dot = 0.0;
        for j in 0..=last {
            ds[j] = (0..g.head_dim)
                .map(|c| d_out[g.row_at(b, i, h, c)] * qkv[g.at(b, j, h, c) + 2 * w])
                .sum();
            dot += p[j] * ds[j];
        }
        for j in 0..g.seq {
            ds[j] = if j <= last {
                g.scale() * p[j] * (ds[j] - dot)
            } else {
                0.0
            };
        }
        for c in 0..g.head_dim {
            d_qkv[g.at(b, i, h, c)] = (0..=last).map(|j| ds[j] * qkv[g.at(b, j, h, c) + w]).sum();
        }
    }
}

/// dK = dSᵀ Q and dV = Pᵀ dO into `d_qkv`.
pub fn attention_backward_key_cpu(
    g: &AttentionGeom,
    (qkv, probs, d_out, d_scores): (&[f32], &[f32], &[f32], &[f32]),
    d_qkv: &mut [f32],
) {
    let w = g.width();
    for r in 0..g.rows() {
        let (b, h, j) = g.split(r);
        let first = if g.causal { j } else { 0 };
        let block = (r - j) * g.seq;
        for c in 0..g.head_dim {
            let (mut dk, mut dv) = (0.0, 0.0);
            for i in first..g.seq {
                dk += d_scores[block + i * g.seq + j] * qkv[g.at(b, i, h, c)];
                dv += probs[block + i * g.seq + j] * d_out[g.row_at(b, i, h, c)];
            }
            d_qkv[g.at(b, j, h, c) + w] = dk;
            d_qkv[g.at(b, j, h, c) + 2 * w] = dv;
        }
    }
}

#[derive(Clone)]
pub struct AttentionForward {
    pub g: AttentionGeom,
    pub qkv: BufId,
    pub out: BufId,
    pub probs: BufId,
}

/// Which rows a backward kernel takes: the queries' (`d_scores` and dQ, first) or the keys'
/// (dK and dV, from `d_scores`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackwardRows {
    Queries,
    Keys,
}

/// One of the backward pass's two kernels (`AttentionBackward::pair` makes both, in order).
#[derive(Clone)]
pub struct AttentionBackward {
    pub rows: BackwardRows,
    pub g: AttentionGeom,
    pub qkv: BufId,
    pub probs: BufId,
    pub d_out: BufId,
    pub d_scores: BufId,
    pub d_qkv: BufId,
}

impl AttentionBackward {
    /// The backward pass: the queries' kernel, then the keys'.
    pub fn pair(
        g: AttentionGeom,
        (qkv, probs, d_out): (BufId, BufId, BufId),
        (d_scores, d_qkv): (BufId, BufId),
    ) -> Vec<Box<dyn Kernel>> {
        [BackwardRows::Queries, BackwardRows::Keys]
            .into_iter()
            .map(|rows| {
                Box::new(AttentionBackward {
                    rows,
                    g,
                    qkv,
                    probs,
                    d_out,
                    d_scores,
                    d_qkv,
                }) as Box<dyn Kernel>
            })
            .collect()
    }
}

impl Kernel for AttentionForward {
    fn shader(&self) -> Shader {
        wgsl!("attention.wgsl", "forward")
    }
    fn params(&self, _: &StepScalars) -> Words {
        self.g.words()
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.qkv), (2, self.out), (3, self.probs)]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.g.rows(), 64)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let (mut out, mut probs) = (bufs.take_f32(self.out), bufs.take_f32(self.probs));
        attention_forward_cpu(&self.g, bufs.f32(self.qkv), &mut out, &mut probs);
        bufs.put_f32(self.out, out);
        bufs.put_f32(self.probs, probs);
    }
    fn flops(&self) -> f64 {
        // QKᵀ and PV: 2 · head_dim each per pair (the softmax's exponentials not counted).
        (4 * self.g.head_dim * self.g.pairs()) as f64
    }
    fn bytes(&self) -> f64 {
        let tokens = self.g.batch * self.g.seq;
        4.0 * (3 * tokens * self.g.width() + tokens * self.g.width() + self.g.scores_len()) as f64
    }
}

impl Kernel for AttentionBackward {
    fn shader(&self) -> Shader {
        match self.rows {
            BackwardRows::Queries => wgsl!("attention.wgsl", "backward_query"),
            BackwardRows::Keys => wgsl!("attention.wgsl", "backward_key"),
        }
    }
    fn params(&self, _: &StepScalars) -> Words {
        self.g.words()
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![
            (1, self.qkv),
            (3, self.probs),
            (4, self.d_out),
            (5, self.d_scores),
            (6, self.d_qkv),
        ]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.g.rows(), 64)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let mut dqkv = bufs.take_f32(self.d_qkv);
        match self.rows {
            BackwardRows::Queries => {
                let mut ds = bufs.take_f32(self.d_scores);
                let inputs = (bufs.f32(self.qkv), bufs.f32(self.probs), bufs.f32(self.d_out));
                attention_backward_query_cpu(&self.g, inputs, &mut ds, &mut dqkv);
                bufs.put_f32(self.d_scores, ds);
            }
            BackwardRows::Keys => {
                let inputs = (
                    bufs.f32(self.qkv),
                    bufs.f32(self.probs),
                    bufs.f32(self.d_out),
                    bufs.f32(self.d_scores),
                );
                attention_backward_key_cpu(&self.g, inputs, &mut dqkv);
            }
        }
        bufs.put_f32(self.d_qkv, dqkv);
    }
    fn flops(&self) -> f64 {
        // Queries: dP = dO Vᵀ and dQ = dS K; keys: dK = dSᵀ Q and dV = Pᵀ dO.
        (4 * self.g.head_dim * self.g.pairs()) as f64
    }
}
