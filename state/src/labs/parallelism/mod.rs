//! The memory and parallelism lab's settings (`/parallelism`): the network (a deep MLP) and its
//! training, the simulated devices (memory, speed, link), and the ways to lay the step over them:
//! checkpointing, ZeRO on data-parallel workers, a pipeline of stages and micro-batches, and the
//! fastest layout a device budget allows. `layouts()` turns them into the engine's layouts.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use engine::collectives::Link;
use engine::ops::activation::Activation;
use engine::optim::{Decay, Optimizer, Schedule as LrSchedule};
use engine::train::{DataConfig, ImageConfig, ModelConfig, TrainConfig};
use lab_sims::parallelism::layout::{estimate, Estimate, Layout, Machine};
use lab_sims::parallelism::pipeline::Schedule;
use lab_sims::parallelism::zero::Stage;

use crate::lab::LabState;
use crate::table::{field, hide_field, ranged, text, Setting, Table};

mod verdict;
pub use verdict::verdict;

/// The pipeline's schedule, as the URL spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum PipeSchedule {
    #[serde(rename = "gpipe")]
    GPipe,
    #[default]
    #[serde(rename = "1f1b")]
    OneFOneB,
}

impl PipeSchedule {
    pub fn engine(self) -> Schedule {
        match self {
            PipeSchedule::GPipe => Schedule::GPipe,
            PipeSchedule::OneFOneB => Schedule::OneFOneB,
        }
    }
}

/// The ways the runs may name.
pub const WAYS: [&str; 5] = ["plain", "checkpoint", "zero", "pipeline", "best"];

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ParallelismLab {
    /// "mnist" or "fashion".
    pub data: String,
    /// Hidden layers of the MLP, each `width` ReLU units.
    pub depth: usize,
    pub width: usize,
    #[serde(with = "crate::names::optimizer")]
    pub optimizer: usize,
    pub lr: f32,
    pub batch: usize,
    pub steps: usize,
    pub images: usize,
    /// Memory of one simulated device, in MB (10⁶ bytes).
    pub memory: f64,
    /// One device's training speed, GFLOP/s.
    pub gflops: f64,
    /// Fixed milliseconds each pass of a (micro-)batch costs a device besides its FLOPs (kernel
    /// launches, synchronisation), half forward and half backward: a pipeline pays it on every
    /// stage for every micro-batch.
    pub overhead: f64,
    #[serde(with = "crate::names::link")]
    pub link: usize,
    /// Checkpoint every `segment` layers; 0 picks √(layers).
    pub segment: usize,
    /// Data-parallel workers of the ZeRO run and its stage (1–3).
    pub workers: usize,
    pub stage: u8,
    /// The pipeline run: stages, micro-batches, schedule.
    pub stages: usize,
    pub micro: usize,
    pub schedule: PipeSchedule,
    /// Devices the search for the best layout may use.
    pub devices: usize,
    /// The layouts to train: names from `WAYS`, separated by commas.
    pub runs: String,
    /// The seed of the weights' initialization and the batches' order (the data keep theirs).
    pub seed: u64,
    /// Where the runs train (the CPU path by default).
    pub backend: crate::lab::Backend,
    pub hide: BTreeSet<String>,
}

impl Default for ParallelismLab {
    fn default() -> Self {
        Self {
            data: "mnist".into(),
            depth: 12,
            width: 64,
            optimizer: Optimizer::all()
                .iter()
                .position(|o| matches!(o, Optimizer::Adam { .. }))
                .unwrap_or(0),
            lr: 0.001,
            batch: 512,
            steps: 500,
            images: 10_000,
            memory: DEFAULT_MEMORY_MB,
            gflops: 100.0,
            overhead: lab_sims::cluster::DEFAULT_STEP_OVERHEAD * 1e3,
            link: Link::PRESETS.iter().position(|l| *l == "pcie").unwrap_or(0),
            segment: 0,
            workers: 4,
            stage: 3,
            stages: 4,
            micro: 8,
            schedule: PipeSchedule::OneFOneB,
            devices: 8,
            runs: "plain, checkpoint, zero, pipeline".into(),
            seed: 1,
            backend: crate::lab::Backend::Cpu,
            hide: BTreeSet::new(),
        }
    }
}

