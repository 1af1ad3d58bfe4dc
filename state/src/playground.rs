//! The playground lab's state: the data, the network, the training settings and which controls
//! an instructor hid. `to_query`/`from_query` round-trip it through the URL, serde through JSON,
//! and `to_config` turns it into the engine's `TrainConfig`.

use std::collections::BTreeSet;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use engine::data::features::Feature;
use engine::data::toy::{ToyConfig, ToyKind, MAX_CLASSES};
use engine::model::{Init, Layer};
use engine::ops::activation::Activation;
use engine::optim::{Decay, Optimizer, Schedule};
use engine::plan::{Loss, Regularization};
use engine::train::{DataConfig, ModelConfig, TrainConfig};

use crate::query::{encode, Query};

/// Bumped when a field changes meaning; older JSON is refused with a clear message.
pub const VERSION: u32 = 1;
pub const MAX_LAYERS: usize = 8;
pub const MAX_NEURONS: usize = 64;

/// Every control the page has, by the name `<name>_hide=true` hides it with.
pub const CONTROLS: [&str; 30] = [
    "share",
    "dataset",
    "classes",
    "noise",
    "test",
    "points",
    "seed",
    "regenerate",
    "hidden",
    "activation",
    "features",
    "init",
    "loss",
    "optimizer",
    "momentum",
    "beta2",
    "eps",
    "weight_decay",
    "lr",
    "batch",
    "l1",
    "l2",
    "dropout",
    "warmup",
    "decay",
    "backend",
    "show_test",
    "speed",
    "step",
    "export",
];

/// Every setting the URL may carry (and `embed`, which the page itself reads).
const QUERY_KEYS: [&str; 27] = [
    "dataset",
    "classes",
    "points",
    "noise",
    "test",
    "seed",
    "hidden",
    "activation",
    "features",
    "init",
    "loss",
    "optimizer",
    "momentum",
    "beta2",
    "eps",
    "weight_decay",
    "lr",
    "batch",
    "l1",
    "l2",
    "dropout",
    "warmup",
    "decay",
    "decay_steps",
    "backend",
    "show_test",
    "embed",
];

