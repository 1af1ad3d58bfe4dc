//! The cluster lab's settings (`/cluster`): workers, scaling, algorithms, topology and links,
//! compression, consistency and training. The methods turn them into the engine's cluster and
//! training configs, or say what is wrong.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use engine::collectives::{Algorithm, Link, Topology};
use engine::optim::Optimizer;
use engine::train::TrainConfig;
use lab_sims::cluster::{ClusterConfig, Consistency, Scaling};
use lab_sims::compress::Compression;
use lab_sims::timeline::Work;

use crate::error::SetupError;
use crate::lab::LabState;

pub mod overlap;
pub mod plan;
mod table;
use crate::landscape::{Data, Landscape, Network};

/// The algorithms in the order of their colours.
pub const ALGORITHMS: [(Algorithm, &str); 7] = [
    (Algorithm::Ring, "ring"),
    (Algorithm::Tree, "binomial tree"),
    (Algorithm::ParameterServer { shards: 1 }, "parameter server"),
    (Algorithm::Naive, "naive all-to-all"),
    (Algorithm::RecursiveDoubling, "butterfly"),
    (Algorithm::Rabenseifner, "Rabenseifner"),
    (Algorithm::Hierarchical, "hierarchical"),
];

pub fn algorithm_index(a: Algorithm) -> usize {
    ALGORITHMS
        .iter()
        .position(|(x, _)| std::mem::discriminant(x) == std::mem::discriminant(&a))
        .unwrap_or(0)
}

pub const COMPRESSIONS: [&str; 5] = [
    "none",
    "top-k (largest)",
    "random-k",
    "quantize (stochastic rounding)",
    "ternary (TernGrad)",
];

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ClusterLab {
    pub data: Data,
    pub workers: usize,
    pub weak: bool,
    pub batch: usize,
    #[serde(with = "crate::names::algorithm_set")]
    pub chosen: [bool; 7],
    #[serde(with = "crate::names::algorithm")]
    pub animate: usize,
    pub shards: usize,
    pub gpus_per_node: usize,
    #[serde(with = "crate::names::link")]
    pub intra: usize,
    #[serde(with = "crate::names::link")]
    pub inter: usize,
    pub gflops: f64,
    pub straggler: f64,
    pub overlap: bool,
    pub asynchronous: bool,
    pub bound: String,
    #[serde(with = "crate::names::compression")]
    pub compression: usize,
    pub percent: f32,
    pub bits: u32,
    pub error_feedback: bool,
    /// Deep gradient compression's momentum correction: with a momentum optimizer and error
    /// feedback, the workers keep the momentum and the compressed run's update is plain SGD.
    pub momentum_correction: bool,
    #[serde(with = "crate::names::optimizer")]
    pub optimizer: usize,
    pub lr: f32,
    pub target: f32,
    pub max_steps: usize,
    pub study: String,
    /// Controls an instructor hid.
    /// The seed of the weights' initialization and the batches' order (the data keep theirs).
    pub seed: u64,
    /// Where the runs train (the CPU path by default).
    pub backend: crate::lab::Backend,
    pub hide: BTreeSet<String>,
}

impl Default for ClusterLab {
    fn default() -> Self {
        Self {
            data: Data::Mnist,
            workers: 8,
            weak: false,
            batch: 64,
            chosen: [true, true, true, false, false, false, false],
            animate: 0,
            shards: 1,
            gpus_per_node: 4,
            intra: 0,
            inter: 4,
            gflops: 5.0,
            straggler: 1.0,
            overlap: false,
            asynchronous: false,
            bound: String::new(),
            compression: 0,
            percent: 5.0,
            bits: 4,
            error_feedback: true,
            momentum_correction: false,
            optimizer: 0,
            lr: 0.1,
            target: 0.9,
            max_steps: 600,
            study: "1, 2, 4, 8, 16".into(),
            seed: 1,
            backend: crate::lab::Backend::Cpu,
            hide: BTreeSet::new(),
        }
    }
}

