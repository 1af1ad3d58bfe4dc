//! The playground lab's state: the data, the network, the training settings and which controls
//! an instructor hid. `to_query`/`from_query` round-trip it through the URL, serde through JSON,
//! and `to_config` turns it into the engine's `TrainConfig`.

use crate::error::SettingsError;
use std::collections::BTreeSet;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use engine::data::features::Feature;
use engine::data::toy::{ToyConfig, ToyKind};
use engine::model::{Init, Layer};
use engine::ops::activation::Activation;
use engine::optim::{Decay, Optimizer, Schedule};
use engine::plan::{Loss, Regularization};
use engine::train::{DataConfig, ModelConfig, TrainConfig};

/// Bumped when a field changes meaning; older JSON is refused with a clear message.
pub const VERSION: u32 = 1;
pub const MAX_LAYERS: usize = 8;
pub const MAX_NEURONS: usize = 64;

mod table;
/// The lab's settings under the name the registry's generated list reads (`build.rs`).
pub type State = Playground;

#[cfg(test)]
mod tests;

pub use table::{CONTROLS, SETTINGS};

/// Where training runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BackendChoice {
    /// WebGPU for models large enough to gain from it, else the CPU path (measured per model).
    #[default]
    Auto,
    /// (`true`: how links read before "auto" existed, when the choice was a yes/no.)
    #[serde(alias = "true")]
    Webgpu,
    #[serde(alias = "false")]
    Cpu,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Playground {
    pub version: u32,
    pub dataset: ToyKind,
    pub classes: usize,
    pub points: usize,
    pub noise: f32,
    /// Share of the points held out for testing.
    pub test_ratio: f32,
    pub seed: u64,
    /// Neurons per hidden layer (0 to 8 layers).
    pub hidden: Vec<usize>,
    pub activation: Activation,
    pub features: Vec<Feature>,
    pub init: Init,
    pub loss: Loss,
    /// `sgd`, `momentum`, `nesterov`, `adagrad`, `rmsprop`, `adam`, `adamw`, `lars`.
    pub optimizer: String,
    /// Momentum of momentum, Nesterov and LARS; β₁ of Adam and AdamW.
    pub momentum: f32,
    /// β₂ of Adam and AdamW; the decay β of RMSProp.
    pub beta2: f32,
    /// ε of AdaGrad, RMSProp, Adam and AdamW.
    pub eps: f32,
    /// Decoupled weight decay of AdamW and LARS.
    pub weight_decay: f32,
    pub learning_rate: f32,
    pub batch: usize,
    pub l1: f32,
    pub l2: f32,
    /// Dropout after every hidden layer (0: none).
    pub dropout: f32,
    /// Linear warmup steps in front of the decay.
    pub warmup: u32,
    /// `constant`, `step` (halve every `decay_steps`), `exponential` (half-life `decay_steps`),
    /// `cosine` (to zero over `decay_steps`).
    pub decay: String,
    pub decay_steps: u32,
    pub backend: BackendChoice,
    /// Steps trained per animation frame: `1`, `5`, `25`, or `max` (as many as fit in the
    /// frame). A lesson that measures after thousands of steps sets `25`.
    pub speed: String,
    pub show_test: bool,
    /// Controls the instructor hid.
    pub hide: BTreeSet<String>,
}

impl Default for Playground {
    fn default() -> Self {
        Self {
            version: VERSION,
            dataset: ToyKind::Spiral,
            classes: 2,
            points: 400,
            noise: 0.05,
            test_ratio: 0.3,
            seed: 1,
            hidden: vec![8, 8],
            activation: Activation::Tanh,
            features: vec![Feature::X, Feature::Y],
            init: Init::Auto,
            loss: Loss::CrossEntropy,
            optimizer: "adam".into(),
            momentum: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: 0.01,
            learning_rate: 0.03,
            batch: 16,
            l1: 0.0,
            l2: 0.0,
            dropout: 0.0,
            warmup: 0,
            decay: "constant".into(),
            decay_steps: 1000,
            backend: BackendChoice::Auto,
            speed: "5".into(),
            show_test: false,
            hide: BTreeSet::new(),
        }
    }
}

/// The speeds a link may set (`Playground::speed`), slowest first.
pub const SPEEDS: [&str; 4] = ["1", "5", "25", "max"];

