//! A training session: a config (data, model, optimizer) compiled to a plan and run on a backend,
//! with a stream of per-step metrics. The same code drives the GPU and the CPU backends.

use std::rc::Rc;

use serde::{Deserialize, Serialize};

use crate::backend::{Backend, CpuBackend, GpuBackend, Pass};
use crate::data::sampler::BatchSampler;
use crate::data::toy::ToyConfig;
use crate::data::Dataset;
use crate::gpu::GpuContext;
use crate::kernel::StepScalars;
use crate::model::MlpSpec;
use crate::ops::activation::Activation;
use crate::optim::{Optimizer, Schedule};
use crate::plan::{HostBuffers, Plan, PlanConfig, LOG_CAPACITY};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TrainConfig {
    pub data: ToyConfig,
    pub hidden: Vec<usize>,
    pub activation: Activation,
    pub optimizer: Optimizer,
    pub learning_rate: f32,
    pub schedule: Schedule,
    pub batch: usize,
    /// Seeds the initial weights and the batch order (the data has its own seed).
    pub seed: u64,
}

impl Default for TrainConfig {
    fn default() -> Self {
        Self {
            data: ToyConfig::default(),
            hidden: vec![16, 16],
            activation: Activation::Tanh,
            optimizer: Optimizer::adam(),
            learning_rate: 0.03,
            schedule: Schedule::default(),
            batch: 32,
            seed: 1,
        }
    }
}

impl TrainConfig {
    pub fn validate(&self) -> Result<(), String> {
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return Err(format!(
                "learning rate must be a positive number, got {}",
                self.learning_rate
            ));
        }
        if self.batch == 0 || self.batch > self.data.points {
            return Err(format!(
                "batch size must be between 1 and the {} data points",
                self.data.points
            ));
        }
        self.spec(2).validate()
    }

    fn spec(&self, classes: usize) -> MlpSpec {
        MlpSpec {
            inputs: 2,
            hidden: self.hidden.clone(),
            classes,
            activation: self.activation,
        }
    }
}

/// Metrics of one step, measured on its mini-batch before the update.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepMetrics {
    pub step: u64,
    pub loss: f32,
    pub accuracy: f32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TrainError {
    /// The loss became NaN or infinite at this step; training stops there.
    Diverged {
        step: u64,
    },
    Device(String),
}

impl std::fmt::Display for TrainError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TrainError::Diverged { step } => write!(
                f,
                "training diverged at step {step}: the loss became NaN or infinite. Lower the learning rate and reset."
            ),
            TrainError::Device(e) => write!(f, "device error: {e}"),
        }
    }
}

pub struct Trainer {
    backend: Backend,
    host: HostBuffers,
    pub config: TrainConfig,
    pub spec: MlpSpec,
    pub data: Dataset,
    sampler: BatchSampler,
    predict_rows: usize,
    step: u64,
}

impl Trainer {
    /// Builds a trainer on the GPU when a context is given, else on the CPU.
    pub async fn new(
        config: TrainConfig,
        gpu: Option<Rc<GpuContext>>,
        predict_rows: usize,
    ) -> Result<Self, String> {
        config.validate()?;
        let data = config.data.generate();
        let spec = config.spec(data.classes);
        let plan = Plan::new(&PlanConfig {
            spec: &spec,
            optimizer: config.optimizer,
            batch: config.batch,
            data_rows: data.len(),
            predict_rows: predict_rows.max(1),
        });
        let host = plan.host;
        let mut backend = match gpu {
            Some(ctx) => Backend::Gpu(GpuBackend::new(ctx, plan).await?),
            None => Backend::Cpu(CpuBackend::new(plan)),
        };
        backend.write_f32(host.params, &spec.init(config.seed));
        backend.write_u32(host.segment_bounds, &crate::plan::segment_bounds(&spec.layout()));
        backend.write_f32(host.data_x, &data.x);
        backend.write_u32(host.data_y, &data.y);
        let sampler = BatchSampler::new(data.len(), config.seed ^ 0xBA7C4);
        Ok(Self {
            backend,
            host,
            spec,
            data,
            sampler,
            predict_rows: predict_rows.max(1),
            step: 0,
            config,
        })
    }