impl ClusterLab {
    pub fn scaling(&self) -> Scaling {
        if self.weak {
            Scaling::Weak
        } else {
            Scaling::Strong
        }
    }

    pub fn algorithm(&self, i: usize) -> Algorithm {
        match ALGORITHMS[i.min(6)].0 {
            Algorithm::ParameterServer { .. } => Algorithm::ParameterServer {
                shards: self.shards.clamp(1, 64),
            },
            a => a,
        }
    }

    pub fn chosen(&self) -> Vec<usize> {
        (0..7).filter(|&i| self.chosen[i]).collect()
    }

    pub fn compression(&self) -> Compression {
        let fraction = (self.percent / 100.0).clamp(1e-4, 1.0);
        match self.compression {
            1 => Compression::TopK { fraction },
            2 => Compression::RandomK { fraction },
            3 => Compression::Quantize {
                bits: self.bits.clamp(1, 16),
            },
            4 => Compression::Ternary,
            _ => Compression::None,
        }
    }

    pub fn consistency(&self) -> Result<Consistency, SetupError> {
        if !self.asynchronous {
            return Ok(Consistency::Synchronous);
        }
        Ok(Consistency::Asynchronous {
            bound: parse_bound(&self.bound)?,
        })
    }

    /// The cluster for `workers` running algorithm `i`, as configured.
    pub fn config(&self, workers: usize, i: usize) -> Result<ClusterConfig, SetupError> {
        let link = |k: usize| Link::preset(Link::PRESETS[k.min(Link::PRESETS.len() - 1)]).expect("a preset");
        if !(self.gflops.is_finite() && self.gflops > 0.0) {
            return Err(SetupError::Rule {
                setting: "worker speed",
                rule: "a positive number of GFLOP/s",
            });
        }
        Ok(ClusterConfig {
            workers,
            algorithm: self.algorithm(i),
            topology: Topology {
                gpus_per_node: self.gpus_per_node.max(1),
                intra: link(self.intra),
                inter: link(self.inter),
            },
            compression: self.compression(),
            error_feedback: self.error_feedback && self.compression().supports_error_feedback(),
            seed: self.seed,
            consistency: self.consistency()?,
            straggler: self.straggler.max(1.0),
            flops_per_second: self.gflops * 1e9,
            overlap: self.overlap,
            step_overhead_seconds: lab_sims::cluster::DEFAULT_STEP_OVERHEAD,
            momentum_correction: self.correction(),
        })
    }

    /// The training config of one worker (its batch is the worker's share).
    pub fn train_config(&self, workers: usize) -> TrainConfig {
        let shape = Landscape {
            network: if self.data.is_images() {
                Network::Mlp
            } else {
                Network::Toy
            },
            data: self.data,
            seed: self.seed,
            ..Default::default()
        };
        TrainConfig {
            optimizer: Optimizer::all()[self.optimizer.min(Optimizer::all().len() - 1)],
            learning_rate: self.lr,
            ..shape.to_config(self.per_worker(workers))
        }
    }

    /// The batch each of `workers` computes on; [`ClusterLab::validate`] refuses the settings
    /// where strong scaling would leave a worker without a sample.
    pub fn per_worker(&self, workers: usize) -> usize {
        self.scaling().worker_batch(self.batch, workers).unwrap_or(1)
    }

    /// Refuses strong scaling of a global batch over more workers than it has samples.
    fn check_split(&self, workers: usize) -> Result<(), SetupError> {
        match self.scaling().worker_batch(self.batch, workers) {
            Some(_) => Ok(()),
            None => Err(SetupError::Unsplittable {
                batch: self.batch,
                workers,
            }),
        }
    }

    pub fn work(&self) -> Result<Work, SetupError> {
        let config = self.train_config(1);
        let classes = if self.data.is_images() { 10 } else { 2 };
        Ok(Work::of(
            &config.spec(classes).compile()?,
        ))
    }

    pub fn study(&self) -> Result<Vec<usize>, SetupError> {
        let counts = parse_counts(&self.study)?;
        for &c in &counts {
            self.check_split(c)?;
        }
        Ok(counts)
    }

