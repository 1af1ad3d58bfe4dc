//! A training session: a config (data, model, optimizer) compiled to a plan and run on a backend,
//! with a stream of per-step metrics. The same code drives the GPU and the CPU backends.

mod checkpoint;
mod config;
mod gradient_norms;
mod hidden_split;
mod landscape_eval;
mod loss_scaling;
mod metrics;
mod split;
#[cfg(test)]
mod tests;
mod view;
mod warm;
mod weights;

pub use checkpoint::Recompute;
pub use config::{CsvConfig, DataConfig, ImageConfig, ModelConfig, TrainConfig};
pub use gradient_norms::weight_norms;
pub use hidden_split::HiddenShard;
pub use metrics::{StepMetrics, TrainError};
pub use split::{replicas_for, Alone, ShareGradient, StepRunner, MIN_SHARE_ROWS};
pub use weights::OptimizerState;

use crate::error::Error;
use std::rc::Rc;

use crate::backend::{Backend, CpuBackend, GpuBackend, Pass};
use crate::data::sampler::BatchSampler;
use crate::data::Dataset;
use crate::gpu::GpuContext;
use crate::kernel::StepScalars;
use crate::model::{Compiled, ModelSpec};
use crate::plan::{HostBuffers, Loss, Plan, PlanConfig, LOG_CAPACITY};
use crate::precision::{LossScaler, Rounding, ScaleEvent};

pub struct Trainer {
    backend: Backend,
    host: HostBuffers,
    pub config: TrainConfig,
    pub spec: ModelSpec,
    pub compiled: Compiled,
    pub data: Dataset,
    sampler: BatchSampler,
    predict_rows: usize,
    step: u64,
    /// Chunks the landscape evaluation's samples go through its pass in (`plan::eval_chunks`).
    eval_chunks: usize,
    /// The landscape evaluation's samples, per chunk: the network's inputs and the labels (once
    /// per point of a pass); empty until [`Trainer::set_eval_data`].
    eval_samples: Vec<(Vec<f32>, Vec<u32>)>,
    /// The loss scale of a reduced-precision run, and each step's (`ScaleEvent`).
    scaler: LossScaler,
    scale_events: Vec<ScaleEvent>,
    /// Each tensor's scale under delayed scaling (None otherwise).
    delayed: Option<crate::precision::DelayedScaler>,
    /// A split step's mean gradient, kept between steps (`split`).
    split_mean: Vec<f32>,
}

impl Trainer {
    /// Builds a trainer on the GPU when a context is given, else on the CPU, for a generated
    /// (toy) data set; image data is loaded by the caller and given to [`Trainer::with_data`].
    pub async fn new(
        config: TrainConfig,
        gpu: Option<Rc<GpuContext>>,
        predict_rows: usize,
    ) -> Result<Self, Error> {
        let DataConfig::Toy(toy) = &config.data else {
            return Err(Error::Config(
                "image data sets are loaded by the caller: use Trainer::with_data".into(),
            ));
        };
        let data = toy.generate();
        Self::with_data(config, data, gpu, predict_rows).await
    }

    /// Builds a trainer on `data` (the training set), the model and optimizer from `config`.
    pub async fn with_data(
        config: TrainConfig,
        data: Dataset,
        gpu: Option<Rc<GpuContext>>,
        predict_rows: usize,
    ) -> Result<Self, Error> {
        Self::with_evaluation(config, data, gpu, predict_rows, 0).await
    }

    /// Like [`Trainer::with_data`], with a landscape evaluation over `eval_rows` samples on the
    /// device ([`Trainer::set_eval_data`], [`Trainer::plane_losses`]).
    pub async fn with_evaluation(
        config: TrainConfig,
        data: Dataset,
        gpu: Option<Rc<GpuContext>>,
        predict_rows: usize,
        eval_rows: usize,
    ) -> Result<Self, Error> {
        Self::with_evaluation_in_chunks(
            config,
            data,
            gpu,
            predict_rows,
            eval_rows,
            crate::plan::EVAL_CHUNK_BYTES,
        )
        .await
    }

