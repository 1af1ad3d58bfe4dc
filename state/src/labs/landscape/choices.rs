//! What the loss-landscape lab can train and map: its networks, their data and the slice's plane,
//! each with the key the URL and files use.

use engine::data::toy::ToyKind;
use serde::{Deserialize, Serialize};

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