    pub fn validate(&self) -> Result<(), SetupError> {
        if !(1..=64).contains(&self.workers) {
            return Err(SetupError::Rule {
                setting: "workers",
                rule: "from 1 to 64",
            });
        }
        if self.chosen().is_empty() {
            return Err(SetupError::NoneChosen("algorithm"));
        }
        if !(self.lr.is_finite() && self.lr > 0.0) {
            return Err(SetupError::Rule {
                setting: "learning rate",
                rule: "a positive number",
            });
        }
        self.consistency()?;
        self.check_split(self.workers)
    }

    /// What the compression settings send and cost, for the note under them (None without
    /// compression): the contractive or unbiased form, and the allgather against the dense
    /// allreduce of the first algorithm ticked.
    pub fn compression_note(&self) -> Option<String> {
        let c = self.compression();
        if c == Compression::None {
            return None;
        }
        let form = match (c.supports_error_feedback(), self.error_feedback) {
            (true, true) => format!(
                "With error feedback the contractive form is sent ({}); what it drops is kept and \
                 added to the next gradient.",
                c.error_feedback_label()
            ),
            (true, false) => format!(
                "Without error feedback the unbiased form is sent ({}).",
                c.label()
            ),
            (false, _) => "Multi-bit and ternary quantizers are unbiased but not contractive, so \
                           they run without error feedback (it would grow without bound)."
                .to_string(),
        };
        let i = self.chosen().first().copied().unwrap_or(0);
        let (Ok(work), Ok(config)) = (self.work(), self.config(self.workers, i)) else {
            return Some(form);
        };
        let n = work.params();
        if self.asynchronous {
            return Some(format!(
                "{form} Asynchronous workers push their compressed gradient to the server ({}) and \
                 pull the dense weights ({}); every update applies one worker's compressed \
                 gradient alone, so a sparsifier moves only its k % of the coordinates per update \
                 and progress per update is slower than synchronous compression, whose update \
                 sums all workers'.",
                megabytes(c.bytes(n)),
                megabytes(4.0 * n as f64)
            ));
        }
        let sent = config.allreduce(n).1;
        let dense = ClusterConfig {
            compression: Compression::None,
            ..config
        }
        .allreduce(n)
        .1;
        let verdict = if sent > dense { "more than" } else { "against" };
        Some(format!(
            "{form} Compressed vectors do not add up in place, so the {} workers allgather them: \
             {} on the wire per step, {verdict} {} for the dense {}.",
            self.workers,
            megabytes(sent),
            megabytes(dense),
            ALGORITHMS[i].1
        ))
    }

}

/// The staleness bound ("" for none), or why not.
pub fn parse_bound(text: &str) -> Result<Option<usize>, SetupError> {
    let b = text.trim();
    if b.is_empty() {
        return Ok(None);
    }
    b.parse().map(Some).map_err(|_| SetupError::NotA {
        setting: "staleness bound",
        text: b.to_string(),
        kind: "a whole number (leave it empty for none)",
    })
}

/// The study's worker counts, or why not.
pub fn parse_counts(text: &str) -> Result<Vec<usize>, SetupError> {
    let counts: Vec<usize> = text
        .split([',', ' '])
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse().map_err(|_| SetupError::NotA {
                setting: "worker counts",
                text: s.to_string(),
                kind: "a whole number",
            })
        })
        .collect::<Result<_, _>>()?;
    if counts.is_empty() || counts.iter().any(|c| !(1..=64).contains(c)) {
        return Err(SetupError::Rule {
            setting: "worker counts",
            rule: "whole numbers from 1 to 64",
        });
    }
    Ok(counts)
}

fn megabytes(bytes: f64) -> String {
    format!("{:.2} MB", bytes / 1e6)
}

impl LabState for ClusterLab {
    const LAB: &'static str = "cluster";
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

/// The lab's settings under the name the registry's generated list reads (`build.rs`).
pub type State = ClusterLab;