    /// Like [`Trainer::with_evaluation`], with the evaluation's activations held to
    /// `chunk_bytes` per pass (`plan::eval_chunks_within`): a device with less memory to spare
    /// takes its samples in smaller chunks.
    pub async fn with_evaluation_in_chunks(
        config: TrainConfig,
        data: Dataset,
        gpu: Option<Rc<GpuContext>>,
        predict_rows: usize,
        eval_rows: usize,
        chunk_bytes: usize,
    ) -> Result<Self, Error> {
        config.validate()?;
        if data.len() < config.batch {
            return Err(Error::Mismatch(format!(
                "the batch of {} is larger than the {} samples",
                config.batch,
                data.len()
            )));
        }
        let spec = config.spec(data.classes);
        let compiled = spec.compile().map_err(Error::from)?;
        if compiled.classes() < data.classes {
            return Err(Error::Mismatch(format!(
                "the model scores {} classes, the data has {}",
                compiled.classes(),
                data.classes
            )));
        }
        if data.is_regression() && (compiled.classes() != 1 || config.loss != Loss::Mse) {
            return Err(Error::Mismatch(format!(
                "regression data trains a model with one output on the mse loss (this one has {} outputs and the {:?} loss)",
                compiled.classes(),
                config.loss
            )));
        }
        let dim = config.input_shape().iter().product::<usize>();
        if compiled.input_len() != dim {
            return Err(Error::Mismatch(format!(
                "the model reads {} features, the data has {}",
                compiled.input_len(),
                dim
            )));
        }
        if !config.features.is_empty() && data.dim != 2 {
            return Err(Error::Mismatch(format!(
                "input features are computed from 2-D points, this data has {} values per sample",
                data.dim
            )));
        }
        // The device holds what the network reads; `data` keeps the raw samples.
        let device_x = config.inputs(&data.x);
        let packed = if config.features.is_empty() {
            data.packed_u8()
        } else {
            None
        };
        let (eval_chunk, eval_chunks) = crate::plan::eval_chunks_within(&compiled, eval_rows, chunk_bytes);
        let plan = Plan::new(&PlanConfig {
            data_rows: data.len(),
            data_packed: packed.is_some(),
            regression: data.is_regression(),
            predict_rows: predict_rows.max(1),
            eval_rows: eval_chunk,
            // Several landscape points per pass save dispatches on a GPU; the CPU twins have none
            // to save and run fastest a point at a time, each pass in cache.
            eval_batched: gpu.is_some(),
            ..config.plan_config(&compiled)
        });
        let host = plan.host;
        let mut backend = match gpu {
            Some(ctx) => Backend::Gpu(GpuBackend::new(ctx, plan).await?),
            None => {
                crate::backend::cpu::check_budget(&plan)?;
                Backend::Cpu(CpuBackend::new(plan))
            }
        };
        let mut init = spec.init_with(&compiled, config.seed, config.init);
        // Reduced master weights start as the format holds them.
        let p = config.precision;
        crate::precision::round_slice(&mut init, p.master, Rounding::Nearest, 0);
        backend.write_f32(host.params, &init);
        backend.write_f32(host.running, &crate::model::initial_running(&compiled));
        if config.masked {
            // Every weight kept until the caller prunes (`set_mask`).
            backend.write_f32(host.mask, &vec![1.0; compiled.n_params]);
        }
        backend.write_u32(host.segment_bounds, &crate::plan::segment_bounds(&compiled));
        match &packed {
            Some(words) => backend.write_u32(host.data_x, words),
            None => backend.write_f32(host.data_x, &device_x),
        }
        if data.is_regression() {
            let bits: Vec<u32> = data.targets.iter().map(|t| t.to_bits()).collect();
            backend.write_u32(host.data_y, &bits);
        } else {
            backend.write_u32(host.data_y, &data.y);
        }
        let sampler = BatchSampler::new(data.len(), config.seed ^ 0xBA7C4, config.shuffle);
        let delayed = loss_scaling::delayed_scaler(&config.precision, backend.plan());
        Ok(Self {
            backend,
            host,
            spec,
            compiled,
            data,
            sampler,
            predict_rows: predict_rows.max(1),
            step: 0,
            eval_chunks,
            eval_samples: Vec::new(),
            scaler: LossScaler::new(config.precision.loss_scaling),
            scale_events: Vec::new(),
            delayed,
            split_mean: Vec::new(),
            config,
        })
    }

    /// Trains with the fused kernel list (the default) or the teaching kernels, one op each
    /// (`Plan::fused`): the same values, more dispatches.
    pub fn set_fused(&mut self, on: bool) {
        self.backend.set_fused(on);
    }

    /// Dispatches (kernels) one training step runs.
    pub fn dispatches_per_step(&self) -> usize {
        self.backend.plan().kernels(crate::backend::Pass::Train).len()
    }

    pub fn backend_name(&self) -> String {
        self.backend.name()
    }

    /// Why the GPU device this trainer runs on was lost, if it was: its work is gone, and the
    /// caller rebuilds on a new device from saved weights.
    pub fn gpu_lost(&self) -> Option<String> {
        self.backend.gpu_lost()
    }

    pub fn is_gpu(&self) -> bool {
        self.backend.is_gpu()
    }

    pub fn step(&self) -> u64 {
        self.step
    }

    /// Carries on a count from elsewhere: a trainer rebuilt from saved weights after its device
    /// was lost resumes the step numbers (and the schedule) where they were.
    pub fn set_step(&mut self, step: u64) {
        self.step = step;
    }

    pub fn epoch(&self) -> u64 {
        self.sampler.epoch
    }

