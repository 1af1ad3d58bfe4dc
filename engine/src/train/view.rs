//! What a trained model says: class probabilities for points, every layer's output, the whole
//! view of it (one readback), and its loss and accuracy on a data set.

use crate::backend::Pass;
use crate::data::Dataset;
use crate::error::Error;
use crate::kernel::StepScalars;
use crate::plan::Loss;

use super::Trainer;

impl Trainer {
    /// Class probabilities (rows × classes; raw outputs under MSE) for raw samples given row after
    /// row (for 2-D data: x, y interleaved; features are computed here), at most the
    /// `predict_rows` given at construction.
    pub async fn predict(&mut self, points: &[f32]) -> Result<Vec<f32>, Error> {
        let rows = self.load_points(points)?;
        let reads = [(self.host.probs, rows * self.compiled.classes())];
        let mut out = self
            .backend
            .run_and_read(Pass::Predict, &StepScalars::default(), &reads)
            .await?;
        Ok(out.swap_remove(0))
    }

    /// Puts raw samples (features computed here) where the prediction pass reads them; their
    /// rows, at most the `predict_rows` given at construction.
    fn load_points(&mut self, points: &[f32]) -> Result<usize, Error> {
        let inputs = self.config.inputs(points);
        let rows = inputs.len() / self.compiled.input_len();
        if rows > self.predict_rows {
            return Err(Error::TooManyPoints {
                rows,
                max: self.predict_rows,
            });
        }
        self.backend.write_f32(self.host.predict_x, &inputs);
        Ok(rows)
    }

    /// Like `predict`, and also every layer's output for those samples (layer i's, rows ×
    /// its output length): what each neuron computes, for drawing it.
    pub async fn predict_layers(&mut self, points: &[f32]) -> Result<(Vec<f32>, Vec<Vec<f32>>), Error> {
        let (probs, layers, _) = self.snapshot(points, false).await?;
        Ok((probs, layers))
    }

    /// `predict_layers`, with the weights too when `with_params`: everything a view of the
    /// model draws, computed and read back in one command buffer and one readback.
    pub async fn snapshot(
        &mut self,
        points: &[f32],
        with_params: bool,
    ) -> Result<(Vec<f32>, Vec<Vec<f32>>, Option<Vec<f32>>), Error> {
        let rows = self.load_points(points)?;
        let acts = self.backend.plan().predict_acts.clone();
        let mut reads = vec![(self.host.probs, rows * self.compiled.classes())];
        reads.extend(
            self.compiled
                .layers
                .iter()
                .zip(acts)
                .map(|(layer, id)| (id, rows * layer.out_len())),
        );
        if with_params {
            reads.push((self.host.params, self.compiled.n_params));
        }
        let mut out = self
            .backend
            .run_and_read(Pass::Predict, &StepScalars::default(), &reads)
            .await?;
        let params = with_params.then(|| out.pop().unwrap_or_default());
        let probs = out.remove(0);
        Ok((probs, out, params))
    }

    /// Mean loss (the training loss: cross-entropy, or MSE as in training) and accuracy (0 for
    /// regression) over a whole data set, predicted in chunks.
    pub async fn evaluate(&mut self, data: &Dataset) -> Result<(f32, f32), Error> {
        let probs = self.probabilities(data).await?;
        Ok(self.score(&probs, data))
    }

    /// Mean loss and accuracy of predictions already made (`probs`, one row per sample of
    /// `data`): `evaluate` without the prediction, for a view that predicted them with more.
    pub fn score(&self, probs: &[f32], data: &Dataset) -> (f32, f32) {
        let classes = self.compiled.classes();
        let (mut loss, mut correct) = (0.0f64, 0usize);
        for (row, o) in probs.chunks(classes).enumerate() {
            if data.is_regression() {
                loss += ((o[0] - data.targets[row]) as f64).powi(2);
                continue;
            }
            let y = data.y[row] as usize;
            loss += match self.config.loss {
                // −ln p as the training loss kernel has it (log-sum-exp of the logits) for every
                // probability a float holds; capped (at 87.3) only where the softmax underflowed.
                Loss::CrossEntropy => -(o[y].max(f32::MIN_POSITIVE) as f64).ln(),
                Loss::Mse => {
                    let sq = |c: usize| (o[c] as f64 - (c == y) as u8 as f64).powi(2);
                    (0..classes).map(sq).sum::<f64>() / classes as f64
                }
            };
            correct += (crate::inspect::argmax(o) == y) as usize;
        }
        let n = data.len().max(1) as f64;
        ((loss / n) as f32, (correct as f64 / n) as f32)
    }

    /// The predicted class probabilities (or regression outputs) of every sample of `data`, in
    /// chunks of the prediction pass.
    pub async fn probabilities(&mut self, data: &Dataset) -> Result<Vec<f32>, Error> {
        let mut out = Vec::with_capacity(data.len() * self.compiled.classes());
        for start in (0..data.len()).step_by(self.predict_rows.max(1)) {
            let end = (start + self.predict_rows).min(data.len());
            out.extend(self.predict(&data.x[start * data.dim..end * data.dim]).await?);
        }
        Ok(out)
    }
}
