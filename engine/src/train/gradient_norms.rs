//! Each layer's gradient size at the current weights: how the backward signal grows or fades with
//! depth (vanishing and exploding gradients), measured on a fixed batch so that the training's
//! own batches are not touched.

use super::Trainer;
use crate::error::Error;
use crate::model::Compiled;

impl Trainer {
    /// The L2 norm of each weighted layer's weight gradient (biases left out), input layer first,
    /// on the first `config.batch` training rows at the current weights.
    pub async fn weight_gradient_norms(&mut self) -> Result<Vec<f32>, Error> {
        let rows: Vec<u32> = (0..self.config.batch as u32).collect();
        let (_, grads) = self.loss_and_gradient(&rows).await?;
        Ok(weight_norms(&self.compiled, &grads))
    }
}

/// The L2 norm of each weighted layer's slice of `grads` (its W, not its bias), in layer order.
pub fn weight_norms(compiled: &Compiled, grads: &[f32]) -> Vec<f32> {
    compiled
        .layers
        .iter()
        .filter(|c| c.w_len > 0)
        .map(|c| {
            let w = &grads[c.w_off..c.w_off + c.w_len];
            w.iter().map(|g| g * g).sum::<f32>().sqrt()
        })
        .collect()
}