    /// Times each kernel of a training step on the current batch, `reps` runs each. It repeats
    /// the update too, so the weights move: profile after a run, not in the middle of one.
    pub async fn profile_step(
        &mut self,
        reps: usize,
        now_ms: &dyn Fn() -> f64,
    ) -> Result<Vec<crate::backend::KernelTime>, Error> {
        let scalars = StepScalars {
            slot: 0,
            t: self.step.max(1) as u32,
            lr: self.config.learning_rate,
            ..Default::default()
        };
        self.backend.profile(Pass::Train, &scalars, reps, now_ms).await
    }

    /// The learning rate of step `step` (from 1): the base rate through the schedule (warmup,
    /// decay).
    pub fn learning_rate_at(&self, step: u64) -> f32 {
        self.config
            .schedule
            .lr_at(self.config.learning_rate, step.min(u32::MAX as u64) as u32)
    }

    /// Runs up to `steps` training steps (at most the log capacity) and returns their metrics.
    /// Stops early, with an error, at the first step whose loss is not finite.
    pub async fn train(&mut self, steps: usize) -> Result<Vec<StepMetrics>, TrainError> {
        let steps = steps.clamp(1, LOG_CAPACITY);
        let first = self.step;
        let mut logs = Vec::new();
        for slot in 0..steps {
            let batch = self.sampler.next_batch(self.config.batch).to_vec();
            self.backend.write_u32(self.host.indices, &batch);
            self.step += 1;
            let scalars = StepScalars {
                slot: slot as u32,
                // A step the loss scaler skipped made no update: Adam's count leaves it out.
                t: (self.step - self.scaler.skipped) as u32,
                lr: self.learning_rate_at(self.step),
                loss_scale: self.scaler.scale,
                ..Default::default()
            };
            // A scaler decides between steps: each step reads back what it needs.
            if self.scaler.is_dynamic() || self.delayed.is_some() {
                self.decided_step(&scalars).await?;
                if slot + 1 == steps {
                    let read = |id| self.backend.read_f32(id, steps);
                    logs = vec![
                        read(self.host.log_loss).await.map_err(TrainError::Device)?,
                        read(self.host.log_accuracy).await.map_err(TrainError::Device)?,
                    ];
                }
                continue;
            }
            if slot + 1 < steps {
                self.backend.run(Pass::Train, &scalars);
                continue;
            }
            // The chunk's metrics come back with its last step: one readback per chunk.
            let reads = [(self.host.log_loss, steps), (self.host.log_accuracy, steps)];
            logs = self
                .backend
                .run_and_read(Pass::Train, &scalars, &reads)
                .await
                .map_err(TrainError::Device)?;
        }
        let (loss, acc) = (&logs[0], &logs[1]);
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

    /// The mean loss over the given data rows (exactly `config.batch` of them) and its gradient
    /// with respect to every parameter, at the current weights, without updating anything.
    pub async fn loss_and_gradient(&mut self, rows: &[u32]) -> Result<(f32, Vec<f32>), Error> {
        let mut grads = Vec::new();
        let loss = self.loss_and_gradient_into(rows, &mut grads).await?;
        Ok((loss, grads))
    }

    /// [`Self::loss_and_gradient`] into a vector the caller keeps between calls.
    pub async fn loss_and_gradient_into(&mut self, rows: &[u32], grads: &mut Vec<f32>) -> Result<f32, Error> {
        let scalars = self.gradient_batch(rows)?;
        self.backend.run(Pass::Gradient, &scalars);
        let loss = self.backend.read_f32(self.host.log_loss, 1).await?[0];
        // Every gradient pass writes the whole gradient buffer, so on the CPU path it can be
        // swapped with the caller's (a cluster's workers each keep one) rather than copied.
        self.backend
            .take_f32_into(self.host.grads, self.compiled.n_params, grads)
            .await?;
        Ok(loss)
    }

    /// Puts `rows` (exactly `config.batch` of them) in as the batch of a gradient-only pass, and
    /// gives the pass's scalars: those of the next training step, whose dropout masks are keyed
    /// by its step number.
    fn gradient_batch(&mut self, rows: &[u32]) -> Result<StepScalars, Error> {
        if rows.len() != self.config.batch {
            return Err(Error::Mismatch(format!(
                "{} rows given for a batch of {}",
                rows.len(),
                self.config.batch
            )));
        }
        self.backend.write_u32(self.host.indices, rows);
        Ok(StepScalars {
            t: (self.step + 1) as u32,
            ..Default::default()
        })
    }

    /// GPU readbacks awaited so far on this trainer's device (0 on the CPU path).
    pub fn readbacks(&self) -> u64 {
        self.backend.readbacks()
    }

    /// The kernel lists and buffers this trainer runs.
    pub fn plan(&self) -> &Plan {
        self.backend.plan()
    }
}
