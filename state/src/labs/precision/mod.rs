//! The precision lab's settings (`/precision`): the network and data, the optimizer, how long to
//! train, which precisions to compare (presets and a custom one), and the custom one's format per
//! tensor class, rounding and loss scaling. `configs()` turns them into the engine's configs, one
//! per run, identical but for their precision (the same batches from the same weights).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use engine::optim::Optimizer;
use engine::precision::{Format, LossScaling, Precision, Preset, Rounding, DYNAMIC_INTERVAL};
use engine::train::{DataConfig, ImageConfig, TrainConfig};

use crate::lab::LabState;
pub use crate::precision_verdict::{gradient_scale_range, verdict};
use crate::table::{field, hide_field, ranged, text, Setting, Table};

/// The networks offered: the benchmark's two workloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Net {
    /// MLP 784-128-10 (ReLU): W1.
    #[default]
    Mlp,
    /// The LeNet-like CNN: W2.
    Cnn,
}

/// How the custom run scales its loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scaling {
    None,
    Static,
    #[default]
    Dynamic,
    /// Each tensor its own scale from its amax history (FP8 training's recipe).
    Delayed,
}

/// The name of the run built from the custom formats.
pub const CUSTOM: &str = "custom";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PrecisionLab {
    pub net: Net,
    /// "mnist" or "fashion".
    pub data: String,
    #[serde(with = "crate::names::optimizer")]
    pub optimizer: usize,
    pub lr: f32,
    pub batch: usize,
    pub steps: usize,
    /// Training images (the first of the set); the test set is its first 2,000.
    pub images: usize,
    /// The runs to compare: preset names and `custom`, separated by commas.
    pub runs: String,
    pub weights: Format,
    pub activations: Format,
    pub gradients: Format,
    pub state: Format,
    pub master: Format,
    pub rounding: Rounding,
    pub scaling: Scaling,
    /// The static scale, or the dynamic scaler's first (unused by delayed scaling).
    pub scale: f32,
    /// The seed of the weights' initialization and the batches' order (the data keep theirs).
    pub seed: u64,
    /// Where the runs train (the CPU path by default).
    pub backend: crate::lab::Backend,
    pub hide: BTreeSet<String>,
}

impl Default for PrecisionLab {
    fn default() -> Self {
        let mixed = Preset::MixedFp16.precision();
        Self {
            net: Net::Mlp,
            data: "mnist".into(),
            // Adam: its second moment is what naive fp16 loses first.
            optimizer: Optimizer::all()
                .iter()
                .position(|o| matches!(o, Optimizer::Adam { .. }))
                .unwrap_or(0),
            lr: 0.001,
            batch: 64,
            steps: 1000,
            images: 10_000,
            runs: "fp32, fp16, mixed-fp16, mixed-bf16, fp8".into(),
            weights: mixed.weights,
            activations: mixed.activations,
            gradients: mixed.gradients,
            state: mixed.optimizer_state,
            master: mixed.master,
            rounding: Rounding::Nearest,
            scaling: Scaling::Dynamic,
            scale: 65536.0,
            seed: 1,
            backend: crate::lab::Backend::Cpu,
            hide: BTreeSet::new(),
        }
    }
}

/// How the lab trains each run, shared by the page and the native test that asserts its lesson
/// (state/tests/precision_lab.rs), so both measure the same thing: steps per call to the trainer
/// (a run that diverges keeps the losses of the calls before), checks of the formats per run
/// (histograms, lost updates), and the training images the training accuracy is measured on.
pub const RUN_CHUNK: usize = 16;
pub const RUN_CHECKS: usize = 10;
pub const TRAIN_EVAL: usize = 2000;

/// The most floating-point operations one call to the trainer may take: the page draws and
/// answers only between calls, and on the CPU path that is the page's work (`run_chunk`).
pub const CHUNK_FLOPS: f64 = 1e9;

/// Steps per call to the trainer for a step of `flops_per_step` (`lab_sims::timeline::Work`'s
/// count times the batch): `RUN_CHUNK`, or fewer where those would hold the page longer than
/// `CHUNK_FLOPS` of work (a CNN on a large batch), but at least one.
pub fn run_chunk(flops_per_step: f64) -> usize {
    // NaN or nothing to do: the full chunk.
    if flops_per_step.is_nan() || flops_per_step <= 0.0 {
        return RUN_CHUNK;
    }
    ((CHUNK_FLOPS / flops_per_step).floor() as usize).clamp(1, RUN_CHUNK)
}

/// The run names in `text`, or why not.
pub fn parse_runs(text: &str) -> Result<Vec<String>, crate::error::SetupError> {
    let known: Vec<&str> = engine::precision::PRESETS
        .iter()
        .map(|p| p.name())
        .chain([CUSTOM])
        .collect();
    crate::names::parse_names("runs", text, &known, 6)
}

impl PrecisionLab {
    /// The custom run's precision.
    pub fn custom(&self) -> Precision {
        Precision {
            weights: self.weights,
            activations: self.activations,
            gradients: self.gradients,
            optimizer_state: self.state,
            master: self.master,
            rounding: self.rounding,
            loss_scaling: match self.scaling {
                Scaling::None => LossScaling::None,
                Scaling::Static => LossScaling::Static { scale: self.scale },
                Scaling::Dynamic => LossScaling::Dynamic {
                    initial: self.scale,
                    interval: DYNAMIC_INTERVAL,
                },
                Scaling::Delayed => LossScaling::delayed(),
            },
        }
    }

