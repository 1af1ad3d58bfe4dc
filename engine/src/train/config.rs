//! What a training session is made of: the data (generated, a CSV of points, or an image set),
//! the model (an MLP or a list of layers), the loss, the optimizer and its schedule, the batch.

use crate::error::Error;
use serde::{Deserialize, Serialize};

use crate::data::features::{self, Feature};
use crate::data::images::ImageSet;
use crate::data::toy::ToyConfig;
use crate::data::Dataset;
use crate::model::{Init, Layer, ModelSpec};
use crate::ops::activation::Activation;
use crate::optim::{Optimizer, Schedule};
use crate::plan::{Loss, PlanConfig, Regularization};
use crate::precision::Precision;

/// Where the training data comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DataConfig {
    /// A generated 2-D set.
    Toy(ToyConfig),
    /// MNIST or Fashion-MNIST from the files setup prepares (`data/{set}-{train,test}.bin`).
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
    ) -> Result<(Dataset, Option<Dataset>), Error> {
        match self {
            DataConfig::Toy(t) => Ok(t.generate_split()),
            DataConfig::Csv(c) => {
                let bytes = read(&c.file).map_err(Error::Unreadable)?;
                let data_error = |why: String| Error::Data {
                    file: c.file.clone(),
                    why,
                };
                let text = String::from_utf8(bytes).map_err(|_| data_error("not UTF-8 text".into()))?;
                let all = crate::data::csv::parse_points(&text).map_err(|e| data_error(e.to_string()))?;
                if c.test_fraction <= 0.0 {
                    return Ok((all, None));
                }
                let (train, test) = all.split(c.test_fraction, c.seed);
                Ok((train, Some(test)))
            }
            DataConfig::Images(c) => {
                if c.set != "mnist" && c.set != "fashion" {
                    return Err(Error::Config(format!(
                        "unknown image set '{}' (mnist or fashion)",
                        c.set
                    )));
                }
                let load = |split: &str, limit: usize| -> Result<Dataset, Error> {
                    let name = format!("{}-{split}.bin", c.set);
                    let bytes = read(&name).map_err(Error::Unreadable)?;
                    let set = ImageSet::parse(&bytes).map_err(|e| Error::Data {
                        file: name.clone(),
                        why: e.to_string(),
                    })?;
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
    /// The formats the step stores its tensors in, and loss scaling (all fp32: left out of
    /// files).
    #[serde(skip_serializing_if = "Precision::is_fp32")]
    pub precision: Precision,
    /// Keeps a pruning mask on the weights (`Trainer::set_mask`): a pruned weight stays zero
    /// through every update (left out of files when off).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub masked: bool,
    /// Clips the gradient to this global norm before the update (0: no clipping; left out of
    /// files then).
    #[serde(skip_serializing_if = "no_clipping")]
    pub clip_norm: f32,
}

fn no_clipping(v: &f32) -> bool {
    *v == 0.0
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
            precision: Precision::default(),
            masked: false,
            clip_norm: 0.0,
        }
    }
}

impl TrainConfig {
    pub fn validate(&self) -> Result<(), Error> {
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return Err(Error::Config(format!(
                "learning rate must be a positive number, got {}",
                self.learning_rate
            )));
        }
        if !(self.clip_norm.is_finite() && self.clip_norm >= 0.0) {
            return Err(Error::Config(format!(
                "the gradient's clipping norm must be 0 (off) or positive, got {}",
                self.clip_norm
            )));
        }
        let rows = self.data.rows().unwrap_or(usize::MAX);
        if self.batch == 0 || self.batch > rows {
            return Err(Error::Config(format!(
                "batch size must be between 1 and the {rows} training samples"
            )));
        }
        if !self.features.is_empty() && self.data.sample_shape() != [2, 1, 1] {
            return Err(Error::Config(
                "input features are computed from 2-D points: this data is not 2-D".into(),
            ));
        }
        self.spec(10).compile().map(|_| ()).map_err(Error::from)
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

    /// The plan settings this config trains `model` with. The data's part (`data_rows`,
    /// `data_packed`, `regression`) and the other passes' sizes are the caller's; here they are
    /// a batch of data, unpacked classes, one prediction row and no landscape.
    pub fn plan_config<'a>(&self, model: &'a crate::model::Compiled) -> PlanConfig<'a> {
        PlanConfig {
            model,
            loss: self.loss,
            regularization: self.regularization,
            seed: self.seed as u32,
            optimizer: self.optimizer,
            batch: self.batch,
            data_rows: self.batch,
            data_packed: false,
            regression: false,
            predict_rows: 1,
            eval_rows: 0,
            eval_batched: false,
            precision: self.precision,
            masked: self.masked,
            clip_norm: self.clip_norm,
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