pub const OPTIMIZERS: [&str; 8] = [
    "sgd", "momentum", "nesterov", "adagrad", "rmsprop", "adam", "adamw", "lars",
];
pub const DECAYS: [&str; 4] = ["constant", "step", "exponential", "cosine"];

/// A unit enum's serde name ("leaky_relu"), and back.
fn key_of<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|j| j.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn from_key<T: DeserializeOwned>(key: &str) -> Option<T> {
    serde_json::from_value(serde_json::Value::String(key.to_owned())).ok()
}

impl Playground {
    /// Classes the data set actually has (regression: one output).
    pub fn effective_classes(&self) -> usize {
        if self.dataset.is_regression() {
            1
        } else {
            self.classes.clamp(2, self.dataset.max_classes())
        }
    }

    /// The loss training uses: regression sets always train on MSE.
    pub fn effective_loss(&self) -> Loss {
        if self.dataset.is_regression() {
            Loss::Mse
        } else {
            self.loss
        }
    }

    /// Whether the chosen optimizer reads hyper-parameter `name` (`momentum`, `beta2`, `eps`,
    /// `weight_decay`), as `optimizer()` builds it: the page shows only those that apply.
    pub fn uses(&self, name: &str) -> bool {
        let o = self.optimizer.as_str();
        match name {
            "momentum" => matches!(o, "momentum" | "nesterov" | "adam" | "adamw" | "lars"),
            "beta2" => matches!(o, "rmsprop" | "adam" | "adamw"),
            "eps" => matches!(o, "adagrad" | "rmsprop" | "adam" | "adamw"),
            "weight_decay" => matches!(o, "adamw" | "lars"),
            _ => true,
        }
    }

    /// Whether going from `before` to these settings needs a fresh model. Changes of how the
    /// model trains (learning rate, optimizer and its hyper-parameters, schedule, regularization
    /// rates, batch size, loss, backend) apply to the running model, as in TensorFlow Playground; the
    /// data, the features and the architecture start afresh. A setting added later resets
    /// unless it is listed here.
    pub fn resets_model(&self, before: &Playground) -> bool {
        let mut live = before.clone();
        live.optimizer = self.optimizer.clone();
        live.momentum = self.momentum;
        live.beta2 = self.beta2;
        live.eps = self.eps;
        live.weight_decay = self.weight_decay;
        live.learning_rate = self.learning_rate;
        live.batch = self.batch;
        live.l1 = self.l1;
        live.l2 = self.l2;
        live.warmup = self.warmup;
        live.decay = self.decay.clone();
        live.decay_steps = self.decay_steps;
        live.backend = self.backend;
        live.speed = self.speed.clone();
        live.loss = self.loss;
        live.show_test = self.show_test;
        live.hide = self.hide.clone();
        live != *self
    }

    pub fn optimizer(&self) -> Optimizer {
        let (m, b2, eps, wd) = (self.momentum, self.beta2, self.eps, self.weight_decay);
        match self.optimizer.as_str() {
            "sgd" => Optimizer::Sgd,
            "momentum" => Optimizer::Momentum { momentum: m },
            "nesterov" => Optimizer::Nesterov { momentum: m },
            "adagrad" => Optimizer::AdaGrad { eps },
            "rmsprop" => Optimizer::RmsProp { beta: b2, eps },
            "adamw" => Optimizer::AdamW {
                beta1: m,
                beta2: b2,
                eps,
                weight_decay: wd,
            },
            "lars" => Optimizer::Lars {
                momentum: m,
                weight_decay: wd,
            },
            _ => Optimizer::Adam {
                beta1: m,
                beta2: b2,
                eps,
            },
        }
    }

    /// Warmup, then the chosen decay (`decay_steps` sets its pace).
    pub fn schedule(&self) -> Schedule {
        let n = self.decay_steps.max(1);
        let decay = match self.decay.as_str() {
            "step" => Decay::Step { every: n, gamma: 0.5 },
            "exponential" => Decay::Exponential {
                gamma: 0.5f32.powf(1.0 / n as f32),
            },
            "cosine" => Decay::Cosine {
                total_steps: n,
                min_factor: 0.0,
            },
            _ => Decay::Constant,
        };
        Schedule {
            warmup_steps: self.warmup,
            warmup_start: 0.0,
            decay,
        }
    }

    pub fn toy(&self) -> ToyConfig {
        ToyConfig {
            kind: self.dataset,
            points: self.points,
            noise: self.noise,
            seed: self.seed,
            test_fraction: self.test_ratio,
            classes: self.effective_classes(),
        }
    }

