//! The loss-landscape lab's settings (`/landscape`): which network is trained on which data, the
//! batch size (and an optional second one to compare), the slice's plane and resolution. They
//! round-trip through the URL by the lab's table (`table.rs`, short keys `net` and `pg`); a network
//! from the playground travels whole in `pg` (the playground's own query string).

use engine::data::toy::{ToyConfig, ToyKind};
use engine::model::Layer;
use engine::ops::activation::Activation;
use engine::ops::pool::PoolKind;
use engine::optim::Optimizer;
use engine::train::{DataConfig, ImageConfig, ModelConfig, TrainConfig};

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::lab::LabState;
use crate::playground::{BackendChoice, Playground};

mod choices;
pub mod resnet;
mod table;
mod verdicts;

pub use choices::{Data, Network, Plane};
pub use verdicts::{hessian_verdict, sharpness_verdict, skips_verdict};

/// The ResNet pair's run keys (its metrics are `nonconvexity-skips`, `nonconvexity-plain`, …).
pub const SKIPS_KEY: &str = "skips";
pub const PLAIN_KEY: &str = "plain";

/// One network the lab trains and maps: `key` names its metrics (`sharpness-<key>`), `label` its
/// panel.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub key: String,
    pub label: String,
    pub batch: usize,
    pub config: TrainConfig,
}

/// Batch sizes offered (and accepted from the URL).
pub const BATCHES: [usize; 6] = [4, 16, 32, 64, 256, 512];
/// Slice resolutions offered; the URL may give any from 3 to 41.
pub const RESOLUTIONS: [usize; 4] = [11, 21, 25, 41];
/// Training images for the image networks, and samples the landscape is evaluated on.
pub const IMAGE_TRAIN: usize = 2000;
pub const IMAGE_EVAL: usize = 500;
/// The ResNet's evaluation samples (`Landscape::image_eval_rows`).
pub const RESNET_EVAL: usize = 200;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Landscape {
    pub network: Network,
    pub data: Data,
    /// The playground's settings when `network` is `Playground`.
    pub playground: Playground,
    pub batch: usize,
    /// A second batch size to train and map beside the first (0: none).
    pub compare: usize,
    pub plane: Plane,
    pub res: usize,
    /// The most epochs a run trains (all of them when `target` is 0).
    pub epochs: usize,
    /// Each run trains until its training loss (on the evaluation samples) is at most this, so
    /// that batch sizes are compared at equal training loss (0: train the full `epochs`).
    pub target: f32,
    /// The seed of the weights' initialization and of the batches' order (the built-in networks;
    /// the playground's network keeps the playground's seed). A lesson that pins it says why.
    pub seed: u64,
    /// Where the runs train: WebGPU when the browser has it (`auto`, `webgpu`) or the CPU path.
    pub backend: BackendChoice,
    /// Controls an instructor hid.
    pub hide: BTreeSet<String>,
}

impl Default for Landscape {
    fn default() -> Self {
        Self {
            network: Network::Toy,
            // The circle. Which of its minima is the sharper at equal training loss changes with
            // the seed (docs/theory.md §4.4); the lab reports what it measured.
            data: Data::Toy(ToyKind::Circle),
            playground: Playground::default(),
            // A small and a large batch, each trained to the same training loss: the lesson
            // (which minimum is sharper) appears with the defaults.
            batch: 4,
            compare: 256,
            plane: Plane::Trajectory,
            res: 21,
            epochs: Landscape::default_epochs(Network::Toy),
            target: Landscape::default_target(Network::Toy),
            seed: 1,
            backend: BackendChoice::Auto,
            hide: BTreeSet::new(),
        }
    }
}

impl Landscape {
    /// The epoch budget a fresh choice of network starts with: enough for a batch of 256 (or 512
    /// images) to reach the default target.
    pub fn default_epochs(network: Network) -> usize {
        if network == Network::ResNet {
            // 2,000 images at batch 32: 125 steps, enough for the twin without skips to lag
            // and map the less convex slice, in about a minute for the pair on the CPU path.
            2
        } else if network.reads_images() {
            150
        } else {
            200
        }
    }

