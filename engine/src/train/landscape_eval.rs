//! The landscape evaluation: the loss at many points of a plane through weight space, several
//! side by side in one pass.

use crate::backend::Pass;
use crate::data::Dataset;
use crate::error::Error;
use crate::kernel::StepScalars;
use crate::plan::LOG_CAPACITY;

use super::Trainer;

impl Trainer {
    /// Samples in the landscape evaluation (0 when the trainer was built without one).
    pub fn eval_rows(&self) -> usize {
        self.backend.plan().eval_rows
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
        let inputs = self.config.inputs(&data.x[..rows * data.dim]);
        self.backend.write_f32(eval.x, &inputs);
        let labels: Vec<u32> = if data.is_regression() {
            data.targets[..rows].iter().map(|t| t.to_bits()).collect()
        } else {
            data.y[..rows].to_vec()
        };
        // Once per point of a pass: the loss kernel reads every point's rows.
        self.backend
            .write_u32(eval.y, &labels.repeat(eval.points_per_pass));
        self.eval_loaded = rows;
        Ok(())
    }

    /// Mean loss and accuracy on the evaluation samples at the weights center + α·d1 + β·d2 for
    /// each (α, β) in `points`. The points run on the device as the training forward pass, each
    /// on its own weights, `points_per_pass` of them side by side in every dispatch; a chunk of up
    /// to 256 points is queued back to back with one readback.
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
        if self.eval_loaded == 0 {
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
        for chunk in points.chunks(LOG_CAPACITY) {
            let flat: Vec<f32> = chunk.iter().flatten().copied().collect();
            self.backend.write_f32(eval.points, &flat);
            for slot in (0..chunk.len()).step_by(per_pass) {
                // A last pass with fewer points skips the rest's work.
                let scalars = StepScalars {
                    slot: slot as u32,
                    points: per_pass.min(chunk.len() - slot) as u32,
                    ..Default::default()
                };
                self.backend.run(Pass::Evaluate, &scalars);
            }
            let loss = self.backend.read_f32(eval.log_loss, chunk.len()).await?;
            let acc = self.backend.read_f32(eval.log_accuracy, chunk.len()).await?;
            out.extend(loss.into_iter().zip(acc));
        }
        Ok(out)
    }
}
