//! Which tensors a training step keeps in which format, and how it scales the loss
//! (docs/theory.md §7.2–7.3; Micikevicius et al. 2018).

use serde::{Deserialize, Serialize};

use super::{Format, Rounding};

/// How the loss is scaled before backward so that small gradients survive a narrow format.
#[derive(Clone, Copy, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum LossScaling {
    #[default]
    None,
    /// One power of two for the whole run.
    Static { scale: f32 },
    /// Start at `initial`; halve and skip the step when a gradient overflows; double after
    /// `interval` steps without overflow (PyTorch's `GradScaler`, whose interval is 2000).
    Dynamic { initial: f32, interval: u32 },
    /// FP8 training's recipe (Micikevicius et al. 2022): every tensor stored in a reduced format
    /// has its own power-of-two scale, from the largest magnitude it took over its last `history`
    /// steps, less `margin` binades (`delayed`). The loss is not scaled and no step is skipped: a
    /// value past its tensor's range saturates at the format's largest.
    Delayed { history: u32, margin: u32 },
}

/// The dynamic scaler's start (PyTorch's default) and growth interval (shorter than PyTorch's
/// 2000: the lab's runs are a few thousand steps, and the scale should be seen to grow).
pub const DYNAMIC_INITIAL: f32 = 65536.0;
pub const DYNAMIC_INTERVAL: u32 = 200;

impl LossScaling {
    pub fn dynamic() -> Self {
        LossScaling::Dynamic {
            initial: DYNAMIC_INITIAL,
            interval: DYNAMIC_INTERVAL,
        }
    }

    /// Per-tensor delayed scaling with the lab's history and margin (`delayed::HISTORY`, `MARGIN`).
    pub fn delayed() -> Self {
        LossScaling::Delayed {
            history: super::delayed::HISTORY,
            margin: super::delayed::MARGIN,
        }
    }

    /// Each tensor has its own scale (the loss keeps 1).
    pub fn per_tensor(self) -> bool {
        matches!(self, LossScaling::Delayed { .. })
    }

    /// The loss scale of the first step (1 where the loss is not scaled).
    pub fn initial(self) -> f32 {
        match self {
            LossScaling::None | LossScaling::Delayed { .. } => 1.0,
            LossScaling::Static { scale } => scale,
            LossScaling::Dynamic { initial, .. } => initial,
        }
    }
}

/// The format of each class of tensor a step stores. Arithmetic is fp32 throughout (products
/// accumulate in fp32, as tensor cores do; reductions, exp and log, and the loss are fp32); a
/// tensor is rounded to its format where the step writes it.
#[derive(Clone, Copy, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Precision {
    /// The copy of the weights forward and backward read.
    pub weights: Format,
    /// Each layer's output in the forward pass (kept for backward).
    pub activations: Format,
    /// The gradients backward writes: of the loss, of each layer's input, of the weights.
    pub gradients: Format,
    /// The optimizer's moments or velocity.
    pub optimizer_state: Format,
    /// The weights the optimizer updates.
    pub master: Format,
    pub rounding: Rounding,
    pub loss_scaling: LossScaling,
}

/// The lab's presets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    /// Everything fp32.
    Fp32,
    /// Everything fp16, the master weights too, no loss scaling.
    NaiveFp16,
    /// fp16 weights, activations and gradients, fp32 master weights and optimizer state, dynamic
    /// loss scaling (Micikevicius et al. 2018).
    MixedFp16,
    /// The same with bf16, without loss scaling (Kalamkar et al. 2019).
    MixedBf16,
    /// E4M3 weights and activations, E5M2 gradients, fp32 master and state, each tensor scaled by
    /// its own delayed scale (Micikevicius et al. 2022; docs/theory.md §7.3).
    Fp8,
}

pub const PRESETS: [Preset; 5] = [
    Preset::Fp32,
    Preset::NaiveFp16,
    Preset::MixedFp16,
    Preset::MixedBf16,
    Preset::Fp8,
];

