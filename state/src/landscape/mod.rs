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
use crate::playground::Playground;

pub mod resnet;
mod table;

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

/// Which network the lab trains.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Network {
    /// A 2-8-8-out tanh MLP on a 2-D set.
    Toy,
    /// 784-32-10 ReLU MLP on MNIST or Fashion-MNIST.
    Mlp,
    /// conv 5×5×4 → ReLU → max-pool 2 → dense 10 on MNIST or Fashion-MNIST.
    Cnn,
    /// The image MLP with batch norm after its hidden layer.
    MlpBatchNorm,
    /// The image MLP with layer norm after its hidden layer.
    MlpLayerNorm,
    /// A ResNet-26 (batch norm), mapped beside the same network without skips.
    ResNet,
    /// The playground's network, data and optimizer (from `pg`).
    Playground,
}

impl Network {
    pub const ALL: [Network; 7] = [
        Network::Toy,
        Network::Mlp,
        Network::Cnn,
        Network::MlpBatchNorm,
        Network::MlpLayerNorm,
        Network::ResNet,
        Network::Playground,
    ];

    pub fn key(self) -> &'static str {
        match self {
            Network::Toy => "toy",
            Network::Mlp => "mlp",
            Network::Cnn => "cnn",
            Network::MlpBatchNorm => "mlp-bn",
            Network::MlpLayerNorm => "mlp-ln",
            Network::ResNet => "resnet",
            Network::Playground => "playground",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Network::Toy => "2-D: MLP 2-8-8-2 (tanh)",
            Network::Mlp => "images: MLP 784-32-10 (ReLU)",
            Network::Cnn => "images: CNN conv 5×5×4 → pool → dense 10",
            Network::MlpBatchNorm => "images: MLP 784-32 (batch norm, ReLU)-10",
            Network::MlpLayerNorm => "images: MLP 784-32 (layer norm, ReLU)-10",
            Network::ResNet => "images: ResNet-26 (batch norm) with and without skips",
            Network::Playground => "the playground's network",
        }
    }

    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|n| n.key() == key)
    }

    pub fn reads_images(self) -> bool {
        matches!(
            self,
            Network::Mlp | Network::Cnn | Network::MlpBatchNorm | Network::MlpLayerNorm | Network::ResNet
        )
    }
}

/// The data a built-in network trains on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Data {
    Toy(ToyKind),
    Mnist,
    Fashion,
}

impl Data {
    pub fn all() -> Vec<Data> {
        ToyKind::ALL
            .into_iter()
            .map(Data::Toy)
            .chain([Data::Mnist, Data::Fashion])
            .collect()
    }

    pub fn key(self) -> &'static str {
        match self {
            Data::Toy(k) => k.key(),
            Data::Mnist => "mnist",
            Data::Fashion => "fashion",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Data::Toy(k) => k.label(),
            Data::Mnist => "MNIST digits",
            Data::Fashion => "Fashion-MNIST",
        }
    }

    pub fn from_key(key: &str) -> Option<Self> {
        Self::all().into_iter().find(|d| d.key() == key)
    }

    pub fn is_images(self) -> bool {
        !matches!(self, Data::Toy(_))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Plane {
    /// The first two PCA directions of the training trajectory.
    Trajectory,
    /// Two filter-normalized random directions.
    Random,
}

crate::serde_by_key!(Network, "network");
crate::serde_by_key!(Data, "data set");

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
    /// Controls an instructor hid.
    pub hide: BTreeSet<String>,
}

impl Default for Landscape {
    fn default() -> Self {
        Self {
            network: Network::Toy,
            // The circle: at equal training loss its large-batch minimum is the sharper one for
            // every seed tried (the moons' verdict flips with the seed).
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

    /// Intervals of the interpolation line (θ from −0.5 to 1.5, θ = 1 at three quarters): half
    /// as many for the ResNet pair, which is mapped in about a minute on the CPU path.
    pub fn line_intervals(&self) -> usize {
        if self.network == Network::ResNet {
            20
        } else {
            40
        }
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
        TrainConfig { batch, ..base }
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

/// What a comparison of two trained batches says about sharpness (Keskar et al. 2017; docs/theory.md
/// §4.4), from each run's (batch, sharpness, training loss): which is sharper as measured, whether
/// that agrees with Keskar et al.'s large-batch sharp minima, and a caution when the training losses
/// differ (sharpness is compared at equal training loss).
pub fn sharpness_verdict(a: (usize, f32, f32), b: (usize, f32, f32), target: f32) -> String {
    let (small, large) = if a.0 <= b.0 { (a, b) } else { (b, a) };
    let ratio = large.1 / small.1.max(f32::MIN_POSITIVE);
    let mut text = if large.1 > small.1 {
        format!(
            "Batch {} is sharper than batch {} ({:.4} vs {:.4}, ×{ratio:.1}): the large batch found the \
             sharper minimum, as Keskar et al. (2017) report.",
            large.0, small.0, large.1, small.1
        )
    } else {
        format!(
            "Batch {} is sharper than batch {} ({:.4} vs {:.4}): here the small batch found the sharper \
             minimum, contrary to Keskar et al. (2017). On networks this small the verdict changes with \
             the seed; their result holds for larger networks — try Keskar et al.'s setting.",
            small.0, large.0, small.1, large.1
        )
    };
    let (lo, hi) = (small.2.min(large.2), small.2.max(large.2));
    let unequal = if target > 0.0 {
        hi > target + 1e-3
    } else {
        hi > 1.25 * lo + 0.01
    };
    if unequal {
        text.push_str(&format!(
            " The training losses differ ({:.3} vs {:.3}): the comparison is not at equal loss \
             (a run stopped at its epoch budget{}).",
            small.2,
            large.2,
            if target > 0.0 {
                " before the target"
            } else {
                "; set a target loss"
            }
        ));
    }
    text
}

/// The ResNet with and without skips, each (non-convexity of its slice, training loss): Li et
/// al.'s finding, or what this run measured against it.
pub fn skips_verdict(with: (f32, f32), without: (f32, f32)) -> String {
    let found = if without.0 > with.0 {
        "the slice without skips is the less convex, as Li et al. (2018) found for deep networks: \
         the skips keep the loss surface smooth"
    } else {
        "here the slice with skips is the less convex, against Li et al. (2018): at this depth and \
         this training the difference is small; more blocks make it plain"
    };
    format!(
        "Non-convexity {:.3} with skips, {:.3} without: {found}. Trained the same steps, the network \
         without skips reached training loss {:.3} against {:.3} with them (He et al. 2016: deep \
         plain networks train worse).",
        with.0, without.0, without.1, with.1
    )
}

/// The two runs' top Hessian eigenvalues (batch, λ_max) compared: the curvature of the sharpest
/// direction, where the mean rise at a radius averages over random ones.
pub fn hessian_verdict(a: (usize, f32), b: (usize, f32)) -> String {
    let (small, large) = if a.0 <= b.0 { (a, b) } else { (b, a) };
    let ratio = large.1 / small.1.max(f32::MIN_POSITIVE);
    format!(
        "Sharpest direction: the top Hessian eigenvalue is {:.4} at batch {} and {:.4} at batch {} \
         (×{ratio:.2}); the {} batch's minimum curves faster along it.",
        small.1,
        small.0,
        large.1,
        large.0,
        if large.1 > small.1 { "large" } else { "small" }
    )
}

impl LabState for Landscape {
    const LAB: &'static str = "landscape";
    const VERSION: u32 = 1;
}

#[cfg(test)]
mod tests;