/// The way names in `text`, or why not.
pub fn parse_runs(text: &str) -> Result<Vec<String>, crate::error::SetupError> {
    crate::names::parse_names("runs", text, &WAYS, WAYS.len())
}

impl ParallelismLab {
    /// The network and its training at `batch` samples per step (the whole batch, or one
    /// micro-batch's rows for the trainer that computes the pieces).
    pub fn config(&self, batch: usize) -> TrainConfig {
        TrainConfig {
            data: DataConfig::Images(ImageConfig {
                set: self.data.clone(),
                train_limit: self.images,
                test_limit: 2000,
            }),
            model: ModelConfig::Mlp {
                hidden: vec![self.width; self.depth],
                activation: Activation::Relu,
            },
            optimizer: Optimizer::all()[self.optimizer.min(Optimizer::all().len() - 1)],
            learning_rate: self.lr,
            // Cosine-decayed to 1 % over the run, so every layout ends settled, not mid-bounce:
            // their accuracies compare.
            schedule: LrSchedule {
                decay: Decay::Cosine {
                    total_steps: self.steps as u32,
                    min_factor: 0.01,
                },
                ..Default::default()
            },
            batch,
            shuffle: true,
            seed: self.seed,
            ..Default::default()
        }
    }

    /// Layers of the compiled network: each hidden layer's dense and ReLU, then the output layer.
    pub fn layers(&self) -> usize {
        2 * self.depth + 1
    }

    pub fn segment_length(&self) -> usize {
        if self.segment == 0 {
            ((self.layers() as f64).sqrt().round() as usize).max(1)
        } else {
            self.segment
        }
    }

    pub fn machine(&self) -> Machine {
        let link = Link::PRESETS[self.link.min(Link::PRESETS.len() - 1)];
        Machine {
            memory: (self.memory * 1e6) as u64,
            flops_per_second: self.gflops * 1e9,
            step_overhead: self.overhead * 1e-3,
            link: Link::preset(link).expect("a preset"),
        }
    }

    /// The layout a way names ("best" is found by the search, so it has none here).
    pub fn layout(&self, way: &str) -> Option<Layout> {
        let zero = match self.stage {
            1 => Stage::Optimizer,
            2 => Stage::Gradients,
            _ => Stage::Weights,
        };
        Some(match way {
            "plain" => Layout::PLAIN,
            "checkpoint" => Layout {
                segment: Some(self.segment_length()),
                ..Layout::PLAIN
            },
            "zero" => Layout {
                data: self.workers,
                zero,
                ..Layout::PLAIN
            },
            "pipeline" => Layout {
                stages: self.stages,
                micro: self.micro,
                schedule: self.schedule.engine(),
                ..Layout::PLAIN
            },
            _ => return None,
        })
    }

    /// The ways to train, or what is wrong with the settings.
    pub fn ways(&self) -> Result<Vec<String>, crate::error::SetupError> {
        let names = parse_runs(&self.runs)?;
        for n in &names {
            if let Some(l) = self.layout(n) {
                if l.micro_rows(self.batch).is_none() {
                    return Err(crate::error::SetupError::Uneven {
                        run: n.clone(),
                        batch: self.batch,
                        pieces: l.data * l.micro,
                    });
                }
            }
        }
        self.config(self.batch).validate()?;
        Ok(names)
    }
}

fn check_data(s: &mut ParallelismLab, notices: &mut Vec<String>) {
    crate::lab::check_image_set(&mut s.data, notices);
}

/// One simulated device's memory by default, MB: less than the plain step's peak (what the engine
/// holds, its gradients sharing memory where their lives do not overlap) and more than
/// checkpointing's, ZeRO-3's or the pipeline's (`state/tests/parallelism_lab.rs`).
pub const DEFAULT_MEMORY_MB: f64 = 6.0;