impl Preset {
    pub fn name(self) -> &'static str {
        match self {
            Preset::Fp32 => "fp32",
            Preset::NaiveFp16 => "fp16",
            Preset::MixedFp16 => "mixed-fp16",
            Preset::MixedBf16 => "mixed-bf16",
            Preset::Fp8 => "fp8",
        }
    }

    pub fn parse(name: &str) -> Option<Preset> {
        PRESETS.into_iter().find(|p| p.name() == name)
    }

    pub fn precision(self) -> Precision {
        let mixed = |f, g, loss_scaling| Precision {
            weights: f,
            activations: f,
            gradients: g,
            loss_scaling,
            ..Default::default()
        };
        match self {
            Preset::Fp32 => Precision::default(),
            Preset::NaiveFp16 => Precision {
                weights: Format::F16,
                activations: Format::F16,
                gradients: Format::F16,
                optimizer_state: Format::F16,
                master: Format::F16,
                ..Default::default()
            },
            Preset::MixedFp16 => mixed(Format::F16, Format::F16, LossScaling::dynamic()),
            Preset::MixedBf16 => mixed(Format::Bf16, Format::Bf16, LossScaling::None),
            Preset::Fp8 => mixed(Format::E4m3, Format::E5m2, LossScaling::delayed()),
        }
    }
}

impl Precision {
    /// Nothing is rounded and the loss is not scaled.
    pub fn is_fp32(&self) -> bool {
        *self == Precision::default()
    }

    /// The forward/backward copy of the weights differs from the master weights.
    pub fn has_weight_copy(&self) -> bool {
        self.weights != self.master
    }
}

/// Bytes one step keeps per class of tensor (the memory each choice saves): values × the
/// format's bytes. An fp32 master is kept beside a reduced weight copy. In u64: the browser's
/// `usize` is 32 bits, and a results file may say anything.
#[derive(Clone, Copy, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct TensorBytes {
    pub weights: u64,
    pub master: u64,
    pub activations: u64,
    pub gradients: u64,
    pub optimizer_state: u64,
}

impl TensorBytes {
    /// Their sum (saturating: a results file's values are checked, not trusted, before it).
    pub fn total(&self) -> u64 {
        [
            self.master,
            self.activations,
            self.gradients,
            self.optimizer_state,
        ]
        .iter()
        .fold(self.weights, |sum, b| sum.saturating_add(*b))
    }
}

/// The bytes of `precision` for a model of `params` parameters, `activations` values kept for
/// backward per step (every layer's output for the batch), and `state_vectors` optimizer vectors
/// (Adam 2, momentum 1, SGD 0).
pub fn tensor_bytes(
    precision: &Precision,
    params: usize,
    activations: usize,
    state_vectors: usize,
) -> TensorBytes {
    let b = |f: Format| f.spec().bytes as u64;
    let (params, activations, state_vectors) = (params as u64, activations as u64, state_vectors as u64);
    TensorBytes {
        weights: if precision.has_weight_copy() {
            params * b(precision.weights)
        } else {
            0
        },
        master: params * b(precision.master),
        activations: activations * b(precision.activations),
        gradients: params * b(precision.gradients),
        optimizer_state: state_vectors * params * b(precision.optimizer_state),
    }
}

/// What a step export says of its precision: each class of tensor's format by name, and how to
/// read the numbers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TensorFormats {
    pub weights: String,
    pub activations: String,
    pub gradients: String,
    pub optimizer_state: String,
    pub master: String,
    pub rounding: String,
    /// The loss scale of the exported step.
    pub loss_scale: f32,
    pub note: String,
}

impl Precision {
    /// The formats as a step export states them (None in fp32, where nothing is rounded).
    pub fn describe(&self, loss_scale: f32) -> Option<TensorFormats> {
        if self.is_fp32() {
            return None;
        }
        Some(TensorFormats {
            weights: self.weights.name().into(),
            activations: self.activations.name().into(),
            gradients: self.gradients.name().into(),
            optimizer_state: self.optimizer_state.name().into(),
            master: self.master.name().into(),
            rounding: format!("{:?}", self.rounding).to_lowercase(),
            loss_scale,
            note: "Every number is written as fp32. A reduced class's values are exactly representable in its format: the step rounds each tensor where it stores it (docs/theory.md §7.2). `parameters` and `parameters_after` are the master weights; forward and backward read them rounded to `weights`. `gradients` are the weight gradients as stored, rounded to `gradients`, divided by `loss_scale`. An exported step runs at the scale given here; a dynamic scaler's own scale applies only in training. Under delayed scaling (loss scale 1) each tensor is scaled by its own power of two 2^k before rounding and unscaled after: a stored value is a value of its format times 2^-k, k from the tensor's amax history at the time.".into(),
        })
    }
}