    /// The training loss every run is trained to by default.
    /// (At 0.1 the two batches' sharpness on 2-D data is often about equal; at 0.05 the large
    /// batch's is higher.)
    pub fn default_target(network: Network) -> f32 {
        if network == Network::ResNet {
            // Both twins train the same epochs: the one without skips may never reach a target.
            0.0
        } else if network.reads_images() {
            0.2
        } else {
            0.05
        }
    }

    /// A choice of network brings its epoch budget and target loss, and the ResNet a batch of 32
    /// and random filter-normalized directions (as Li et al. map it); a link's own values for
    /// them come later and win.
    pub fn set_network_defaults(&mut self, n: Network) {
        self.network = n;
        self.epochs = Landscape::default_epochs(n);
        self.target = Landscape::default_target(n);
        if n == Network::ResNet {
            self.batch = 32;
            self.plane = Plane::Random;
            self.res = 9;
        }
    }

    /// Image samples the slices, sharpness and Hessian are measured on: fewer for the ResNet,
    /// whose 26 layers' activations are kept for every sample.
    pub fn image_eval_rows(&self) -> usize {
        if self.network == Network::ResNet {
            RESNET_EVAL
        } else {
            IMAGE_EVAL
        }
    }

    /// Intervals of the interpolation line (θ from −0.5 to 1.5, θ = 1 at three quarters, so a
    /// multiple of 4): 12 for the ResNet pair, whose 26 layers make each point cost, and whose
    /// lesson is the slice, not the line.
    pub fn line_intervals(&self) -> usize {
        if self.network == Network::ResNet {
            12
        } else {
            40
        }
    }

    /// Whether the mean rise along random directions is measured: not for the ResNet pair, whose
    /// 33 passes of 26 layers over the evaluation samples would take most of its wait for a
    /// number that is not its lesson (the slice's convexity is).
    pub fn measures_sharpness(&self) -> bool {
        self.network != Network::ResNet
    }

    /// Whether the top Hessian eigenvalue is measured: not for the ResNet pair, where the power
    /// iteration's 60 gradient passes of 26 layers would double the wait for a number that is not
    /// its lesson.
    pub fn measures_hessian(&self) -> bool {
        self.network != Network::ResNet
    }

    /// The training config of one run, at the given batch size.
    pub fn to_config(&self, batch: usize) -> TrainConfig {
        let images = |set: &str| {
            DataConfig::Images(ImageConfig {
                set: set.into(),
                train_limit: IMAGE_TRAIN,
                test_limit: IMAGE_EVAL,
            })
        };
        let base = match (self.network, self.data) {
            (Network::Playground, _) => self.playground.to_config(),
            (_, Data::Toy(kind)) => TrainConfig {
                data: DataConfig::Toy(ToyConfig {
                    kind,
                    points: 400,
                    noise: 0.1,
                    seed: 1,
                    test_fraction: 0.3,
                    classes: 2,
                }),
                model: ModelConfig::Mlp {
                    hidden: vec![8, 8],
                    activation: Activation::Tanh,
                },
                learning_rate: 0.03,
                ..Default::default()
            },
            (network, data) => TrainConfig {
                data: images(if data == Data::Fashion { "fashion" } else { "mnist" }),
                model: if network == Network::Cnn {
                    ModelConfig::Layers {
                        layers: vec![
                            Layer::Conv2d {
                                filters: 4,
                                kernel: 5,
                                stride: 1,
                                padding: 0,
                            },
                            Layer::Activation {
                                kind: Activation::Relu,
                            },
                            Layer::Pool {
                                kind: PoolKind::Max,
                                size: 2,
                                stride: 2,
                            },
                            Layer::Flatten,
                            Layer::Dense { units: 10 },
                        ],
                    }
                } else if let Some(norm) = match network {
                    Network::MlpBatchNorm => Some(Layer::BatchNorm {
                        momentum: engine::model::BN_MOMENTUM,
                    }),
                    Network::MlpLayerNorm => Some(Layer::LayerNorm),
                    _ => None,
                } {
                    ModelConfig::Layers {
                        layers: vec![
                            Layer::Dense { units: 32 },
                            norm,
                            Layer::Activation {
                                kind: Activation::Relu,
                            },
                            Layer::Dense { units: 10 },
                        ],
                    }
                } else {
                    ModelConfig::Mlp {
                        hidden: vec![32],
                        activation: Activation::Relu,
                    }
                },
                optimizer: Optimizer::Sgd,
                learning_rate: 0.1,
                ..Default::default()
            },
        };
        let base = if self.network == Network::ResNet {
            // Adam: plain SGD at 0.1 leaves the twin without skips at chance.
            TrainConfig {
                model: ModelConfig::Layers {
                    layers: resnet::resnet_layers(true),
                },
                optimizer: Optimizer::adam(),
                learning_rate: 0.003,
                ..base
            }
        } else {
            base
        };
        let seed = if self.network == Network::Playground {
            base.seed
        } else {
            self.seed
        };
        TrainConfig { batch, seed, ..base }
    }

