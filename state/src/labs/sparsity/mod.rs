//! The sparsity lab's settings (`/sparsity`): the network and data, the optimizer, how long each
//! run trains, and the pruning experiment — rounds of iterative magnitude pruning, the share
//! each round prunes, global or per-layer, and the conditions every round trains (the lottery
//! ticket, its rewound variant, and the paper's two controls). `config()` and `plan()` turn them
//! into the engine's config and the study's plan (`lab_sims::sparsity`).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use engine::ops::activation::Activation;
use engine::optim::Optimizer;
use engine::train::{DataConfig, ImageConfig, ModelConfig, TrainConfig};
use lab_sims::sparsity::lottery::{Condition, LotteryPlan};
use lab_sims::sparsity::masks::Scope;

use crate::lab::LabState;
use crate::table::{field, hide_field, ranged, text, Setting, Table};

/// Test images every run is measured on (the first of the set's test part).
pub const TEST_IMAGES: usize = 2000;
/// Test-accuracy checks per run (and one at step 0).
pub const CHECKS: u64 = 8;
/// Test images predicted per pass (a pass per image would cost a readback each on a GPU).
pub const PREDICT_ROWS: usize = 500;
/// Steps per call to the trainer: the page draws and answers between calls.
pub const CHUNK: usize = 16;

/// The network pruned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Net {
    /// A ReLU MLP of the `hidden` widths.
    #[default]
    Mlp,
    /// The benchmark's small CNN (W2: conv 5×5×8, pool, conv 5×5×16, pool, dense 10).
    Cnn,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SparsityLab {
    pub net: Net,
    /// "mnist" or "fashion".
    pub data: String,
    /// Hidden widths of the ReLU MLP, comma-separated.
    pub hidden: String,
    /// Training images (the first of the set).
    pub images: usize,
    #[serde(with = "crate::names::optimizer")]
    pub optimizer: usize,
    pub lr: f32,
    pub batch: usize,
    /// Steps every run trains.
    pub steps: u64,
    /// Rounds of pruning after the dense run.
    pub rounds: usize,
    /// The share of the remaining weights each round prunes.
    pub prune: f64,
    pub scope: Scope,
    /// The conditions every round trains: `ticket` and any of `rewind`, `reinit`, `random`, `finetune`, `set`,
    /// `rigl`, `structured`.
    pub conditions: String,
    /// The dense run's step a `rewind` run starts from.
    pub rewind_step: u64,
    /// Group lasso's λ on the MLP's hidden neurons (0: none), in every run: it drives whole
    /// neurons toward zero while training, so structured pruning removes less that matters.
    pub group_lasso: f32,
    /// The weights' start and the batches' order (the controls draw from it too).
    pub seed: u64,
    pub backend: crate::lab::Backend,
    pub hide: BTreeSet<String>,
}

impl Default for SparsityLab {
    fn default() -> Self {
        Self {
            net: Net::Mlp,
            data: "mnist".into(),
            hidden: "100".into(),
            images: 5000,
            optimizer: Optimizer::all()
                .iter()
                .position(|o| matches!(o, Optimizer::Adam { .. }))
                .unwrap_or(0),
            // Frankle & Carbin's rate for LeNet-300-100 with Adam.
            lr: 0.0012,
            batch: 64,
            steps: 200,
            rounds: 3,
            prune: 0.5,
            scope: Scope::Global,
            conditions: "ticket, reinit, random, finetune, structured".into(),
            rewind_step: 20,
            group_lasso: 0.0,
            seed: 1,
            backend: crate::lab::Backend::Cpu,
            hide: BTreeSet::new(),
        }
    }
}

/// The hidden widths in `text` (1 to 4 layers of 1 to 1,024), or why not.
pub fn parse_hidden(text: &str) -> Result<Vec<usize>, crate::error::SetupError> {
    let widths: Result<Vec<usize>, _> = text.split([',', ' ']).filter(|s| !s.is_empty()).map(str::parse).collect();
    match widths {
        Ok(w) if (1..=4).contains(&w.len()) && w.iter().all(|n| (1..=1024).contains(n)) => Ok(w),
        _ => Err(crate::error::SetupError::Expected(
            "1 to 4 hidden widths of 1 to 1024, such as 300,100",
        )),
    }
}

/// The conditions in `text`, the ticket among them, or why not.
pub fn parse_conditions(text: &str) -> Result<Vec<Condition>, crate::error::SetupError> {
    let names = crate::names::parse_names("conditions", text, &["ticket", "rewind", "reinit", "random", "finetune", "set", "rigl", "structured"], 8)?;
    if !names.iter().any(|n| n == "ticket") {
        return Err(crate::error::SetupError::Rule {
            setting: "conditions",
            rule: "the ticket carries the pruning from round to round; name it",
        });
    }
    Ok(names.iter().filter_map(|n| Condition::parse(n)).collect())
}

