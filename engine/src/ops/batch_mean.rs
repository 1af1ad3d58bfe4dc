//! Mean loss and accuracy of a batch into a metrics log slot (`shaders/batch_mean.wgsl`); of
//! several batches side by side (the landscape's points) into consecutive slots.

use crate::kernel::{live_points, wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

#[derive(Clone)]
pub struct BatchMean {
    pub loss: BufId,
    pub correct: BufId,
    pub log_loss: BufId,
    pub log_accuracy: BufId,
    pub rows: usize,
    /// Batches of `rows` values one after another (0 counts as 1), into slots from the step's.
    pub batches: usize,
}

pub fn mean_cpu(values: &[f32]) -> f32 {
    values.iter().sum::<f32>() / values.len() as f32
}

impl Kernel for BatchMean {
    fn bytes(&self) -> f64 {
        // Reads each batch's losses and correct flags; writes two values per batch.
        let batches = self.batches.max(1);
        4.0 * (2 * self.rows * batches + 2 * batches) as f64
    }
    fn shader(&self) -> Shader {
        wgsl!("batch_mean.wgsl", "main")
    }
    fn params(&self, step: &StepScalars) -> Words {
        Words::default()
            .u("rows", self.rows as u32)
            .u("slot", step.slot)
            .u("live", live_points(self.batches, step) as u32)
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![
            (1, self.loss),
            (2, self.correct),
            (3, self.log_loss),
            (4, self.log_accuracy),
        ]
    }
    fn workgroups(&self) -> [u32; 3] {
        [self.batches.max(1) as u32, 1, 1]
    }
    fn per_step(&self) -> bool {
        true
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, step: &StepScalars) {
        let (mut log_loss, mut log_accuracy) =
            (bufs.take_f32(self.log_loss), bufs.take_f32(self.log_accuracy));
        for q in 0..live_points(self.batches, step) {
            let (slot, rows) = (step.slot as usize + q, q * self.rows..(q + 1) * self.rows);
            log_loss[slot] = mean_cpu(&bufs.f32(self.loss)[rows.clone()]);
            log_accuracy[slot] = mean_cpu(&bufs.f32(self.correct)[rows]);
        }
        bufs.put_f32(self.log_loss, log_loss);
        bufs.put_f32(self.log_accuracy, log_accuracy);
    }
}
