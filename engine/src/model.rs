//! Models as data: a serde list of layers, compiled into per-layer shapes and offsets into one flat
//! parameter buffer (llm.c style). Gradients and optimizer state use the same layout.
//!
//! Tensors are NCHW; a sample's features are its [C, H, W] values in that order, so a dense layer
//! after a convolution reads them flattened without any copy (`Flatten` only renames the shape).

pub use crate::error::ModelError;
use serde::{Deserialize, Serialize};

use crate::ops::activation::Activation;
use crate::ops::pool::PoolKind;
use crate::rng::Rng;

mod compile;

/// How the weights start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Init {
    /// He where a ReLU-like activation follows the layer, Glorot elsewhere.
    #[default]
    Auto,
    /// Glorot (Xavier) normal: std √(2 / (fan_in + fan_out)), for tanh and sigmoid.
    Glorot,
    /// He (Kaiming) normal: std √(2 / fan_in), for ReLU.
    He,
    /// All zero: every neuron of a layer stays identical (a lesson in symmetry breaking).
    Zero,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Layer {
    /// Fully connected: W [units, inputs] (one row per output neuron), bias [units].
    Dense {
        units: usize,
    },
    /// W [filters, channels, kernel, kernel], bias [filters]; zero padding.
    Conv2d {
        filters: usize,
        kernel: usize,
        stride: usize,
        padding: usize,
    },
    /// Window `size`, step `stride`, no padding.
    Pool {
        kind: PoolKind,
        size: usize,
        stride: usize,
    },
    Activation {
        kind: Activation,
    },
    Flatten,
    /// Inverted dropout while training (each value zeroed with probability `rate`); identity when predicting.
    Dropout {
        rate: f32,
    },
    /// Batch normalization (Ioffe & Szegedy 2015): each channel over the batch and the image's
    /// positions, then γ·x̂ + β per channel; predicting uses running statistics, updated by each
    /// training step as running ← (1 − momentum)·running + momentum·batch (PyTorch's convention).
    BatchNorm {
        #[serde(default = "default_bn_momentum")]
        momentum: f32,
    },
    /// Layer normalization (Ba et al. 2016): each sample over all its values, then γ·x̂ + β per
    /// channel (per feature after a dense layer).
    LayerNorm,
    /// A residual block (He et al. 2016): y = F(x) + skip(x), F the listed layers, the skip the
    /// identity or, with `projection`, a 1×1 convolution whose stride matches F's output size.
    Residual {
        layers: Vec<Layer>,
        #[serde(default)]
        projection: bool,
    },
    /// A compiled residual block's start: passes its input on, and the block's end adds it back.
    /// Only in compiled models (a model file writes `Residual`).
    #[serde(skip)]
    SkipFrom,
    /// A compiled residual block's end: its input (F(x)) plus the skip from layer `from`'s input,
    /// through a 1×1 convolution (weights here) when `projection`.
    #[serde(skip)]
    SkipAdd {
        from: usize,
        projection: bool,
    },
}

/// PyTorch's default batch-norm momentum.
pub const BN_MOMENTUM: f32 = 0.1;

fn default_bn_momentum() -> f32 {
    BN_MOMENTUM
}

impl Layer {
    /// Normalization layers: γ (weights) start at 1 and are left out of landscape directions.
    pub fn is_norm(&self) -> bool {
        matches!(self, Layer::BatchNorm { .. } | Layer::LayerNorm)
    }
}

/// A model: the shape of one input sample, [C, H, W] ([features, 1, 1] for flat data), and its
/// layers. The last layer's outputs are the class logits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelSpec {
    pub input: [usize; 3],
    pub layers: Vec<Layer>,
}

/// One layer with its shapes and, for dense and conv layers, where W and the bias live.
#[derive(Clone, Debug, PartialEq)]
pub struct CompiledLayer {
    pub layer: Layer,
    pub in_shape: [usize; 3],
    pub out_shape: [usize; 3],
    pub w_off: usize,
    pub w_len: usize,
    pub b_off: usize,
    /// Batch norm: where its running mean and variance (pairs per channel) start in the
    /// model's running-statistics buffer.
    pub run_off: usize,
    /// A residual block's end: the shape of the skip's source (the block's input).
    pub skip_shape: [usize; 3],
}