/// Where training runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BackendChoice {
    /// WebGPU for models large enough to gain from it, else the CPU path (measured per model).
    #[default]
    Auto,
    Webgpu,
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
            show_test: false,
            hide: BTreeSet::new(),
        }
    }
}

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
            },
            optimizer: self.optimizer(),
            learning_rate: self.learning_rate,
            schedule: self.schedule(),
            batch: self.batch,
            shuffle: true,
            seed: self.seed,
            init: self.init,
            features: self.features.clone(),
        }
    }

    /// The state as a query string: only what differs from the defaults, so links stay short.
    pub fn to_query(&self) -> String {
        let d = Playground::default();
        let mut pairs: Vec<(String, String)> = Vec::new();
        let mut put = |key: &str, value: String, default: String| {
            if value != default {
                pairs.push((key.to_string(), value));
            }
        };
        let list = |v: &[usize]| v.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
        let features = |v: &[Feature]| v.iter().map(|f| f.key()).collect::<Vec<_>>().join(",");
        put("dataset", self.dataset.key().into(), d.dataset.key().into());
        put("classes", self.classes.to_string(), d.classes.to_string());
        put("points", self.points.to_string(), d.points.to_string());
        put("noise", self.noise.to_string(), d.noise.to_string());
        put("test", self.test_ratio.to_string(), d.test_ratio.to_string());
        put("seed", self.seed.to_string(), d.seed.to_string());
        put("hidden", list(&self.hidden), list(&d.hidden));
        put("activation", key_of(&self.activation), key_of(&d.activation));
        put("features", features(&self.features), features(&d.features));
        put("init", key_of(&self.init), key_of(&d.init));
        put("loss", key_of(&self.loss), key_of(&d.loss));
        put("optimizer", self.optimizer.clone(), d.optimizer.clone());
        put("momentum", self.momentum.to_string(), d.momentum.to_string());
        put("beta2", self.beta2.to_string(), d.beta2.to_string());
        put("eps", self.eps.to_string(), d.eps.to_string());
        put(
            "weight_decay",
            self.weight_decay.to_string(),
            d.weight_decay.to_string(),
        );
        put("lr", self.learning_rate.to_string(), d.learning_rate.to_string());
        put("batch", self.batch.to_string(), d.batch.to_string());
        put("l1", self.l1.to_string(), d.l1.to_string());
        put("l2", self.l2.to_string(), d.l2.to_string());
        put("dropout", self.dropout.to_string(), d.dropout.to_string());
        put("warmup", self.warmup.to_string(), d.warmup.to_string());
        put("decay", self.decay.clone(), d.decay.clone());
        put(
            "decay_steps",
            self.decay_steps.to_string(),
            d.decay_steps.to_string(),
        );
        put("backend", key_of(&self.backend), key_of(&d.backend));
        put("show_test", self.show_test.to_string(), d.show_test.to_string());
        for name in self.hide.iter().filter(|n| CONTROLS.contains(&n.as_str())) {
            pairs.push((format!("{name}_hide"), "true".into()));
        }
        encode(pairs)
    }

    /// Reads a query string. Never fails: what it cannot use keeps its default or is clamped, and
    /// each such value gives a notice to show.
    pub fn from_query(query: &str) -> (Self, Vec<String>) {
        let mut q = Query::parse(query);
        let d = Playground::default();
        let mut s = Playground {
            dataset: q.choice("dataset", ToyKind::from_key, d.dataset),
            classes: q.number("classes", 2, MAX_CLASSES, d.classes),
            points: q.number("points", 10, 2000, d.points),
            noise: q.number("noise", 0.0, 0.5, d.noise),
            test_ratio: q.number("test", 0.0, 0.9, d.test_ratio),
            seed: q.number("seed", 0, u32::MAX as u64, d.seed),
            hidden: d.hidden.clone(),
            activation: q.choice("activation", from_key, d.activation),
            features: d.features.clone(),
            init: q.choice("init", from_key, d.init),
            loss: q.choice("loss", from_key, d.loss),
            optimizer: q
                .choice(
                    "optimizer",
                    |k| OPTIMIZERS.iter().find(|o| **o == k).copied(),
                    "adam",
                )
                .to_string(),
            momentum: q.number("momentum", 0.0, 0.999, d.momentum),
            beta2: q.number("beta2", 0.0, 0.99999, d.beta2),
            eps: q.number("eps", 1e-12, 1.0, d.eps),
            weight_decay: q.number("weight_decay", 0.0, 1.0, d.weight_decay),
            learning_rate: q.number("lr", 1e-5, 10.0, d.learning_rate),
            batch: q.number("batch", 1, 256, d.batch),
            l1: q.number("l1", 0.0, 1.0, d.l1),
            l2: q.number("l2", 0.0, 1.0, d.l2),
            dropout: q.number("dropout", 0.0, 0.9, d.dropout),
            warmup: q.number("warmup", 0, 100_000, d.warmup),
            decay: q
                .choice("decay", |k| DECAYS.iter().find(|o| **o == k).copied(), "constant")
                .to_string(),
            decay_steps: q.number("decay_steps", 1, 1_000_000, d.decay_steps),
            backend: q.choice("backend", from_key, d.backend),
            show_test: q.flag("show_test", d.show_test),
            ..d.clone()
        };
        if let Some(raw) = q.raw("hidden").map(str::to_owned) {
            s.hidden = parse_hidden(&raw, &mut q).unwrap_or(d.hidden);
        }
        if let Some(raw) = q.raw("features").map(str::to_owned) {
            let parsed: Option<Vec<Feature>> = raw
                .split(',')
                .filter(|f| !f.trim().is_empty())
                .map(|f| Feature::from_key(f.trim()))
                .collect();
            match parsed {
                Some(f) if !f.is_empty() => s.features = f,
                _ => q.notice(format!("features={raw} has an unknown or no feature: using x, y")),
            }
        }
        for c in CONTROLS {
            if q.flag(&format!("{c}_hide"), false) {
                s.hide.insert(c.to_string());
            }
        }
        let known: Vec<String> = QUERY_KEYS
            .iter()
            .map(|k| k.to_string())
            .chain(CONTROLS.iter().map(|c| format!("{c}_hide")))
            .collect();
        let unknown: Vec<String> = q
            .keys()
            .filter(|k| !known.iter().any(|n| n == k))
            .map(str::to_owned)
            .collect();
        for k in unknown {
            q.notice(format!("unknown setting '{k}': ignored"));
        }
        (s, q.notices)
    }

    /// Reads the JSON export; refuses other versions and malformed files with a reason.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
        match value.get("version").and_then(|v| v.as_u64()) {
            Some(v) if v == VERSION as u64 => {}
            Some(v) => {
                return Err(format!(
                    "this file is version {v} of the playground state; this lab reads version {VERSION}"
                ))
            }
            None => return Err("not a playground state: no version".into()),
        }
        let s: Playground =
            serde_json::from_value(value).map_err(|e| format!("not a playground state: {e}"))?;
        let (checked, notices) = Playground::from_query(&s.to_query());
        if !notices.is_empty() {
            return Err(notices.join("; "));
        }
        Ok(checked)
    }
}

