//! The landscape evaluation: the loss at many points of a plane through weight space, several
//! side by side in one pass.

use crate::backend::Pass;
use crate::data::Dataset;
use crate::error::Error;
use crate::kernel::StepScalars;
use crate::plan::LOG_CAPACITY;

use super::Trainer;

impl Trainer {
    /// Samples in the landscape evaluation (0 when the trainer was built without one): whole
    /// chunks, so up to `eval_chunks() − 1` fewer than asked for (see `plan::eval_chunks`).
    pub fn eval_rows(&self) -> usize {
        self.backend.plan().eval_rows * self.eval_chunks
    }

    /// Chunks the evaluation samples go through the network in, one pass each: batch norm
    /// normalizes each chunk with its own statistics.
    pub fn eval_chunks(&self) -> usize {
        self.eval_chunks
    }

    /// Landscape points evaluated side by side in one pass on the device (1 without an
    /// evaluation; see `plan::eval_points`).
    pub fn eval_points_per_pass(&self) -> usize {
        self.backend.plan().eval.map_or(1, |e| e.points_per_pass)
    }

    /// Floating-point operations of one training step's forward and backward kernels (the
    /// optimizer's are memory-bound and count none), as the kernels themselves report them.
    pub fn train_pass_flops(&self) -> f64 {
        let plan = self.backend.plan();
        plan.train[..plan.optimizer_start].iter().map(|k| k.flops()).sum()
    }

    /// Floating-point operations of one evaluation pass (all its points).
    pub fn eval_pass_flops(&self) -> f64 {
        self.backend.plan().evaluate.iter().map(|k| k.flops()).sum()
    }

    /// Puts the first `eval_rows` samples of `data` on the device for [`Trainer::plane_losses`]
    /// (a set with fewer samples is refused).
    pub fn set_eval_data(&mut self, data: &Dataset) -> Result<(), Error> {
        let Some(eval) = self.backend.plan().eval else {
            return Err(Error::NoEvaluation);
        };
        let rows = self.eval_rows();
        if data.len() < rows {
            return Err(Error::Mismatch(format!(
                "the landscape is evaluated on {rows} samples, this set has {}",
                data.len()
            )));
        }
        let chunk = self.backend.plan().eval_rows;
        self.eval_samples = (0..self.eval_chunks)
            .map(|c| {
                let rows = c * chunk..(c + 1) * chunk;
                let inputs = self
                    .config
                    .inputs(&data.x[rows.start * data.dim..rows.end * data.dim]);
                let labels: Vec<u32> = if data.is_regression() {
                    data.targets[rows].iter().map(|t| t.to_bits()).collect()
                } else {
                    data.y[rows].to_vec()
                };
                // Once per point of a pass: the loss kernel reads every point's rows.
                (inputs, labels.repeat(eval.points_per_pass))
            })
            .collect();
        self.load_eval_chunk(0);
        Ok(())
    }

    fn load_eval_chunk(&mut self, c: usize) {
        let eval = self.backend.plan().eval.expect("an evaluation plan");
        let (inputs, labels) = &self.eval_samples[c];
        self.backend.write_f32(eval.x, inputs);
        self.backend.write_u32(eval.y, labels);
    }

    /// Mean loss and accuracy on the evaluation samples at the weights center + α·d1 + β·d2 for
    /// each (α, β) in `points`. The points run on the device as the training forward pass, each
    /// on its own weights, `points_per_pass` of them side by side in every dispatch; a list of up
    /// to 256 points is queued back to back with one readback per chunk of samples, and the
    /// chunks' means (equal chunks) averaged.
    pub async fn plane_losses(
        &mut self,
        center: &[f32],
        d1: &[f32],
        d2: &[f32],
        points: &[[f32; 2]],
    ) -> Result<Vec<(f32, f32)>, Error> {
        let Some(eval) = self.backend.plan().eval else {
            return Err(Error::NoEvaluation);
        };
        if self.eval_samples.is_empty() {
            return Err(Error::NoEvaluationData);
        }
        let n = self.compiled.n_params;
        if center.len() != n || d1.len() != n || d2.len() != n {
            return Err(Error::Mismatch(format!(
                "the plane's vectors need {n} values each"
            )));
        }
        self.backend.write_f32(eval.center, center);
        self.backend.write_f32(eval.d1, d1);
        self.backend.write_f32(eval.d2, d2);
        let mut out = Vec::with_capacity(points.len());
        let per_pass = eval.points_per_pass;
        let chunks = self.eval_chunks;
        for list in points.chunks(LOG_CAPACITY) {
            let flat: Vec<f32> = list.iter().flatten().copied().collect();
            self.backend.write_f32(eval.points, &flat);
            let mut sums = vec![(0.0f64, 0.0f64); list.len()];
            for c in 0..chunks {
                // One chunk stays on the device from `set_eval_data`; several take turns.
                if chunks > 1 {
                    self.load_eval_chunk(c);
                }
                for slot in (0..list.len()).step_by(per_pass) {
                    // A last pass with fewer points skips the rest's work.
                    let scalars = StepScalars {
                        slot: slot as u32,
                        points: per_pass.min(list.len() - slot) as u32,
                        ..Default::default()
                    };
                    self.backend.run(Pass::Evaluate, &scalars);
                }
                let loss = self.backend.read_f32(eval.log_loss, list.len()).await?;
                let acc = self.backend.read_f32(eval.log_accuracy, list.len()).await?;
                for ((s, l), a) in sums.iter_mut().zip(loss).zip(acc) {
                    s.0 += l as f64;
                    s.1 += a as f64;
                }
            }
            let n = chunks as f64;
            out.extend(sums.iter().map(|(l, a)| ((l / n) as f32, (a / n) as f32)));
        }
        Ok(out)
    }
}
