//! The scaling lab's settings (`/scaling`): which network and data, the batch sizes and learning-
//! rate factors of the sweep, the scaling rule, warmup and the target. `sweep()` turns them into
//! the engine's `Sweep`, or says what is wrong.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use engine::optim::Optimizer;
use lab_sims::scaling::{Rule, RunResult, Sweep, Target};

use crate::error::SetupError;
use crate::lab::LabState;
use crate::landscape::{Data, Landscape, Network};
use crate::table::{field, hide_field, no_check, ranged, text, Setting, Table};

/// The settings the page edits (the engine's `Sweep` is built from them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ScalingLab {
    pub network: Network,
    pub data: Data,
    #[serde(with = "crate::names::optimizer")]
    pub optimizer: usize,
    pub batches: String,
    pub base_lr: f32,
    pub base_batch: usize,
    pub lr_factors: String,
    pub rule: Rule,
    pub warmup_epochs: f32,
    pub target_accuracy: bool,
    pub target: f32,
    pub max_steps: usize,
    pub noise_every: usize,
    /// Controls an instructor hid.
    /// The seed of the weights' initialization and the batches' order (the data keep theirs).
    pub seed: u64,
    /// Where the runs train (the CPU path by default).
    pub backend: crate::lab::Backend,
    pub hide: BTreeSet<String>,
}

impl Default for ScalingLab {
    fn default() -> Self {
        Self {
            // The circle with momentum: every batch reaches the target within seconds on the
            // CPU path, and the steps to it fall, then flatten, as the batch grows.
            network: Network::Toy,
            data: Data::Toy(engine::data::toy::ToyKind::Circle),
            optimizer: 1,
            batches: "8, 16, 32, 64, 128, 256".into(),
            base_lr: 0.05,
            base_batch: 8,
            lr_factors: "1".into(),
            rule: Rule::Sqrt,
            warmup_epochs: 0.0,
            target_accuracy: false,
            target: 0.05,
            max_steps: 3000,
            noise_every: 25,
            seed: 1,
            backend: crate::lab::Backend::Cpu,
            hide: BTreeSet::new(),
        }
    }
}

fn numbers<T: std::str::FromStr>(text: &str, setting: &'static str) -> Result<Vec<T>, SetupError> {
    text.split([',', ' '])
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse().map_err(|_| SetupError::NotA {
                setting,
                text: s.to_string(),
                kind: "a number",
            })
        })
        .collect()
}

/// The sweep's batch sizes, or why not.
/// The critical batch B_simple the page reports (`b-simple`): the late B_simple (the window of the
/// last measurements) of the run that measured at the smallest batch.
pub fn critical_batch(runs: &[RunResult]) -> Option<f64> {
    runs.iter()
        .filter(|r| !r.noise_scale.is_empty())
        .min_by_key(|r| r.batch)
        .and_then(|r| r.noise_scale.last().map(|p| p.1))
}

pub fn parse_batches(text: &str) -> Result<Vec<usize>, SetupError> {
    let batches: Vec<usize> = numbers(text, "batch sizes")?;
    if batches.is_empty() || batches.iter().any(|b| !(1..=4096).contains(b)) {
        return Err(SetupError::Rule {
            setting: "batch sizes",
            rule: "whole numbers from 1 to 4096, separated by commas",
        });
    }
    Ok(batches)
}

/// The learning-rate factors, or why not.
pub fn parse_factors(text: &str) -> Result<Vec<f32>, SetupError> {
    let factors: Vec<f32> = numbers(text, "learning-rate factors")?;
    if factors.is_empty() || factors.len() > 8 || factors.iter().any(|f| !(1e-3..=1e3).contains(f)) {
        return Err(SetupError::Rule {
            setting: "learning-rate factors",
            rule: "1 to 8 numbers from 0.001 to 1000",
        });
    }
    Ok(factors)
}

impl ScalingLab {
    /// The sweep, or what is wrong with the settings.
    pub fn sweep(&self) -> Result<Sweep, SetupError> {
        let batches = parse_batches(&self.batches)?;
        let lr_factors = parse_factors(&self.lr_factors)?;
        if !(self.base_lr.is_finite() && self.base_lr > 0.0) {
            return Err(SetupError::Rule {
                setting: "base learning rate",
                rule: "a positive number",
            });
        }
        let optimizer = Optimizer::all()[self.optimizer.min(Optimizer::all().len() - 1)];
        let shape = Landscape {
            network: self.network,
            data: self.data,
            ..Default::default()
        };
        let base = engine::train::TrainConfig {
            optimizer,
            seed: self.seed,
            ..shape.to_config(self.base_batch)
        };
        Ok(Sweep {
            base,
            batches,
            base_lr: self.base_lr,
            base_batch: self.base_batch.max(1),
            lr_factors,
            rule: self.rule,
            warmup_epochs: self.warmup_epochs.max(0.0),
            target: if self.target_accuracy {
                Target::Accuracy(self.target)
            } else {
                Target::Loss(self.target)
            },
            max_steps: self.max_steps.clamp(1, 100_000),
            noise_every: self.noise_every,
            noise_k: 8,
        })
    }
}

impl LabState for ScalingLab {
    const LAB: &'static str = "scaling";
    /// 2: choices by name (`optimizer=adam`); version 1 wrote indices, which `crate::names`
    /// still reads.
    const VERSION: u32 = 2;

    fn upgrade(
        version: u32,
        settings: serde_json::Value,
    ) -> Result<serde_json::Value, crate::lab::SettingsError> {
        crate::lab::upgrade_named::<Self>(version, settings)
    }
}

/// One row per setting; a control's name is its test id without `scale-`.
impl Table for ScalingLab {
    const SETTINGS: &'static [Setting<Self>] = &[
        // The page's one "network and data" menu sets both, and hides with `data`.
        field!("network", None, no_check),
        field!("data"),
        ranged!("optimizer", optimizer, 0, Optimizer::all().len() - 1),
        text!("batches", Some("batches"), batches, 200, parse_batches),
        ranged!("base_lr", Some("lr"), base_lr, 1e-6, 10.0),
        ranged!("base_batch", Some("base-batch"), base_batch, 1, 4096),
        text!("lr_factors", Some("factors"), lr_factors, 200, parse_factors),
        field!("rule"),
        ranged!("warmup_epochs", Some("warmup"), warmup_epochs, 0.0, 100.0),
        field!("target_accuracy", Some("target-kind"), no_check),
        ranged!("target", target, 0.0, 10.0),
        ranged!("max_steps", Some("max-steps"), max_steps, 1, 100_000),
        ranged!("noise_every", Some("noise-every"), noise_every, 0, 10_000),
        ranged!("seed", seed, 0, crate::lab::MAX_SEED),
        field!("backend"),
    ];
    const OTHER_CONTROLS: &'static [&'static str] = &[
        "run",
        "cancel",
        "export-csv",
        "export-record",
        "export-config",
        "load",
        "share",
        "lesson",
    ];

    hide_field!();

    fn relate(&mut self, notices: &mut Vec<String>) {
        if self.network == Network::Playground {
            notices.push("network=playground is not offered here: using the 2-D MLP".into());
            self.network = Network::Toy;
        }
        if self.network.reads_images() != self.data.is_images() {
            notices.push(format!(
                "data={} does not fit this network: using its data",
                self.data.key()
            ));
            self.data = if self.network.reads_images() {
                Data::Mnist
            } else {
                ScalingLab::default().data
            };
        }
    }
}

crate::lab::runs_on_field!(ScalingLab);

/// The lab's settings under the name the registry's generated list reads (`build.rs`).
pub type State = ScalingLab;
