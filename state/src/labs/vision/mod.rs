//! The vision lab's settings (`/vision`): data set and size, architecture (a preset or the layer
//! language), optimizer, learning rate, batch, epochs, seed and backend.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use engine::optim::Optimizer;
use engine::train::{DataConfig, ImageConfig, ModelConfig, TrainConfig};

use crate::lab::{nearest, one_of, LabState};
use crate::layers::{self, PRESETS};
use crate::table::{field, hide_field, no_check, ranged, text, Setting, Table};

/// Test images scored at each epoch's end and in the confusion matrix: the whole test set.
pub const TEST_IMAGES: usize = 10_000;
/// Training-set sizes offered.
pub const TRAIN_SIZES: [usize; 5] = [500, 2_000, 10_000, 30_000, 60_000];

const DIGITS: [&str; 10] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];
const FASHION: [&str; 10] = [
    "T-shirt/top",
    "Trouser",
    "Pullover",
    "Dress",
    "Coat",
    "Sandal",
    "Shirt",
    "Sneaker",
    "Bag",
    "Ankle boot",
];

/// The names of a data set's ten classes, as the page writes them (the `hardest-class` and
/// `most-confused` metrics, `3 as 5`, are made of them).
pub fn class_names(set: &str) -> &'static [&'static str; 10] {
    if set == "fashion" {
        &FASHION
    } else {
        &DIGITS
    }
}

/// What the page edits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct VisionLab {
    pub set: String,
    pub train: usize,
    #[serde(with = "crate::names::preset")]
    pub preset: usize,
    pub layers: String,
    #[serde(with = "crate::names::optimizer")]
    pub optimizer: usize,
    pub lr: f32,
    pub batch: usize,
    pub epochs: usize,
    /// The weights' start and the batches' order (a lesson pins it, a test varies it).
    pub seed: u64,
    /// Where it trains: auto (the faster, timed per model), WebGPU or the CPU path.
    pub webgpu: crate::playground::BackendChoice,
    /// Controls an instructor hid.
    pub hide: BTreeSet<String>,
}

fn adam_index() -> usize {
    Optimizer::all()
        .iter()
        .position(|o| matches!(o, Optimizer::Adam { .. }))
        .unwrap_or(0)
}

impl Default for VisionLab {
    fn default() -> Self {
        Self {
            set: "mnist".into(),
            train: 10_000,
            preset: 1,
            layers: PRESETS[1].2.into(),
            optimizer: adam_index(),
            lr: 0.001,
            batch: 64,
            epochs: PRESETS[1].3,
            seed: 1,
            webgpu: crate::playground::BackendChoice::Auto,
            hide: BTreeSet::new(),
        }
    }
}

impl VisionLab {
    pub fn config(&self) -> Result<TrainConfig, crate::error::SetupError> {
        let layers = layers::parse(&self.layers, 10)?;
        Ok(TrainConfig {
            data: DataConfig::Images(ImageConfig {
                set: self.set.clone(),
                train_limit: self.train,
                test_limit: TEST_IMAGES,
            }),
            model: ModelConfig::Layers { layers },
            optimizer: Optimizer::all()[self.optimizer.min(Optimizer::all().len() - 1)],
            learning_rate: self.lr,
            batch: self.batch,
            shuffle: true,
            seed: self.seed,
            ..Default::default()
        })
    }
}

impl LabState for VisionLab {
    const LAB: &'static str = "vision";
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

/// One row per setting; a control's name is its test id without `vision-`.
impl Table for VisionLab {
    const SETTINGS: &'static [Setting<Self>] = &[
        field!("set", |s, n| one_of(n, "set", &mut s.set, &["mnist", "fashion"])),
        field!("train", |s, n| nearest(n, "train", &mut s.train, &TRAIN_SIZES)),
        Setting {
            key: "preset",
            hides: Some("preset"),
            write: |s| crate::table::field_text(s, "preset"),
            // A preset brings its layers and epochs, unless the link sets them too (their rows
            // come later).
            read: |s, raw, notices| {
                crate::table::read_field(s, "preset", raw, notices);
                let p = PRESETS[s.preset.min(PRESETS.len() - 1)];
                (s.layers, s.epochs) = (p.2.into(), p.3);
            },
            check: |s, notices| crate::lab::clamp(notices, "preset", &mut s.preset, 0, PRESETS.len() - 1),
        },
        text!("layers", Some("layers"), layers, 500, |l: &str| layers::parse(
            l, 10
        )
        .map(|_| ())),
        ranged!("optimizer", optimizer, 0, Optimizer::all().len() - 1),
        ranged!("lr", lr, 1e-6, 10.0),
        ranged!("batch", batch, 1, 1024),
        ranged!("epochs", epochs, 1, 100),
        ranged!("seed", seed, 0, crate::lab::MAX_SEED),
        field!("webgpu", Some("backend"), no_check),
    ];
    const OTHER_CONTROLS: &'static [&'static str] = &[
        "run",
        "stop",
        "save",
        "load",
        "pad",
        "share",
        "misses",
        "confusion",
        "maps",
        "filters",
        "lesson",
    ];

    hide_field!();
}

/// The lab's settings under the name the registry's generated list reads (`build.rs`).
pub type State = VisionLab;