    pub fn backend_name(&self) -> String {
        self.backend.name()
    }

    pub fn is_gpu(&self) -> bool {
        self.backend.is_gpu()
    }

    pub fn step(&self) -> u64 {
        self.step
    }

    pub fn epoch(&self) -> u64 {
        self.sampler.epoch
    }

    /// Runs up to `steps` training steps (at most the log capacity) and returns their metrics.
    /// Stops early, with an error, at the first step whose loss is not finite.
    pub async fn train(&mut self, steps: usize) -> Result<Vec<StepMetrics>, TrainError> {
        let steps = steps.clamp(1, LOG_CAPACITY);
        let first = self.step;
        for slot in 0..steps {
            let batch = self.sampler.next_batch(self.config.batch).to_vec();
            self.backend.write_u32(self.host.indices, &batch);
            self.step += 1;
            let scalars = StepScalars {
                slot: slot as u32,
                t: self.step as u32,
                lr: self.config.learning_rate,
            };
            self.backend.run(Pass::Train, &scalars);
        }
        let loss = self
            .backend
            .read_f32(self.host.log_loss, steps)
            .await
            .map_err(TrainError::Device)?;
        let acc = self
            .backend
            .read_f32(self.host.log_accuracy, steps)
            .await
            .map_err(TrainError::Device)?;
        let mut out = Vec::with_capacity(steps);
        for i in 0..steps {
            let step = first + i as u64 + 1;
            if !loss[i].is_finite() {
                self.step = step;
                return Err(TrainError::Diverged { step });
            }
            out.push(StepMetrics {
                step,
                loss: loss[i],
                accuracy: acc[i],
            });
        }
        Ok(out)
    }

    /// Class probabilities (rows × classes) for 2-D points (x, y interleaved), at most the
    /// `predict_rows` given at construction.
    pub async fn predict(&mut self, points: &[f32]) -> Result<Vec<f32>, String> {
        let rows = points.len() / self.spec.inputs;
        if rows > self.predict_rows {
            return Err(format!(
                "{rows} points exceed the {} this trainer predicts at once",
                self.predict_rows
            ));
        }
        self.backend.write_f32(self.host.predict_x, points);
        self.backend.run(Pass::Predict, &StepScalars::default());
        self.backend
            .read_f32(self.host.probs, rows * self.spec.classes)
            .await
    }

    /// The mean loss over the given data rows (exactly `config.batch` of them) and its gradient
    /// with respect to every parameter, at the current weights, without updating anything.
    pub async fn loss_and_gradient(&mut self, rows: &[u32]) -> Result<(f32, Vec<f32>), String> {
        if rows.len() != self.config.batch {
            return Err(format!(
                "{} rows given for a batch of {}",
                rows.len(),
                self.config.batch
            ));
        }
        self.backend.write_u32(self.host.indices, rows);
        self.backend.run(Pass::Gradient, &StepScalars::default());
        let loss = self.backend.read_f32(self.host.log_loss, 1).await?[0];
        let grads = self
            .backend
            .read_f32(self.host.grads, self.spec.layout().n_params)
            .await?;
        Ok((loss, grads))
    }

    /// Replaces the weights (same layout as `params`).
    pub fn set_params(&mut self, params: &[f32]) -> Result<(), String> {
        let n = self.spec.layout().n_params;
        if params.len() != n {
            return Err(format!("{} values given for {n} parameters", params.len()));
        }
        self.backend.write_f32(self.host.params, params);
        Ok(())
    }

    /// The row indices of the next training batch (advances the sampler).
    pub fn next_batch_rows(&mut self) -> Vec<u32> {
        self.sampler.next_batch(self.config.batch).to_vec()
    }

    /// The current flat parameter vector (layout from `spec.layout()`).
    pub async fn params(&self) -> Result<Vec<f32>, String> {
        self.backend
            .read_f32(self.host.params, self.spec.layout().n_params)
            .await
    }
}