    /// The precision of a run by its name.
    pub fn precision_of(&self, name: &str) -> Precision {
        Preset::parse(name).map_or_else(|| self.custom(), Preset::precision)
    }

    /// The config every run shares, in fp32.
    pub fn base(&self) -> TrainConfig {
        let w = if self.net == Net::Cnn { "W2" } else { "W1" };
        let workload = lab_sims::bench::WORKLOADS
            .iter()
            .find(|x| x.name == w)
            .expect("the benchmark's workloads");
        TrainConfig {
            data: DataConfig::Images(ImageConfig {
                set: self.data.clone(),
                train_limit: self.images,
                test_limit: 2000,
            }),
            optimizer: Optimizer::all()[self.optimizer.min(Optimizer::all().len() - 1)],
            learning_rate: self.lr,
            batch: self.batch,
            shuffle: true,
            seed: self.seed,
            ..(workload.config)()
        }
    }

    /// One config per run (name, config), or what is wrong with the settings.
    pub fn configs(&self) -> Result<Vec<(String, TrainConfig)>, crate::error::SetupError> {
        let names = parse_runs(&self.runs)?;
        let base = self.base();
        base.validate()?;
        Ok(names
            .into_iter()
            .map(|n| {
                let config = TrainConfig {
                    precision: self.precision_of(&n),
                    ..base.clone()
                };
                (n, config)
            })
            .collect())
    }
}

fn check_data(s: &mut PrecisionLab, notices: &mut Vec<String>) {
    crate::lab::check_image_set(&mut s.data, notices);
}

fn check_scale(s: &mut PrecisionLab, notices: &mut Vec<String>) {
    let ok = s.scale.is_finite() && s.scale >= 1.0 && s.scale <= 2f32.powi(60);
    // A power of two: scaling and unscaling are then exact.
    if !ok || s.scale.log2().fract() != 0.0 {
        notices.push(format!(
            "scale={}: a power of two from 1 to 2^60; using 65536",
            s.scale
        ));
        s.scale = 65536.0;
    }
}

impl LabState for PrecisionLab {
    const LAB: &'static str = "precision";
    const VERSION: u32 = 1;
}

/// One row per setting; a control's name is its test id without `prec-`.
impl Table for PrecisionLab {
    const SETTINGS: &'static [Setting<Self>] = &[
        field!("net"),
        field!("data", check_data),
        ranged!("optimizer", optimizer, 0, Optimizer::all().len() - 1),
        ranged!("lr", lr, 1e-6, 10.0),
        ranged!("batch", batch, 1, 1024),
        ranged!("steps", steps, 1, 20_000),
        ranged!("images", images, 100, 60_000),
        text!("runs", Some("runs"), runs, 120, parse_runs),
        field!("weights"),
        field!("activations"),
        field!("gradients"),
        field!("state"),
        field!("master"),
        field!("rounding"),
        field!("scaling"),
        field!("scale", check_scale),
        ranged!("seed", seed, 0, crate::lab::MAX_SEED),
        field!("backend"),
    ];
    const OTHER_CONTROLS: &'static [&'static str] = &["run", "cancel", "inspect"];
    const SHARED_CONTROLS: &'static [&'static str] = crate::table::RECORDED_RUN_CONTROLS;

    hide_field!();

    fn relate(&mut self, notices: &mut Vec<String>) {
        crate::lab::batch_within_images(&mut self.batch, self.images, notices);
    }
}

/// The lab's settings under the name the registry's generated list reads (`build.rs`).
pub type State = PrecisionLab;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_to_the_trainer_is_bounded_by_its_work() {
        // The defaults' MLP (784-128-10, by hand 2·(784·128 + 128·10) a sample forward, twice
        // that backward) at batch 64 keeps the full chunk.
        let mlp = 3.0 * 2.0 * (784.0 * 128.0 + 128.0 * 10.0) * 64.0;
        assert_eq!(run_chunk(mlp), RUN_CHUNK);
        // A step of 4 GFLOP (a CNN on a batch of a thousand) trains alone; one of 0.2 GFLOP five
        // to a call.
        assert_eq!(run_chunk(4e9), 1);
        assert_eq!(run_chunk(2e8), 5);
        assert_eq!(run_chunk(0.0), RUN_CHUNK);
        assert_eq!(run_chunk(f64::NAN), RUN_CHUNK);
    }

    #[test]
    fn the_default_runs_compare_every_preset_on_the_same_batches() {
        let lab = PrecisionLab::default();
        let configs = lab.configs().unwrap();
        let names: Vec<&str> = configs.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["fp32", "fp16", "mixed-fp16", "mixed-bf16", "fp8"]);
        // Identical but for their precision: same seed, data, model, optimizer.
        for (n, c) in &configs {
            assert_eq!(
                TrainConfig {
                    precision: Precision::default(),
                    ..c.clone()
                },
                configs[0].1,
                "{n}"
            );
        }
        assert_eq!(lab.custom(), Preset::MixedFp16.precision());
        assert!(parse_runs("fp32, fp17").unwrap_err().to_string().contains("fp17"));
    }

    /// A link may name the formats as the page shows them (`fp16`), or by their short names.
    #[test]
    fn formats_are_read_by_the_names_the_page_shows() {
        let (lab, notices) = PrecisionLab::from_query("weights=fp16&master=fp32&gradients=f16");
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(
            (lab.weights, lab.master, lab.gradients),
            (Format::F16, Format::F32, Format::F16)
        );
    }
}

crate::lab::runs_on_field!(PrecisionLab);