impl CompiledLayer {
    pub fn has_params(&self) -> bool {
        self.w_len > 0
    }
    /// The convolution's geometry for a conv layer or a residual block's 1×1 projection:
    /// (filters, kernel, stride, padding), the input channels being `in_shape[0]` (for the
    /// projection, the skip source's channels: see `skip_shape`).
    pub fn conv(&self) -> Option<(usize, usize, usize, usize)> {
        match self.layer {
            Layer::Conv2d {
                filters,
                kernel,
                stride,
                padding,
            } => Some((filters, kernel, stride, padding)),
            Layer::SkipAdd { projection: true, .. } => Some((self.out_shape[0], 1, self.skip_stride(), 0)),
            _ => None,
        }
    }
    /// A residual end's skip source shape is kept in `skip_shape`; its stride follows from it.
    fn skip_stride(&self) -> usize {
        self.skip_shape[1].div_ceil(self.out_shape[1]).max(1)
    }
    pub fn in_len(&self) -> usize {
        self.in_shape.iter().product()
    }
    pub fn out_len(&self) -> usize {
        self.out_shape.iter().product()
    }
    /// (fan in, fan out) of a weight, for initialization.
    fn fans(&self) -> (usize, usize) {
        match self.layer {
            Layer::Dense { units } => (self.in_len(), units),
            Layer::Conv2d { filters, kernel, .. } => {
                (self.in_shape[0] * kernel * kernel, filters * kernel * kernel)
            }
            Layer::SkipAdd { .. } => (self.skip_shape[0], self.out_shape[0]),
            _ => (1, 1),
        }
    }
    /// Shape of W as exported: [units, inputs] or [filters, channels, kernel, kernel].
    pub fn w_shape(&self) -> Vec<usize> {
        match self.layer {
            Layer::Dense { units } => vec![units, self.in_len()],
            Layer::Conv2d { filters, kernel, .. } => vec![filters, self.in_shape[0], kernel, kernel],
            Layer::SkipAdd { .. } if self.w_len > 0 => vec![self.out_shape[0], self.skip_shape[0], 1, 1],
            Layer::BatchNorm { .. } | Layer::LayerNorm => vec![self.w_len],
            _ => vec![],
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Compiled {
    pub layers: Vec<CompiledLayer>,
    pub n_params: usize,
    /// Values of batch norm's running statistics (two per channel of every batch-norm layer).
    pub n_running: usize,
}

impl Compiled {
    pub fn classes(&self) -> usize {
        self.layers.last().map_or(0, |l| l.out_len())
    }
    pub fn input_len(&self) -> usize {
        self.layers.first().map_or(0, |l| l.in_len())
    }
}

/// Multiply-accumulates of one layer's forward pass of one sample (0 for layers without weights).
pub fn layer_macs(l: &CompiledLayer) -> usize {
    match l.layer {
        Layer::Dense { units } => units * l.in_len(),
        Layer::Conv2d { .. } => l.out_len() * l.in_shape[0] * l.w_shape()[2] * l.w_shape()[3],
        Layer::SkipAdd { .. } if l.w_len > 0 => l.out_len() * l.skip_shape[0],
        _ => 0,
    }
}

impl ModelSpec {
    /// An MLP: dense layers of the given widths with `activation` between them.
    pub fn mlp(inputs: usize, hidden: &[usize], classes: usize, activation: Activation) -> Self {
        let mut layers = Vec::new();
        for &units in hidden {
            layers.push(Layer::Dense { units });
            layers.push(Layer::Activation { kind: activation });
        }
        layers.push(Layer::Dense { units: classes });
        Self {
            input: [inputs, 1, 1],
            layers,
        }
    }

    /// Checks every shape and lays the parameters out; residual blocks are flattened into their
    /// start (`SkipFrom`), their layers and their end (`SkipAdd`).
    pub fn compile(&self) -> Result<Compiled, ModelError> {
        if self.input.contains(&0) {
            return Err(ModelError::ZeroInput);
        }
        let mut c = Compiled {
            layers: Vec::new(),
            n_params: 0,
            n_running: 0,
        };
        compile::compile_layers(&self.layers, self.input, &mut c)?;
        // One output is a regression model; classifiers are checked against their data's classes.
        if c.classes() < 1 {
            return Err(ModelError::NoOutput);
        }
        if c.n_params == 0 {
            return Err(ModelError::NoParameters);
        }
        Ok(c)
    }

    /// Seeded initial weights with the automatic scheme (`Init::Auto`).
    pub fn init(&self, compiled: &Compiled, seed: u64) -> Vec<f32> {
        self.init_with(compiled, seed, Init::Auto)
    }

    /// Seeded initial weights (normal, zero mean) with the standard deviation of `scheme`;
    /// biases zero.
    pub fn init_with(&self, compiled: &Compiled, seed: u64, scheme: Init) -> Vec<f32> {
        let mut rng = Rng::new(seed);
        let mut params = vec![0.0; compiled.n_params];
        for (i, l) in compiled.layers.iter().enumerate() {
            if !l.has_params() {
                continue;
            }
            if l.layer.is_norm() {
                params[l.w_off..l.b_off].fill(1.0);
                continue;
            }
            // The next layer that is not a normalization (conv → BN → ReLU is initialized for
            // the ReLU).
            let next = compiled.layers[i + 1..].iter().find(|n| !n.layer.is_norm());
            let relu_next = matches!(
                next.map(|n| &n.layer),
                Some(Layer::Activation {
                    kind: Activation::Relu | Activation::LeakyRelu
                })
            );
            let (fan_in, fan_out) = l.fans();
            let he = (2.0 / fan_in as f32).sqrt();
            let glorot = (2.0 / (fan_in + fan_out) as f32).sqrt();
            let std = match scheme {
                Init::Auto if relu_next => he,
                Init::Auto | Init::Glorot => glorot,
                Init::He => he,
                Init::Zero => 0.0,
            };
            for w in &mut params[l.w_off..l.b_off] {
                *w = rng.normal() * std;
            }
        }
        params
    }
}

impl CompiledLayer {
    /// A layer without parameters from `in_shape` to `out_shape`.
    fn plain(layer: Layer, in_shape: [usize; 3], out_shape: [usize; 3]) -> Self {
        Self {
            layer,
            in_shape,
            out_shape,
            w_off: 0,
            w_len: 0,
            b_off: 0,
            run_off: 0,
            skip_shape: [0; 3],
        }
    }
}

/// Batch norm's running statistics at the start: mean 0, variance 1 for every channel.
pub fn initial_running(c: &Compiled) -> Vec<f32> {
    (0..c.n_running).map(|i| (i % 2) as f32).collect()
}

#[cfg(test)]
mod tests;