/// The playground keeps its own URL keys (`lr`, `test`, …); its settings file is the generic
/// one, checked by a trip through the URL.
impl crate::lab::LabState for Playground {
    const LAB: &'static str = "playground";
    const VERSION: u32 = VERSION;
    const CONTROLS: &'static [&'static str] = &CONTROLS;

    fn check(&mut self, notices: &mut Vec<String>) {
        let (checked, n) = Playground::from_query(&Playground::to_query(self));
        notices.extend(n);
        *self = checked;
    }

    fn to_query(&self) -> String {
        Playground::to_query(self)
    }

    fn from_query(query: &str) -> (Self, Vec<String>) {
        Playground::from_query(query)
    }
}

/// "8,8,4": up to 8 layers of 1–64 neurons; "" or "0" means no hidden layer.
fn parse_hidden(raw: &str, q: &mut Query) -> Option<Vec<usize>> {
    if raw.trim().is_empty() || raw.trim() == "0" {
        return Some(Vec::new());
    }
    let mut layers = Vec::new();
    for part in raw.split(',') {
        match part.trim().parse::<usize>() {
            Ok(n) => layers.push(n.clamp(1, MAX_NEURONS)),
            Err(_) => {
                q.notice(format!(
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
        q.notice(format!(
            "hidden={raw}: layers have 1–{MAX_NEURONS} neurons, clamped"
        ));
    }
    if layers.len() > MAX_LAYERS {
        q.notice(format!(
            "hidden={raw}: at most {MAX_LAYERS} hidden layers, the rest dropped"
        ));
        layers.truncate(MAX_LAYERS);
    }
    Some(layers)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn custom() -> Playground {
        Playground {
            dataset: ToyKind::Gaussians,
            classes: 4,
            points: 300,
            noise: 0.2,
            test_ratio: 0.5,
            seed: 42,
            hidden: vec![6, 3, 2],
            activation: Activation::Relu,
            features: vec![Feature::XSquared, Feature::SinY],
            init: Init::He,
            loss: Loss::Mse,
            optimizer: "nesterov".into(),
            momentum: 0.8,
            learning_rate: 0.1,
            batch: 32,
            l1: 0.001,
            l2: 0.01,
            dropout: 0.25,
            warmup: 50,
            decay: "cosine".into(),
            decay_steps: 400,
            beta2: 0.99,
            eps: 1e-6,
            weight_decay: 0.05,
            backend: BackendChoice::Cpu,
            show_test: true,
            hide: ["dataset".to_string(), "lr".to_string()].into(),
            ..Default::default()
        }
    }

    #[test]
    fn round_trips_through_the_url_and_json() {
        for state in [Playground::default(), custom()] {
            let (back, notices) = Playground::from_query(&state.to_query());
            assert_eq!(back, state, "query {}", state.to_query());
            assert!(notices.is_empty(), "{notices:?}");
            let json = serde_json::to_string(&state).unwrap();
            assert_eq!(Playground::from_json(&json).unwrap(), state);
        }
        assert_eq!(
            Playground::default().to_query(),
            "",
            "defaults make an empty query"
        );
        assert!(custom().to_query().contains("dataset_hide=true"));
    }

    #[test]
    fn bad_values_keep_the_default_and_out_of_range_ones_are_clamped_with_notices() {
        let (s, notices) = Playground::from_query(
            "?dataset=banana&lr=abc&noise=7&hidden=8,x&batch=0&classes=9&features=x,wobble&mystery=1&backend=gpu&show_test=maybe",
        );
        let d = Playground::default();
        assert_eq!(
            (s.dataset, s.learning_rate, s.hidden.clone()),
            (d.dataset, d.learning_rate, d.hidden.clone())
        );
        assert_eq!((s.noise, s.batch, s.classes), (0.5, 1, MAX_CLASSES));
        assert_eq!(s.features, d.features);
        assert_eq!(s.backend, d.backend);
        for needle in [
            "dataset=banana",
            "lr=abc",
            "noise=7",
            "hidden=8,x",
            "batch=0",
            "classes=9",
            "features=",
            "'mystery'",
            "backend=gpu",
            "show_test=maybe",
        ] {
            assert!(
                notices.iter().any(|n| n.contains(needle)),
                "no notice for {needle}: {notices:?}"
            );
        }
        let (s, notices) = Playground::from_query("hidden=100,0,1,1,1,1,1,1,1,1");
        assert_eq!(s.hidden, vec![64, 1, 1, 1, 1, 1, 1, 1]);
        assert_eq!(notices.len(), 2, "{notices:?}");
        assert_eq!(Playground::from_query("hidden=").0.hidden, Vec::<usize>::new());
    }

    #[test]
    fn json_of_another_version_or_shape_is_refused_with_a_reason() {
        assert!(Playground::from_json("{").unwrap_err().contains("not valid JSON"));
        assert!(Playground::from_json(r#"{"version": 99}"#)
            .unwrap_err()
            .contains("version 99"));
        assert!(Playground::from_json(r#"{"dataset": "circle"}"#)
            .unwrap_err()
            .contains("no version"));
        assert!(
            Playground::from_json(r#"{"version": 1, "lr": 3}"#).is_ok(),
            "unknown fields are ignored"
        );
        assert!(Playground::from_json(r#"{"version": 1, "noise": 9}"#)
            .unwrap_err()
            .contains("noise"));
    }

    #[test]
    fn the_config_trains_what_the_state_says() {
        let c = custom().to_config();
        assert_eq!(c.learning_rate, 0.1);
        assert_eq!(c.optimizer, Optimizer::Nesterov { momentum: 0.8 });
        assert_eq!(c.features, vec![Feature::XSquared, Feature::SinY]);
        assert_eq!(c.schedule.warmup_steps, 50);
        assert_eq!(
            c.schedule.decay,
            Decay::Cosine {
                total_steps: 400,
                min_factor: 0.0
            }
        );
        let halves = Playground {
            decay: "exponential".into(),
            decay_steps: 100,
            ..Default::default()
        }
        .schedule();
        assert!(
            (halves.lr_at(1.0, 101) - 0.5).abs() < 1e-4,
            "half-life of 100 steps"
        );
        let adamw = Playground {
            optimizer: "adamw".into(),
            ..custom()
        };
        assert_eq!(
            adamw.optimizer(),
            Optimizer::AdamW {
                beta1: 0.8,
                beta2: 0.99,
                eps: 1e-6,
                weight_decay: 0.05
            }
        );
        let ModelConfig::Layers { layers } = &c.model else {
            panic!("dropout needs a layer list")
        };
        assert_eq!(layers.len(), 3 * 3 + 1);
        assert_eq!(layers.last(), Some(&Layer::Dense { units: 4 }));
        assert!(c.validate().is_ok());
        let regression = Playground {
            dataset: ToyKind::Plane,
            ..Default::default()
        };
        assert_eq!(regression.to_config().loss, Loss::Mse);
        assert_eq!(regression.effective_classes(), 1);
    }
}