    /// The engine's training config for this state.
    pub fn to_config(&self) -> TrainConfig {
        let model = if self.dropout > 0.0 {
            let mut layers = Vec::new();
            for &units in &self.hidden {
                layers.push(Layer::Dense { units });
                layers.push(Layer::Activation {
                    kind: self.activation,
                });
                layers.push(Layer::Dropout { rate: self.dropout });
            }
            layers.push(Layer::Dense {
                units: self.effective_classes(),
            });
            ModelConfig::Layers { layers }
        } else {
            ModelConfig::Mlp {
                hidden: self.hidden.clone(),
                activation: self.activation,
            }
        };
        TrainConfig {
            data: DataConfig::Toy(self.toy()),
            model,
            loss: self.effective_loss(),
            regularization: Regularization {
                l1: self.l1,
                l2: self.l2,
                group: 0.0,
            },
            optimizer: self.optimizer(),
            learning_rate: self.learning_rate,
            schedule: self.schedule(),
            batch: self.batch,
            shuffle: true,
            seed: self.seed,
            init: self.init,
            features: self.features.clone(),
            precision: Default::default(),
            masked: false,
            clip_norm: 0.0,
        }
    }

    /// The state as a query string: only what differs from the defaults (see `table`).
    pub fn to_query(&self) -> String {
        crate::table::to_query(self)
    }

    /// Reads a query string. Never fails: what it cannot use keeps its default or is clamped, and
    /// each such value gives a notice to show.
    pub fn from_query(query: &str) -> (Self, Vec<String>) {
        crate::table::from_query(query)
    }

    /// Every value brought into range (the page's controls and files go through this too), with
    /// a notice for each change.
    pub fn checked(mut self) -> (Self, Vec<String>) {
        let mut notices = Vec::new();
        crate::table::check(&mut self, &mut notices);
        (self, notices)
    }

    /// Reads the JSON export; refuses other versions and malformed files with a reason.
    pub fn from_json(text: &str) -> Result<Self, SettingsError> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| SettingsError::NotJson(e.to_string()))?;
        let (lab, reads) = ("playground", VERSION);
        match value.get("version").and_then(|v| v.as_u64()) {
            Some(v) if v == VERSION as u64 => {}
            Some(version) if version > VERSION as u64 => return Err(SettingsError::Newer { version, lab, reads }),
            Some(version) => {
                let version = version as u32;
                return Err(SettingsError::Older { version, lab, reads });
            }
            None => return Err(SettingsError::Unnamed { lab, missing: "version" }),
        }
        let s: Playground = serde_json::from_value(value).map_err(|e| SettingsError::Fields {
            lab,
            why: e.to_string(),
        })?;
        let (checked, notices) = s.checked();
        if !notices.is_empty() {
            return Err(SettingsError::OutOfRange(notices));
        }
        Ok(checked)
    }
}

/// The playground keeps its own URL keys (`lr`, `test`, …, from `table`); its settings file is
/// the generic one, checked by the table.
impl crate::lab::LabState for Playground {
    const LAB: &'static str = "playground";
    const VERSION: u32 = VERSION;
}

/// "8,8,4": up to 8 layers of 1–64 neurons; "" or "0" means no hidden layer.
fn parse_hidden(raw: &str, notices: &mut Vec<String>) -> Option<Vec<usize>> {
    if raw.trim().is_empty() || raw.trim() == "0" {
        return Some(Vec::new());
    }
    let mut layers = Vec::new();
    for part in raw.split(',') {
        match part.trim().parse::<usize>() {
            Ok(n) => layers.push(n.clamp(1, MAX_NEURONS)),
            Err(_) => {
                notices.push(format!(
                    "hidden={raw} should be neuron counts like 8,8: using the default"
                ));
                return None;
            }
        }
    }
    if raw
        .split(',')
        .any(|p| p.trim().parse::<usize>().is_ok_and(|n| n == 0 || n > MAX_NEURONS))
    {
        notices.push(format!(
            "hidden={raw}: layers have 1–{MAX_NEURONS} neurons, clamped"
        ));
    }
    if layers.len() > MAX_LAYERS {
        notices.push(format!(
            "hidden={raw}: at most {MAX_LAYERS} hidden layers, the rest dropped"
        ));
        layers.truncate(MAX_LAYERS);
    }
    Some(layers)
}
