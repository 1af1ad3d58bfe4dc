//! A training session: a config (data, model, optimizer) compiled to a plan and run on a backend,
//! with a stream of per-step metrics. The same code drives the GPU and the CPU backends.

use std::rc::Rc;

use serde::{Deserialize, Serialize};

use crate::backend::{Backend, CpuBackend, GpuBackend, Pass};
use crate::data::features::{self, Feature};
use crate::data::images::ImageSet;
use crate::data::sampler::BatchSampler;
use crate::data::toy::ToyConfig;
use crate::data::Dataset;
use crate::gpu::GpuContext;
use crate::kernel::StepScalars;
use crate::model::{Compiled, Init, Layer, ModelSpec};
use crate::ops::activation::Activation;
use crate::optim::{Optimizer, Schedule};
use crate::plan::{HostBuffers, Loss, Plan, PlanConfig, Regularization, LOG_CAPACITY};

/// Where the training data comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DataConfig {
    /// A generated 2-D set.
    Toy(ToyConfig),
    /// MNIST or Fashion-MNIST from the files setup prepares (`public/data/{set}-{train,test}.bin`).
    Images(ImageConfig),
    /// A user's 2-D labelled points (`data::csv`).
    Csv(CsvConfig),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CsvConfig {
    /// The file, read through the loader's `read` (the CLI: relative to the working directory,
    /// or else to the data directory).
    pub file: String,
    /// Share of the points held out as a test set (0: none), chosen with `seed`.
    #[serde(default)]
    pub test_fraction: f32,
    #[serde(default)]
    pub seed: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImageConfig {
    /// "mnist" or "fashion".
    pub set: String,
    /// The first `train_limit` training images (in file order) and `test_limit` test images.
    pub train_limit: usize,
    pub test_limit: usize,
}

impl Default for DataConfig {
    fn default() -> Self {
        DataConfig::Toy(ToyConfig::default())
    }
}

impl DataConfig {
    /// Training and test data (toy sets have a test part when their `test_fraction` is above 0);
    /// `read` gives the bytes of a file in the data directory (image sets only).
    pub fn load(
        &self,
        read: impl Fn(&str) -> Result<Vec<u8>, String>,
    ) -> Result<(Dataset, Option<Dataset>), String> {
        match self {
            DataConfig::Toy(t) => Ok(t.generate_split()),
            DataConfig::Csv(c) => {
                let bytes = read(&c.file)?;
                let text = String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8 text", c.file))?;
                let all = crate::data::csv::parse_points(&text).map_err(|e| format!("{}: {e}", c.file))?;
                if c.test_fraction <= 0.0 {
                    return Ok((all, None));
                }
                let (train, test) = all.split(c.test_fraction, c.seed);
                Ok((train, Some(test)))
            }
            DataConfig::Images(c) => {
                if c.set != "mnist" && c.set != "fashion" {
                    return Err(format!("unknown image set '{}' (mnist or fashion)", c.set));
                }
                let load = |split: &str, limit: usize| -> Result<Dataset, String> {
                    let name = format!("{}-{split}.bin", c.set);
                    let set = ImageSet::parse(&read(&name)?).map_err(|e| format!("{name}: {e}"))?;
                    Ok(set.to_dataset(limit))
                };
                Ok((load("train", c.train_limit)?, Some(load("test", c.test_limit)?)))
            }
        }
    }

    /// Shape of one sample, [C, H, W].
    pub fn sample_shape(&self) -> [usize; 3] {
        match self {
            DataConfig::Toy(_) | DataConfig::Csv(_) => [2, 1, 1],
            DataConfig::Images(_) => [1, 28, 28],
        }
    }

    /// Training samples, when known before loading.
    fn rows(&self) -> Option<usize> {
        match self {
            DataConfig::Toy(t) => {
                let n = t.points.max(2);
                Some(n - ((n as f32 * t.test_fraction.clamp(0.0, 1.0)).round() as usize).min(n))
            }
            DataConfig::Images(c) => Some(c.train_limit),
            DataConfig::Csv(_) => None,
        }
    }
}

/// The network: an MLP by its hidden widths, or any list of layers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ModelConfig {
    Mlp {
        hidden: Vec<usize>,
        activation: Activation,
    },
    Layers {
        layers: Vec<Layer>,
    },
}