impl SparsityLab {
    /// The config every run trains (a masked trainer: `Trainer::set_mask`).
    pub fn config(&self) -> TrainConfig {
        TrainConfig {
            data: DataConfig::Images(ImageConfig {
                set: self.data.clone(),
                train_limit: self.images,
                test_limit: TEST_IMAGES,
            }),
            model: match self.net {
                Net::Mlp => ModelConfig::Mlp {
                    hidden: parse_hidden(&self.hidden).unwrap_or_else(|_| vec![100]),
                    activation: Activation::Relu,
                },
                Net::Cnn => engine::workloads::w2().model,
            },
            optimizer: Optimizer::all()[self.optimizer.min(Optimizer::all().len() - 1)],
            learning_rate: self.lr,
            batch: self.batch,
            shuffle: true,
            seed: self.seed,
            masked: true,
            regularization: engine::plan::Regularization {
                group: self.group_lasso,
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// The experiment: rounds, pruning, the conditions and when each run is measured.
    pub fn plan(&self) -> LotteryPlan {
        LotteryPlan {
            rounds: self.rounds,
            prune: self.prune,
            scope: self.scope,
            steps: self.steps,
            eval_every: (self.steps / CHECKS).max(1),
            rewind_step: self.rewind_step.min(self.steps),
            conditions: parse_conditions(&self.conditions).unwrap_or_else(|_| vec![Condition::Ticket]),
            seed: self.seed,
        }
    }
}

fn check_data(s: &mut SparsityLab, notices: &mut Vec<String>) {
    crate::lab::check_image_set(&mut s.data, notices);
}

impl LabState for SparsityLab {
    const LAB: &'static str = "sparsity";
    const VERSION: u32 = 1;
}

/// One row per setting; a control's name is its test id without `sparse-`.
impl Table for SparsityLab {
    const SETTINGS: &'static [Setting<Self>] = &[
        field!("net"),
        field!("data", check_data),
        text!("hidden", Some("hidden"), hidden, 40, parse_hidden),
        ranged!("images", images, 100, 60_000),
        ranged!("optimizer", optimizer, 0, Optimizer::all().len() - 1),
        ranged!("lr", lr, 1e-6, 10.0),
        ranged!("batch", batch, 1, 1024),
        ranged!("steps", steps, 1, 20_000),
        ranged!("rounds", rounds, 1, 10),
        ranged!("prune", prune, 0.05, 0.95),
        field!("scope"),
        text!("conditions", Some("conditions"), conditions, 60, parse_conditions),
        ranged!("rewind_step", rewind_step, 0, 20_000),
        ranged!("group_lasso", group_lasso, 0.0, 1.0),
        ranged!("seed", seed, 0, crate::lab::MAX_SEED),
        field!("backend"),
    ];
    const OTHER_CONTROLS: &'static [&'static str] = &["run", "cancel", "show"];
    const SHARED_CONTROLS: &'static [&'static str] = crate::table::RECORDED_RUN_CONTROLS;

    hide_field!();

    fn relate(&mut self, notices: &mut Vec<String>) {
        crate::lab::batch_within_images(&mut self.batch, self.images, notices);
        if self.rewind_step > self.steps {
            notices.push(format!(
                "rewind_step={} is past the {} steps: using {}",
                self.rewind_step, self.steps, self.steps
            ));
            self.rewind_step = self.steps;
        }
    }
}

crate::lab::runs_on_field!(SparsityLab);

/// The lab's settings under the name the registry's generated list reads (`build.rs`).
pub type State = SparsityLab;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_widths_and_conditions_are_refused_with_a_reason() {
        assert_eq!(parse_hidden("300, 100").unwrap(), vec![300, 100]);
        assert!(parse_hidden("0").is_err() && parse_hidden("1,2,3,4,5").is_err() && parse_hidden("x").is_err());
        assert!(parse_conditions("reinit, random").unwrap_err().to_string().contains("ticket"));
        assert!(parse_conditions("ticket, lucky").unwrap_err().to_string().contains("lucky"));
        let (lab, notices) = SparsityLab::from_query("hidden=abc&rewind_step=900&steps=100");
        assert_eq!((lab.hidden.as_str(), lab.rewind_step), ("100", 100));
        assert_eq!(notices.len(), 2, "{notices:?}");
    }

    #[test]
    fn the_defaults_train_three_rounds_of_five_conditions_after_the_dense_run() {
        let plan = SparsityLab::default().plan();
        assert_eq!(plan.jobs().len(), 1 + 3 * 5);
        // 1 − 0.5³: seven eighths pruned at the last round.
        assert_eq!(plan.sparsity_at(3), 0.875);
    }
}
