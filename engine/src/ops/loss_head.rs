//! The loss with its batch mean in one dispatch (`softmax_xent_mean` in
//! `shaders/softmax_xent.wgsl`), the fused step's loss (`plan::fuse`). Its CPU twin is the
//! teaching kernels it replaces, run in turn, as the fused products' are (`ops::fused`).

use crate::kernel::{wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

/// Softmax cross-entropy, its gradient and the batch's mean loss and accuracy in one workgroup:
/// `SoftmaxXent` then `BatchMean`, with the labels read through the batch's indices when the
/// gather kernel is gone.
pub struct LossHead {
    pub logits: BufId,
    /// The batch's labels, or the data set's when `indices` is given.
    pub labels: BufId,
    pub indices: Option<BufId>,
    pub unused_u32: BufId,
    pub loss: BufId,
    pub correct: BufId,
    pub dlogits: BufId,
    pub log_loss: BufId,
    pub log_accuracy: BufId,
    pub rows: usize,
    pub classes: usize,
    pub replaces: Vec<Box<dyn Kernel>>,
}

impl Clone for LossHead {
    fn clone(&self) -> Self {
        LossHead {
            replaces: self.replaces.iter().map(|k| k.boxed_copy()).collect(),
            ..*self
        }
    }
}

impl Kernel for LossHead {
    fn parts(&self) -> &[Box<dyn Kernel>] {
        &self.replaces
    }
    fn bytes(&self) -> f64 {
        // Reads the logits and labels; writes their gradient, the losses' mean and accuracy.
        4.0 * (2 * self.rows * self.classes + self.rows + 2) as f64
    }
    fn shader(&self) -> Shader {
        wgsl!("softmax_xent.wgsl", "softmax_xent_mean")
    }
    fn params(&self, step: &StepScalars) -> Words {
        Words::default()
            .u("rows", self.rows as u32)
            .u("classes", self.classes as u32)
            .u("slot", step.slot)
            .u("gathered", self.indices.is_some() as u32)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![
            (1, self.logits),
            (2, self.labels),
            (3, self.loss),
            (4, self.correct),
            (5, self.dlogits),
            (7, self.log_loss),
            (8, self.log_accuracy),
            (9, self.indices.unwrap_or(self.unused_u32)),
        ]
    }
    fn workgroups(&self) -> [u32; 3] {
        [1, 1, 1]
    }
    fn per_step(&self) -> bool {
        true
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, step: &StepScalars) {
        for k in &self.replaces {
            k.run_cpu(bufs, step);
        }
    }
    fn name(&self) -> String {
        "fused:softmax_xent+batch_mean".into()
    }
}