fn check_positive(name: &str, v: &mut f64, default: f64, hi: f64, notices: &mut Vec<String>) {
    if !(v.is_finite() && *v > 0.0 && *v <= hi) {
        notices.push(format!("{name}={v}: above 0, at most {hi}; using {default}"));
        *v = default;
    }
}

impl LabState for ParallelismLab {
    const LAB: &'static str = "parallelism";
    const VERSION: u32 = 1;
}

/// One row per setting; a control's name is its test id without `par-`.
impl Table for ParallelismLab {
    const SETTINGS: &'static [Setting<Self>] = &[
        field!("data", check_data),
        ranged!("depth", depth, 1, 32),
        ranged!("width", width, 4, 1024),
        ranged!("optimizer", optimizer, 0, Optimizer::all().len() - 1),
        ranged!("lr", lr, 1e-6, 10.0),
        ranged!("batch", batch, 1, 4096),
        ranged!("steps", steps, 1, 20_000),
        ranged!("images", images, 100, 60_000),
        field!("memory", |s, n| check_positive(
            "memory",
            &mut s.memory,
            DEFAULT_MEMORY_MB,
            1e6,
            n
        )),
        field!("gflops", |s, n| check_positive(
            "gflops",
            &mut s.gflops,
            100.0,
            1e6,
            n
        )),
        ranged!("overhead", overhead, 0.0, 100.0),
        field!("link"),
        ranged!("segment", segment, 0, 65),
        ranged!("workers", workers, 1, 64),
        ranged!("stage", stage, 1, 3),
        ranged!("stages", stages, 1, 16),
        ranged!("micro", micro, 1, 64),
        field!("schedule"),
        ranged!("devices", devices, 1, 64),
        text!("runs", Some("runs"), runs, 80, parse_runs),
        ranged!("seed", seed, 0, crate::lab::MAX_SEED),
        field!("backend"),
    ];
    const OTHER_CONTROLS: &'static [&'static str] = &["run", "cancel"];
    const SHARED_CONTROLS: &'static [&'static str] = crate::table::RECORDED_RUN_CONTROLS;

    hide_field!();

    fn relate(&mut self, notices: &mut Vec<String>) {
        crate::lab::batch_within_images(&mut self.batch, self.images, notices);
        if self.stages > self.layers() {
            notices.push(format!(
                "stages={}: at most one per layer ({}); using {}",
                self.stages,
                self.layers(),
                self.layers()
            ));
            self.stages = self.layers();
        }
        // Every named layout splits the batch into data × micro equal pieces: a batch that does
        // not split is mended here, with a notice, rather than refused at Run.
        let unit = parse_runs(&self.runs)
            .unwrap_or_default()
            .iter()
            .filter_map(|w| self.layout(w))
            .fold(1, |a, l| lcm(a, l.data * l.micro));
        if !self.batch.is_multiple_of(unit) {
            let mended = (self.batch / unit * unit).max(unit);
            if mended <= self.images {
                notices.push(format!(
                    "batch={}: the layouts split it into {unit} equal pieces; using {mended}",
                    self.batch
                ));
                self.batch = mended;
            }
        }
    }
}

fn lcm(a: usize, b: usize) -> usize {
    let gcd = |mut a: usize, mut b: usize| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    if a == 0 || b == 0 {
        a.max(b)
    } else {
        a / gcd(a, b) * b
    }
}

/// The lab's settings under the name the registry's generated list reads (`build.rs`).
pub type State = ParallelismLab;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_ways_split_the_batch_evenly() {
        let lab = ParallelismLab::default();
        let ways = lab.ways().unwrap();
        assert_eq!(ways, ["plain", "checkpoint", "zero", "pipeline"]);
        assert_eq!(lab.segment_length(), 5);
        assert_eq!(lab.layout("zero").unwrap().micro_rows(512), Some(128));
        assert_eq!(lab.layout("pipeline").unwrap().micro_rows(512), Some(64));
        assert!(parse_runs("plain, fast").unwrap_err().to_string().contains("fast"));
    }
}

crate::lab::runs_on_field!(ParallelismLab);