impl Default for ModelConfig {
    fn default() -> Self {
        ModelConfig::Mlp {
            hidden: vec![16, 16],
            activation: Activation::Tanh,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TrainConfig {
    pub data: DataConfig,
    pub model: ModelConfig,
    pub loss: Loss,
    pub regularization: Regularization,
    pub optimizer: Optimizer,
    pub learning_rate: f32,
    pub schedule: Schedule,
    pub batch: usize,
    /// Reshuffle the training set every epoch (false: batches in file order, as benchmarks want).
    pub shuffle: bool,
    /// Seeds the initial weights and the batch order (the data has its own seed).
    pub seed: u64,
    /// Weight initialization.
    pub init: Init,
    /// For 2-D data: the features the network sees, computed from each point (empty: x and y).
    pub features: Vec<Feature>,
}

impl Default for TrainConfig {
    fn default() -> Self {
        Self {
            data: DataConfig::default(),
            model: ModelConfig::default(),
            loss: Loss::default(),
            regularization: Regularization::default(),
            optimizer: Optimizer::adam(),
            learning_rate: 0.03,
            schedule: Schedule::default(),
            batch: 32,
            shuffle: true,
            seed: 1,
            init: Init::Auto,
            features: Vec::new(),
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
        let rows = self.data.rows().unwrap_or(usize::MAX);
        if self.batch == 0 || self.batch > rows {
            return Err(format!(
                "batch size must be between 1 and the {rows} training samples"
            ));
        }
        if !self.features.is_empty() && self.data.sample_shape() != [2, 1, 1] {
            return Err("input features are computed from 2-D points: this data is not 2-D".into());
        }
        self.spec(10).compile().map(|_| ())
    }

    /// "MLP" or "layers", for messages.
    pub fn model_label(&self) -> &'static str {
        match self.model {
            ModelConfig::Mlp { .. } => "MLP",
            ModelConfig::Layers { .. } => "layers",
        }
    }

    /// The model for data with `classes` classes.
    /// The shape of what the network reads: the data's sample, or the chosen features.
    pub fn input_shape(&self) -> [usize; 3] {
        if self.features.is_empty() {
            self.data.sample_shape()
        } else {
            [self.features.len(), 1, 1]
        }
    }

    /// The network's input rows for raw samples (2-D points become their features).
    pub fn inputs(&self, raw: &[f32]) -> Vec<f32> {
        if self.features.is_empty() {
            raw.to_vec()
        } else {
            features::expand(raw, &self.features)
        }
    }

    pub fn spec(&self, classes: usize) -> ModelSpec {
        let input = self.input_shape();
        match &self.model {
            ModelConfig::Mlp { hidden, activation } => {
                let mut spec = ModelSpec::mlp(input.iter().product(), hidden, classes, *activation);
                spec.input = input;
                spec
            }
            ModelConfig::Layers { layers } => ModelSpec {
                input,
                layers: layers.clone(),
            },
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

/// An optimizer's state: the steps taken (t of Adam's bias correction, the schedule's step) and
/// its two vectors in the flat parameter layout — SGD none (zeros), momentum and Nesterov the
/// velocity v in `a`, AdaGrad and RMSProp the accumulator A in `a`, Adam and AdamW the moments m
/// in `a` and v in `b`, LARS the velocity in `a` (docs/theory.md §2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OptimizerState {
    pub step: u64,
    pub a: Vec<f32>,
    pub b: Vec<f32>,
}

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
    /// Rows of the data set now on the device for landscape evaluation (0: none yet).
    eval_loaded: usize,
}

impl Trainer {
    /// Builds a trainer on the GPU when a context is given, else on the CPU, for a generated
    /// (toy) data set; image data is loaded by the caller and given to [`Trainer::with_data`].
    pub async fn new(
        config: TrainConfig,
        gpu: Option<Rc<GpuContext>>,
        predict_rows: usize,
    ) -> Result<Self, String> {
        let DataConfig::Toy(toy) = &config.data else {
            return Err("image data sets are loaded by the caller: use Trainer::with_data".into());
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
    ) -> Result<Self, String> {
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
    ) -> Result<Self, String> {
        config.validate()?;
        if data.len() < config.batch {
            return Err(format!(
                "the batch of {} is larger than the {} samples",
                config.batch,
                data.len()
            ));
        }
        let spec = config.spec(data.classes);
        let compiled = spec.compile()?;
        if compiled.classes() < data.classes {
            return Err(format!(
                "the model scores {} classes, the data has {}",
                compiled.classes(),
                data.classes
            ));
        }
        if data.is_regression() && (compiled.classes() != 1 || config.loss != Loss::Mse) {
            return Err(format!(
                "regression data trains a model with one output on the mse loss (this one has {} outputs and the {:?} loss)",
                compiled.classes(),
                config.loss
            ));
        }
        let dim = config.input_shape().iter().product::<usize>();
        if compiled.input_len() != dim {
            return Err(format!(
                "the model reads {} features, the data has {}",
                compiled.input_len(),
                dim
            ));
        }
        if !config.features.is_empty() && data.dim != 2 {
            return Err(format!(
                "input features are computed from 2-D points, this data has {} values per sample",
                data.dim
            ));
        }
        // The device holds what the network reads; `data` keeps the raw samples.
        let device_x = config.inputs(&data.x);
        let packed = if config.features.is_empty() {
            data.packed_u8()
        } else {
            None
        };
        let plan = Plan::new(&PlanConfig {
            model: &compiled,
            loss: config.loss,
            regularization: config.regularization,
            seed: config.seed as u32,
            optimizer: config.optimizer,
            batch: config.batch,
            data_rows: data.len(),
            data_packed: packed.is_some(),
            regression: data.is_regression(),
            predict_rows: predict_rows.max(1),
            eval_rows,
            // Several landscape points per pass save dispatches on a GPU; the CPU twins have none
            // to save and run fastest a point at a time, each pass in cache.
            eval_batched: gpu.is_some(),
        });
        let host = plan.host;
        let mut backend = match gpu {
            Some(ctx) => Backend::Gpu(GpuBackend::new(ctx, plan).await?),
            None => {
                crate::backend::cpu::check_budget(&plan)?;
                Backend::Cpu(CpuBackend::new(plan))
            }
        };
        backend.write_f32(host.params, &spec.init_with(&compiled, config.seed, config.init));
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
        Ok(Self {
            backend,
            host,
            spec,
            compiled,
            data,
            sampler,
            predict_rows: predict_rows.max(1),
            step: 0,
            eval_loaded: 0,
            config,
        })
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
    ) -> Result<Vec<crate::backend::KernelTime>, String> {
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
                t: self.step as u32,
                lr: self.learning_rate_at(self.step),
                ..Default::default()
            };
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

    /// Class probabilities (rows × classes; raw outputs under MSE) for raw samples given row after
    /// row (for 2-D data: x, y interleaved; features are computed here), at most the
    /// `predict_rows` given at construction.
    pub async fn predict(&mut self, points: &[f32]) -> Result<Vec<f32>, String> {
        let inputs = self.config.inputs(points);
        let points = &inputs[..];
        let rows = points.len() / self.compiled.input_len();
        if rows > self.predict_rows {
            return Err(format!(
                "{rows} points exceed the {} this trainer predicts at once",
                self.predict_rows
            ));
        }
        self.backend.write_f32(self.host.predict_x, points);
        let reads = [(self.host.probs, rows * self.compiled.classes())];
        let mut out = self
            .backend
            .run_and_read(Pass::Predict, &StepScalars::default(), &reads)
            .await?;
        Ok(out.swap_remove(0))
    }

    /// Like `predict`, and also every layer's output for those samples (layer i's, rows ×
    /// its output length): what each neuron computes, for drawing it.
    pub async fn predict_layers(&mut self, points: &[f32]) -> Result<(Vec<f32>, Vec<Vec<f32>>), String> {
        let (probs, layers, _) = self.snapshot(points, false).await?;
        Ok((probs, layers))
    }

    /// `predict_layers`, with the weights too when `with_params`: everything a view of the
    /// model draws, computed and read back in one command buffer and one readback.
    pub async fn snapshot(
        &mut self,
        points: &[f32],
        with_params: bool,
    ) -> Result<(Vec<f32>, Vec<Vec<f32>>, Option<Vec<f32>>), String> {
        let inputs = self.config.inputs(points);
        let rows = inputs.len() / self.compiled.input_len();
        if rows > self.predict_rows {
            return Err(format!(
                "{rows} points exceed the {} this trainer predicts at once",
                self.predict_rows
            ));
        }
        self.backend.write_f32(self.host.predict_x, &inputs);
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

    /// The mean loss over the given data rows (exactly `config.batch` of them) and its gradient
    /// with respect to every parameter, at the current weights, without updating anything.
    pub async fn loss_and_gradient(&mut self, rows: &[u32]) -> Result<(f32, Vec<f32>), String> {
        let mut grads = Vec::new();
        let loss = self.loss_and_gradient_into(rows, &mut grads).await?;
        Ok((loss, grads))
    }

    /// [`Self::loss_and_gradient`] into a vector the caller keeps between calls.
    pub async fn loss_and_gradient_into(
        &mut self,
        rows: &[u32],
        grads: &mut Vec<f32>,
    ) -> Result<f32, String> {
        if rows.len() != self.config.batch {
            return Err(format!(
                "{} rows given for a batch of {}",
                rows.len(),
                self.config.batch
            ));
        }
        self.backend.write_u32(self.host.indices, rows);
        // As the next training step would: its dropout masks are keyed by its step number.
        let scalars = StepScalars {
            t: (self.step + 1) as u32,
            ..Default::default()
        };
        self.backend.run(Pass::Gradient, &scalars);
        let loss = self.backend.read_f32(self.host.log_loss, 1).await?[0];
        // Every gradient pass writes the whole gradient buffer, so on the CPU path it can be
        // swapped with the caller's (a cluster's workers each keep one) rather than copied.
        self.backend
            .take_f32_into(self.host.grads, self.compiled.n_params, grads)
            .await?;
        Ok(loss)
    }

    /// One optimizer step with the given gradient instead of one computed here (a data-parallel
    /// step applies the workers' averaged gradient): the update kernels alone, at the next step's
    /// learning rate.
    pub fn apply_gradient(&mut self, grads: &[f32]) -> Result<(), String> {
        let n = self.compiled.n_params;
        if grads.len() != n {
            return Err(format!(
                "{} gradient values given for {n} parameters",
                grads.len()
            ));
        }
        self.backend.write_f32(self.host.grads, grads);
        self.step += 1;
        let scalars = StepScalars {
            slot: 0,
            t: self.step as u32,
            lr: self.learning_rate_at(self.step),
            ..Default::default()
        };
        self.backend.run(Pass::Update, &scalars);
        Ok(())
    }

    /// Replaces the weights (same layout as `params`).
    /// GPU readbacks awaited so far on this trainer's device (0 on the CPU path).
    pub fn readbacks(&self) -> u64 {
        self.backend.readbacks()
    }

    /// The kernel lists and buffers this trainer runs.
    pub fn plan(&self) -> &Plan {
        self.backend.plan()
    }

    pub fn set_params(&mut self, params: &[f32]) -> Result<(), String> {
        let n = self.compiled.n_params;
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

    /// Mean loss (the training loss: cross-entropy, or MSE as in training) and accuracy (0 for
    /// regression) over a whole data set, predicted in chunks.
    pub async fn evaluate(&mut self, data: &Dataset) -> Result<(f32, f32), String> {
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
    pub async fn probabilities(&mut self, data: &Dataset) -> Result<Vec<f32>, String> {
        let mut out = Vec::with_capacity(data.len() * self.compiled.classes());
        for start in (0..data.len()).step_by(self.predict_rows.max(1)) {
            let end = (start + self.predict_rows).min(data.len());
            out.extend(self.predict(&data.x[start * data.dim..end * data.dim]).await?);
        }
        Ok(out)
    }

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
    pub fn set_eval_data(&mut self, data: &Dataset) -> Result<(), String> {
        let Some(eval) = self.backend.plan().eval else {
            return Err("this trainer was built without a landscape evaluation".into());
        };
        let rows = self.eval_rows();
        if data.len() < rows {
            return Err(format!(
                "the landscape is evaluated on {rows} samples, this set has {}",
                data.len()
            ));
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
    ) -> Result<Vec<(f32, f32)>, String> {
        let Some(eval) = self.backend.plan().eval else {
            return Err("this trainer was built without a landscape evaluation".into());
        };
        if self.eval_loaded == 0 {
            return Err("no evaluation data: call set_eval_data first".into());
        }
        let n = self.compiled.n_params;
        if center.len() != n || d1.len() != n || d2.len() != n {
            return Err(format!("the plane's vectors need {n} values each"));
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

    /// The current flat parameter vector (layout from `compiled`).
    pub async fn params(&self) -> Result<Vec<f32>, String> {
        self.backend
            .read_f32(self.host.params, self.compiled.n_params)
            .await
    }

    /// The optimizer's state and step counter, so that a saved run resumes exactly.
    pub async fn optimizer_state(&self) -> Result<OptimizerState, String> {
        let n = self.compiled.n_params;
        Ok(OptimizerState {
            step: self.step,
            a: self.backend.read_f32(self.host.optimizer_a, n).await?,
            b: self.backend.read_f32(self.host.optimizer_b, n).await?,
        })
    }

    /// Restores what [`Trainer::optimizer_state`] gave (and the step counter with it).
    pub fn set_optimizer_state(&mut self, state: &OptimizerState) -> Result<(), String> {
        let n = self.compiled.n_params;
        if state.a.len() != n || state.b.len() != n {
            return Err(format!(
                "optimizer state of {} and {} values for {n} parameters",
                state.a.len(),
                state.b.len()
            ));
        }
        self.backend.write_f32(self.host.optimizer_a, &state.a);
        self.backend.write_f32(self.host.optimizer_b, &state.b);
        self.step = state.step;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csv_config(test_fraction: f32) -> DataConfig {
        DataConfig::Csv(CsvConfig {
            file: "mine.csv".into(),
            test_fraction,
            seed: 2,
        })
    }

    #[test]
    fn csv_data_loads_splits_and_reports_bad_lines_with_the_file() {
        let text = "x,y,label\n0.1,0.2,0\n0.3,0.4,1\n-0.5,0.6,2\n0.7,-0.8,1\n";
        let read = |name: &str| -> Result<Vec<u8>, String> {
            assert_eq!(name, "mine.csv");
            Ok(text.as_bytes().to_vec())
        };
        let (all, none) = csv_config(0.0).load(read).unwrap();
        assert_eq!((all.len(), all.classes, none), (4, 3, None));
        let (train, test) = csv_config(0.5).load(read).unwrap();
        assert_eq!((train.len(), test.map(|t| t.len())), (2, Some(2)));
        let bad = |_: &str| Ok(b"0.1,0.2,0\n0.3,oops,1\n".to_vec());
        let err = csv_config(0.0).load(bad).unwrap_err();
        assert!(err.starts_with("mine.csv: line 2:"), "{err}");
    }

    /// The schedule reaches the kernels: a rate that drops to zero after the first step
    /// freezes the weights from then on, on both backends.
    #[test]
    fn training_follows_the_learning_rate_schedule() {
        use crate::optim::{Decay, Schedule};
        let config = TrainConfig {
            schedule: Schedule {
                decay: Decay::Step { every: 1, gamma: 0.0 },
                ..Default::default()
            },
            optimizer: crate::optim::Optimizer::Sgd,
            ..Default::default()
        };
        let mut t = pollster::block_on(Trainer::new(config, None, 1)).unwrap();
        assert_eq!(
            (t.learning_rate_at(1), t.learning_rate_at(2)),
            (t.config.learning_rate, 0.0)
        );
        let p0 = pollster::block_on(t.params()).unwrap();
        pollster::block_on(t.train(1)).unwrap();
        let p1 = pollster::block_on(t.params()).unwrap();
        pollster::block_on(t.train(3)).unwrap();
        assert_ne!(p0, p1, "step 1 trains");
        assert_eq!(
            p1,
            pollster::block_on(t.params()).unwrap(),
            "steps 2–4 have rate 0"
        );
    }

    #[test]
    fn a_toy_test_split_leaves_fewer_training_rows() {
        let config = TrainConfig {
            data: DataConfig::Toy(ToyConfig {
                points: 100,
                test_fraction: 0.3,
                ..Default::default()
            }),
            batch: 71,
            ..Default::default()
        };
        assert!(config.validate().unwrap_err().contains("70 training samples"));
    }
}
