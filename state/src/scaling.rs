//! The scaling lab's settings (`/scaling`): which network and data, the batch sizes and learning-
//! rate factors of the sweep, the scaling rule, warmup and the target. `sweep()` turns them into
//! the engine's `Sweep`, or says what is wrong.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use engine::optim::Optimizer;
use engine::scaling::{Rule, Sweep, Target};

use crate::lab::{clamp, shorten, LabState};
use crate::landscape::{Data, Landscape, Network};

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
            hide: BTreeSet::new(),
        }
    }
}

fn numbers<T: std::str::FromStr>(text: &str, what: &str) -> Result<Vec<T>, String> {
    text.split([',', ' '])
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().map_err(|_| format!("{what}: '{s}' is not a number")))
        .collect()
}

impl ScalingLab {
    /// The sweep, or what is wrong with the settings.
    pub fn sweep(&self) -> Result<Sweep, String> {
        let batches: Vec<usize> = numbers(&self.batches, "batch sizes")?;
        if batches.is_empty() || batches.iter().any(|b| !(1..=4096).contains(b)) {
            return Err("batch sizes: whole numbers from 1 to 4096, separated by commas".into());
        }
        let lr_factors: Vec<f32> = numbers(&self.lr_factors, "learning-rate factors")?;
        if lr_factors.iter().any(|f| !(f.is_finite() && *f > 0.0)) || lr_factors.len() > 8 {
            return Err("learning-rate factors: up to 8 positive numbers".into());
        }
        if !(self.base_lr.is_finite() && self.base_lr > 0.0) {
            return Err("the base learning rate must be a positive number".into());
        }
        let optimizer = Optimizer::all()[self.optimizer.min(Optimizer::all().len() - 1)];
        let shape = Landscape {
            network: self.network,
            data: self.data,
            ..Default::default()
        };
        let base = engine::train::TrainConfig {
            optimizer,
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
    /// Test-id suffixes of the page's controls and charts (`<prefix>-<name>`).
    const CONTROLS: &'static [&'static str] = &[
        "data",
        "optimizer",
        "batches",
        "lr",
        "base-batch",
        "rule",
        "factors",
        "warmup",
        "target-kind",
        "target",
        "max-steps",
        "noise-every",
        "backend",
        "run",
        "cancel",
        "export-csv",
        "export-record",
        "export-config",
        "load",
        "share",
    ];

    fn upgrade(version: u32, settings: serde_json::Value) -> Result<serde_json::Value, String> {
        // Version 1's indices are read by the fields' `crate::names` adapters as they are.
        match version {
            1 => Ok(settings),
            v => Err(crate::lab::unreadable::<Self>(v)),
        }
    }

    fn check(&mut self, notices: &mut Vec<String>) {
        if self.network == Network::Playground {
            notices.push("network=playground is not offered here: using the 2-D MLP".into());
            self.network = Network::Toy;
        }
        if self.network.reads_images() != self.data.is_images() {
            let d = ScalingLab::default();
            notices.push(format!(
                "data={} does not fit this network: using its data",
                self.data.key()
            ));
            self.data = if self.network.reads_images() {
                Data::Mnist
            } else {
                d.data
            };
        }
        clamp(
            notices,
            "optimizer",
            &mut self.optimizer,
            0,
            Optimizer::all().len() - 1,
        );
        clamp(notices, "base_lr", &mut self.base_lr, 1e-6, 10.0);
        clamp(notices, "base_batch", &mut self.base_batch, 1, 4096);
        clamp(notices, "warmup_epochs", &mut self.warmup_epochs, 0.0, 100.0);
        clamp(notices, "target", &mut self.target, 0.0, 10.0);
        clamp(notices, "max_steps", &mut self.max_steps, 1, 100_000);
        clamp(notices, "noise_every", &mut self.noise_every, 0, 10_000);
        shorten(notices, "batches", &mut self.batches, 200);
        shorten(notices, "lr_factors", &mut self.lr_factors, 200);
    }
}