    /// What the lab trains and maps, side by side: the chosen batch and the comparison, or for
    /// the ResNet the network with and without its skips at the chosen batch.
    pub fn runs(&self) -> Vec<Run> {
        if self.network == Network::ResNet {
            let with = self.to_config(self.batch);
            let without = TrainConfig {
                model: ModelConfig::Layers {
                    layers: resnet::resnet_layers(false),
                },
                ..with.clone()
            };
            return vec![
                Run {
                    key: SKIPS_KEY.into(),
                    label: format!("with skips, batch {}", self.batch),
                    batch: self.batch,
                    config: with,
                },
                Run {
                    key: PLAIN_KEY.into(),
                    label: format!("without skips, batch {}", self.batch),
                    batch: self.batch,
                    config: without,
                },
            ];
        }
        self.batches()
            .into_iter()
            .map(|batch| Run {
                key: batch.to_string(),
                label: format!("batch {batch}"),
                batch,
                config: self.to_config(batch),
            })
            .collect()
    }

    /// Whether the runs compare batch sizes (else networks).
    pub fn compares_batches(&self) -> bool {
        self.network != Network::ResNet
    }

    /// The batch sizes to train: the chosen one, and the comparison when set.
    pub fn batches(&self) -> Vec<usize> {
        if self.compare > 0 && self.compare != self.batch {
            vec![self.batch, self.compare]
        } else {
            vec![self.batch]
        }
    }
}

/// A setting where Keskar et al.'s result appears for every seed tried: the image MLP on MNIST,
/// batch 16 against 256, each trained to training loss 0.05 (about 24,000 and 360,000 samples:
/// seconds on the CPU path).
pub fn keskar_setting() -> Landscape {
    Landscape {
        network: Network::Mlp,
        data: Data::Mnist,
        batch: 16,
        compare: 256,
        target: 0.05,
        // Batch 256 needs about 1,400 steps (180 epochs of the 2,000 images) to get there.
        epochs: 200,
        ..Landscape::default()
    }
}

/// Li et al.'s (2018) skip-connection figure: the ResNet-26 and its twin without skips on MNIST,
/// sliced along random filter-normalized directions.
pub fn skips_setting() -> Landscape {
    let mut s = Landscape {
        data: Data::Mnist,
        ..Landscape::default()
    };
    s.set_network_defaults(Network::ResNet);
    s
}

impl LabState for Landscape {
    const LAB: &'static str = "landscape";
    const VERSION: u32 = 1;
}

/// The lab's settings under the name the registry's generated list reads (`build.rs`).
pub type State = Landscape;

#[cfg(test)]
mod tests;
