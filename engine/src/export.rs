//! One training step written out in full, so that anyone can re-check the math outside the lab
//! (NumPy, PyTorch): the model, every parameter tensor, the first batch, its loss and every gradient.
//! The format is documented in the README ("Step export").

use crate::error::Error;
use serde::{Deserialize, Serialize};

use crate::model::{Compiled, ModelSpec};
use crate::plan::Loss;
use crate::train::{OptimizerState, TrainConfig, Trainer};

pub const FORMAT: &str = "training-lab step export v1";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tensor {
    /// "layer{i}.weight" (dense: [units, inputs], one row per output neuron; conv:
    /// [filters, channels, kernel, kernel]) or "layer{i}.bias", row-major; i counts the model's
    /// layers from 0, including those without parameters.
    pub name: String,
    pub shape: Vec<usize>,
    /// Where the tensor starts in the flat parameter (and gradient) vector.
    pub offset: usize,
    pub values: Vec<f32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Batch {
    /// One row of input features per sample.
    pub inputs: Vec<Vec<f32>>,
    /// Class indices (all 0 for regression).
    pub labels: Vec<u32>,
    /// Regression targets, one per sample (absent for classification).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<f32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepExport {
    pub format: String,
    pub config: TrainConfig,
    pub model: ModelSpec,
    /// How the numbers below relate, in words.
    pub forward: String,
    pub parameters: Vec<Tensor>,
    pub batch: Batch,
    pub loss: f32,
    pub gradients: Vec<Tensor>,
    /// The step exported (from 1): `step − 1` real steps were trained before it.
    #[serde(default)]
    pub step: u64,
    /// The learning rate of that step (the schedule's, warmup and decay included).
    #[serde(default)]
    pub learning_rate: f32,
    /// The optimizer's state before and after the update, and the weights after it: what an
    /// outside optimizer must reproduce from `parameters`, `gradients` and `learning_rate`.
    #[serde(default)]
    pub optimizer_before: Option<OptimizerState>,
    #[serde(default)]
    pub optimizer_after: Option<OptimizerState>,
    #[serde(default)]
    pub parameters_after: Vec<Tensor>,
    /// Each dropout layer's mask of this step: 1 where a value was kept (and scaled by 1/keep),
    /// 0 where dropped, one row per sample.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dropout_masks: Vec<DropoutMask>,
    /// Batch norm's running mean and variance (pairs per channel, layer by layer) before and
    /// after the step.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub running_before: Vec<f32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub running_after: Vec<f32>,
    /// The layers as the tensors number them, when residual blocks are flattened into them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flat_layers: Vec<String>,
    /// Each class of tensor's format, in a reduced-precision step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formats: Option<crate::precision::TensorFormats>,
}

/// The compiled layers by name, when they differ from the model's list (residual blocks).
fn flat_layers(c: &Compiled) -> Vec<String> {
    if !c
        .layers
        .iter()
        .any(|l| matches!(l.layer, crate::model::Layer::SkipFrom))
    {
        return Vec::new();
    }
    c.layers
        .iter()
        .map(|l| match &l.layer {
            crate::model::Layer::SkipFrom => "residual start".to_string(),
            crate::model::Layer::SkipAdd { from, projection } => format!(
                "residual end: + the input of layer {from}{}",
                if *projection {
                    " through a 1×1 convolution"
                } else {
                    ""
                }
            ),
            other => format!("{other:?}"),
        })
        .collect()
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DropoutMask {
    /// The dropout layer's index in `model.layers`.
    pub layer: usize,
    pub keep: f32,
    /// [batch, values per sample]
    pub shape: Vec<usize>,
    pub mask: Vec<u8>,
}

/// The masks the training pass draws at `step` for `rows` samples: the same hash of the plan's
/// seed, the layer, the step and the index as the dropout kernel and its twin (`ops::dropout`).
fn dropout_masks(trainer: &Trainer, step: u32, rows: usize) -> Vec<DropoutMask> {
    use crate::ops::dropout::{hash, kept};
    let seed = trainer.config.seed as u32;
    trainer
        .compiled
        .layers
        .iter()
        .enumerate()
        .filter_map(|(i, l)| match l.layer {
            crate::model::Layer::Dropout { rate } => {
                let (n, keep) = (l.in_len(), 1.0 - rate);
                let layer_seed = seed ^ hash(i as u32);
                Some(DropoutMask {
                    layer: i,
                    keep,
                    shape: vec![rows, n],
                    mask: (0..rows * n)
                        .map(|j| kept(layer_seed, step, j as u32, keep) as u8)
                        .collect(),
                })
            }
            _ => None,
        })
        .collect()
}

const FORWARD: &str = "h = inputs (one [C, H, W] sample per row, NCHW); each layer in model.layers maps h: \
dense h = h Wᵀ + b (h flattened); conv2d h = cross-correlation with W (stride, zero padding) + b; \
pool = max or mean over each window; activation element-wise; flatten keeps the values; \
batch_norm per channel over the batch and positions x̂ = (h − mean) / √(biased variance + 1e-5), \
h = γ x̂ + β (γ its weight, β its bias), and after the update running = (1 − momentum) running + \
momentum (mean, unbiased variance); layer_norm the same per sample over all its values, γ and β \
per channel; residual h = F(h) + h, or with projection + a 1×1 convolution of h (stride to fit; \
the block end's weight and bias). Tensors are numbered by flat_layers when a model has residual \
blocks (a block's start, its layers, its end), else by model.layers.";

/// How the exported numbers relate, in words, for the configured loss (docs/theory.md §1.1, §2.9).
pub fn forward_text(config: &TrainConfig) -> String {
    let loss = match config.loss {
        Loss::CrossEntropy => {
            "The last h are the logits; loss = mean over the batch of −log softmax(logits)[label]"
        }
        Loss::Mse => {
            "The last h are the outputs o; loss = mean over the batch and the C outputs of (o − t)², \
t the one-hot label (classification) or the target (regression)"
        }
    };
    let regularization = if config.regularization.l1 > 0.0 || config.regularization.l2 > 0.0 {
        "; the loss and gradients exclude the L1/L2 terms, which the update adds to the weights' gradients \
(g + λ2·w + λ1·sign(w))"
    } else {
        ""
    };
    format!("{FORWARD} {loss}; gradients = d loss / d parameter{regularization}")
}

fn tensors(model: &Compiled, flat: &[f32]) -> Vec<Tensor> {
    let mut out = Vec::new();
    for (i, l) in model.layers.iter().enumerate().filter(|(_, l)| l.has_params()) {
        out.push(Tensor {
            name: format!("layer{i}.weight"),
            shape: l.w_shape(),
            offset: l.w_off,
            values: flat[l.w_off..l.b_off].to_vec(),
        });
        let units = l.out_shape[0];
        out.push(Tensor {
            name: format!("layer{i}.bias"),
            shape: vec![units],
            offset: l.b_off,
            values: flat[l.b_off..l.b_off + units].to_vec(),
        });
    }
    out
}

/// Exports the trainer's next step whole and takes it: the batch, the weights and optimizer state
/// before, the loss and gradients (as a training step computes them, dropout masks of that step
/// included), the learning rate, and the weights and state after the update.
pub async fn export_step(trainer: &mut Trainer) -> Result<StepExport, Error> {
    let rows = trainer.next_batch_rows();
    let params = trainer.params().await?;
    let before = trainer.optimizer_state().await?;
    let learning_rate = trainer.learning_rate_at(trainer.step() + 1);
    let running_before = trainer.running_stats().await?;
    let (loss, grads) = trainer.loss_and_gradient(&rows).await?;
    trainer.apply_gradient(&grads)?;
    let after = trainer.optimizer_state().await?;
    let params_after = trainer.params().await?;
    let step = after.step;
    let data = &trainer.data;
    Ok(StepExport {
        format: FORMAT.into(),
        config: trainer.config.clone(),
        model: trainer.spec.clone(),
        forward: forward_text(&trainer.config),
        parameters: tensors(&trainer.compiled, &params),
        batch: Batch {
            inputs: rows
                .iter()
                .map(|&r| trainer.config.inputs(data.point(r as usize)))
                .collect(),
            labels: rows.iter().map(|&r| data.y[r as usize]).collect(),
            targets: if data.is_regression() {
                rows.iter().map(|&r| data.targets[r as usize]).collect()
            } else {
                Vec::new()
            },
        },
        loss,
        gradients: tensors(&trainer.compiled, &grads),
        step,
        learning_rate,
        optimizer_before: Some(before),
        optimizer_after: Some(after),
        parameters_after: tensors(&trainer.compiled, &params_after),
        dropout_masks: dropout_masks(trainer, step as u32, rows.len()),
        running_before,
        running_after: trainer.running_stats().await?,
        flat_layers: flat_layers(&trainer.compiled),
        // `loss_and_gradient` runs at a loss scale of 1.
        formats: trainer.config.precision.describe(1.0),
    })
}

/// Convenience for the command line: a fresh trainer from `config`, its first step exported.
pub async fn export_first_step(
    config: TrainConfig,
    gpu: Option<std::rc::Rc<crate::gpu::GpuContext>>,
) -> Result<StepExport, Error> {
    export_nth_step(config, gpu, 1).await
}

/// Step `n` (from 1) of a fresh trainer: `n − 1` real training steps, then the step exported.
pub async fn export_nth_step(
    config: TrainConfig,
    gpu: Option<std::rc::Rc<crate::gpu::GpuContext>>,
    n: u64,
) -> Result<StepExport, Error> {
    let mut trainer = Trainer::new(config, gpu, 1).await?;
    train_until_step(&mut trainer, n.saturating_sub(1)).await?;
    export_step(&mut trainer).await
}

/// Trains until `step` steps are done (nothing if they already are), in chunks the step log holds.
pub async fn train_until_step(trainer: &mut Trainer, step: u64) -> Result<(), Error> {
    while trainer.step() < step {
        let left = (step - trainer.step()) as usize;
        trainer.train(left.min(crate::plan::LOG_CAPACITY)).await?;
    }
    Ok(())
}

/// A trained model: its config, its layers and every parameter tensor, as JSON-friendly data
/// (the same tensor layout as the step export).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelExport {
    pub format: String,
    pub step: u64,
    pub config: TrainConfig,
    pub model: ModelSpec,
    pub parameters: Vec<Tensor>,
    /// The optimizer's state, so that a resumed run continues exactly (absent in older files).
    #[serde(default)]
    pub optimizer: Option<OptimizerState>,
    /// Batch norm's running mean and variance, a pair per channel, layer by layer (absent for
    /// models without batch norm).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub running: Vec<f32>,
}

pub const MODEL_FORMAT: &str = "training-lab model v1";

/// The trainer's current weights with their config and layer list.
pub async fn export_model(trainer: &Trainer) -> Result<ModelExport, Error> {
    let params = trainer.params().await?;
    Ok(ModelExport {
        format: MODEL_FORMAT.into(),
        step: trainer.step(),
        config: trainer.config.clone(),
        model: trainer.spec.clone(),
        parameters: tensors(&trainer.compiled, &params),
        optimizer: Some(trainer.optimizer_state().await?),
        running: trainer.running_stats().await?,
    })
}

impl ModelExport {
    /// Puts the saved weights, optimizer state and step into `trainer` (built from the same
    /// config) and moves its batch sampler past the batches already trained, so that training
    /// goes on exactly as if it had never stopped.
    pub fn resume(&self, trainer: &mut Trainer) -> Result<(), Error> {
        self.load_weights(trainer)?;
        let state = self.optimizer.as_ref().ok_or_else(|| {
            Error::Mismatch("this model file has no optimizer state (saved by an older version)".into())
        })?;
        trainer.set_optimizer_state(state)?;
        for _ in 0..state.step {
            trainer.next_batch_rows();
        }
        Ok(())
    }

    /// A saved model (from the app or `lab train --save-model`), or why the text is not one.
    pub fn from_json(text: &str) -> Result<Self, Error> {
        let m: Self = crate::error::read_json(text, "a saved model")?;
        crate::error::check_format(&m.format, MODEL_FORMAT)?;
        Ok(m)
    }

    /// Refuses a file whose tensors cannot fill the model its config describes (for `classes`
    /// outputs) before anything of the model's size is built: a junk file may declare a layer
    /// of 20,000 units and carry no weights at all.
    pub fn check_sizes(&self, classes: usize) -> Result<(), Error> {
        let compiled = self.config.spec(classes).compile().map_err(Error::from)?;
        let saved: usize = self.parameters.iter().map(|t| t.values.len()).sum();
        if saved != compiled.n_params {
            return Err(Error::Mismatch(format!(
                "{saved} parameter values saved for a model of {} parameters",
                compiled.n_params
            )));
        }
        Ok(())
    }

    /// Puts the saved weights, and batch norm's running statistics, into `trainer` (built from
    /// the same config).
    pub fn load_weights(&self, trainer: &mut Trainer) -> Result<(), Error> {
        trainer.set_params(&self.flat_params(&trainer.compiled)?)?;
        let n = trainer.compiled.n_running;
        if n > 0 {
            if self.running.len() != n || self.running.iter().any(|v| !v.is_finite()) {
                return Err(Error::Mismatch(format!(
                    "{} running statistics saved for a model with {n} (batch norm's mean and variance)",
                    self.running.len()
                )));
            }
            trainer.set_running_stats(&self.running)?;
        }
        Ok(())
    }

    /// The flat parameter vector for `compiled`, after checking that every tensor is there with
    /// the name, shape and offset the model's layout gives it.
    pub fn flat_params(&self, compiled: &Compiled) -> Result<Vec<f32>, Error> {
        let layout = tensors(compiled, &vec![0.0; compiled.n_params]);
        if layout.len() != self.parameters.len() {
            return Err(Error::Mismatch(format!(
                "{} parameter tensors saved for a model that has {}",
                self.parameters.len(),
                layout.len()
            )));
        }
        let mut flat = vec![0.0; compiled.n_params];
        for (want, got) in layout.iter().zip(&self.parameters) {
            if want.name != got.name || want.shape != got.shape || want.offset != got.offset {
                return Err(Error::Mismatch(format!(
                    "tensor '{}' {:?} does not fit the model's '{}' {:?}",
                    got.name, got.shape, want.name, want.shape
                )));
            }
            if got.values.len() != want.values.len() || got.values.iter().any(|v| !v.is_finite()) {
                return Err(Error::Mismatch(format!(
                    "tensor '{}': wrong length or a value that is not finite",
                    got.name
                )));
            }
            flat[got.offset..got.offset + got.values.len()].copy_from_slice(&got.values);
        }
        Ok(flat)
    }
}
