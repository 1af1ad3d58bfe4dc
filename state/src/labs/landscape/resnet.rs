//! The landscape lab's residual network and its twin without skips (Li et al. 2018, §5): the
//! same layers, with and without the identity and projected skips, mapped side by side.

use engine::model::{Layer, BN_MOMENTUM};
use engine::ops::activation::Activation;
use engine::ops::pool::PoolKind;

/// Residual blocks per stage: three stages of four make a ResNet-26 (1 + 3·4·2 convolutions and
/// the dense layer), deep enough for the twin without skips to train worse and map a less
/// convex slice, small enough (4-8-16 channels) for the CPU path.
pub const BLOCKS: usize = 4;
pub const CHANNELS: [usize; 3] = [4, 8, 16];

/// He et al.'s CIFAR design on 28 × 28 images: a 3×3 stem, three stages (the second and third
/// halve the image), each block conv-BN-ReLU-conv-BN, a ReLU after each block, global average
/// pooling, a dense layer; `skips` wraps each block's layers in a residual block (projected where
/// the shape changes).
pub fn resnet_layers(skips: bool) -> Vec<Layer> {
    let conv = |filters, stride| Layer::Conv2d {
        filters,
        kernel: 3,
        stride,
        padding: 1,
    };
    let bn = Layer::BatchNorm {
        momentum: BN_MOMENTUM,
    };
    let relu = Layer::Activation {
        kind: Activation::Relu,
    };
    let mut layers = vec![conv(CHANNELS[0], 1), bn.clone(), relu.clone()];
    for (stage, &c) in CHANNELS.iter().enumerate() {
        for block in 0..BLOCKS {
            let stride = if stage > 0 && block == 0 { 2 } else { 1 };
            let inner = vec![conv(c, stride), bn.clone(), relu.clone(), conv(c, 1), bn.clone()];
            if skips {
                layers.push(Layer::Residual {
                    layers: inner,
                    projection: stride == 2,
                });
            } else {
                layers.extend(inner);
            }
            layers.push(relu.clone());
        }
    }
    layers.extend([
        Layer::Pool {
            kind: PoolKind::Avg,
            size: 7,
            stride: 7,
        },
        Layer::Flatten,
        Layer::Dense { units: 10 },
    ]);
    layers
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::model::ModelSpec;

    #[test]
    fn the_twins_have_the_same_layers_but_the_skips() {
        let compile = |skips| {
            ModelSpec {
                input: [1, 28, 28],
                layers: resnet_layers(skips),
            }
            .compile()
            .unwrap()
        };
        let (with, without) = (compile(true), compile(false));
        let convs = |c: &engine::model::Compiled| {
            c.layers
                .iter()
                .filter(|l| matches!(l.layer, Layer::Conv2d { .. }))
                .count()
        };
        assert_eq!(
            (convs(&with), convs(&without)),
            (1 + 3 * BLOCKS * 2, 1 + 3 * BLOCKS * 2)
        );
        // The two projections are the only extra weights.
        assert_eq!(with.n_params - without.n_params, (8 * 4 + 8) + (16 * 8 + 16));
        assert_eq!(with.layers.last().unwrap().in_shape, [16, 1, 1]);
    }

    /// The README's slice benchmark of this network (`lab slice-bench --config
    /// configs/mnist-resnet26.json`) times these very layers.
    #[test]
    fn the_benchmark_config_holds_the_resnet() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/mnist-resnet26.json");
        let text = std::fs::read_to_string(path).unwrap();
        let config: engine::train::TrainConfig = serde_json::from_str(&text).unwrap();
        let engine::train::ModelConfig::Layers { layers } = config.model else {
            panic!("{path}: not a list of layers");
        };
        assert_eq!(layers, resnet_layers(true));
    }
}
