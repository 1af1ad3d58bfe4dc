//! Mean loss and accuracy of a batch into a metrics log slot (`shaders/batch_mean.wgsl`).

use crate::kernel::{wgsl, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

pub struct BatchMean {
    pub loss: BufId,
    pub correct: BufId,
    pub log_loss: BufId,
    pub log_accuracy: BufId,
    pub rows: usize,
}

pub fn mean_cpu(values: &[f32]) -> f32 {
    values.iter().sum::<f32>() / values.len() as f32
}

impl Kernel for BatchMean {
    fn shader(&self) -> Shader {
        wgsl!("batch_mean.wgsl", "main")
    }
    fn params(&self, step: &StepScalars) -> Words {
        Words::default().u(self.rows as u32).u(step.slot)
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
        [1, 1, 1]
    }
    fn per_step(&self) -> bool {
        true
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, step: &StepScalars) {
        let slot = step.slot as usize;
        let l = mean_cpu(&bufs.f32(self.loss)[..self.rows]);
        let a = mean_cpu(&bufs.f32(self.correct)[..self.rows]);
        let mut log = bufs.take_f32(self.log_loss);
        log[slot] = l;
        bufs.put_f32(self.log_loss, log);
        let mut log = bufs.take_f32(self.log_accuracy);
        log[slot] = a;
        bufs.put_f32(self.log_accuracy, log);
    }
}
