//! Softmax, cross-entropy loss and its gradient (`shaders/softmax_xent.wgsl`).

use crate::kernel::{groups_1d, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

/// Training: per-sample loss and correctness, and dL/dlogits = (softmax − onehot) / rows.
#[derive(Clone)]
pub struct SoftmaxXent {
    pub logits: BufId,
    pub labels: BufId,
    pub loss: BufId,
    pub correct: BufId,
    pub dlogits: BufId,
    pub rows: usize,
    pub classes: usize,
}

/// Inference: class probabilities.
#[derive(Clone)]
pub struct Softmax {
    pub logits: BufId,
    pub probs: BufId,
    pub rows: usize,
    pub classes: usize,
}

pub fn softmax_row(logits: &[f32], out: &mut [f32]) {
    let m = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let s: f32 = logits.iter().map(|x| (x - m).exp()).sum();
    for (o, x) in out.iter_mut().zip(logits) {
        *o = (x - m).exp() / s;
    }
}

/// The CPU twin of the training entry point.
pub fn softmax_xent_cpu(
    logits: &[f32],
    labels: &[u32],
    loss: &mut [f32],
    correct: &mut [f32],
    dlogits: &mut [f32],
    rows: usize,
    classes: usize,
) {
    for r in 0..rows {
        let row = &logits[r * classes..(r + 1) * classes];
        let y = labels[r] as usize;
        let m = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let s: f32 = row.iter().map(|x| (x - m).exp()).sum();
        let mut best = 0;
        for c in 0..classes {
            let p = (row[c] - m).exp() / s;
            let target = if c == y { 1.0 } else { 0.0 };
            dlogits[r * classes + c] = (p - target) / rows as f32;
            if row[c] > row[best] {
                best = c;
            }
        }
        loss[r] = s.ln() - (row[y] - m);
        correct[r] = (best == y) as u8 as f32;
    }
}

fn words(rows: usize, classes: usize) -> Words {
    Words::default()
        .u("rows", rows as u32)
        .u("classes", classes as u32)
}

impl Kernel for SoftmaxXent {
    fn bytes(&self) -> f64 {
        // Reads the logits and labels; writes the gradient, each row's loss and correct flag.
        4.0 * (2 * self.rows * self.classes + 3 * self.rows) as f64
    }
    fn shader(&self) -> Shader {
        wgsl!("softmax_xent.wgsl", "softmax_xent")
    }
    fn params(&self, _: &StepScalars) -> Words {
        words(self.rows, self.classes)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![
            (1, self.logits),
            (2, self.labels),
            (3, self.loss),
            (4, self.correct),
            (5, self.dlogits),
        ]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.rows, 64)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let (mut loss, mut correct, mut dl) = (
            bufs.take_f32(self.loss),
            bufs.take_f32(self.correct),
            bufs.take_f32(self.dlogits),
        );
        softmax_xent_cpu(
            bufs.f32(self.logits),
            bufs.u32(self.labels),
            &mut loss,
            &mut correct,
            &mut dl,
            self.rows,
            self.classes,
        );
        bufs.put_f32(self.loss, loss);
        bufs.put_f32(self.correct, correct);
        bufs.put_f32(self.dlogits, dl);
    }
}

impl Kernel for Softmax {
    fn bytes(&self) -> f64 {
        8.0 * (self.rows * self.classes) as f64
    }
    fn shader(&self) -> Shader {
        wgsl!("softmax_xent.wgsl", "softmax")
    }
    fn params(&self, _: &StepScalars) -> Words {
        words(self.rows, self.classes)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.logits), (6, self.probs)]
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.rows, 64)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let mut probs = bufs.take_f32(self.probs);
        let logits = bufs.f32(self.logits);
        let c = self.classes;
        for r in 0..self.rows {
            softmax_row(&logits[r * c..(r + 1) * c], &mut probs[r * c..(r + 1) * c]);
        }
        bufs.put_f32(self.probs, probs);
    }
}
