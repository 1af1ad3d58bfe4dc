//! Element-wise activations and their derivatives (`shaders/activation.wgsl`).

use serde::{Deserialize, Serialize};

use crate::kernel::{groups_1d, wgsl_with, BufId, CpuBuffers, Kernel, Shader, StepScalars, Words};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Activation {
    Linear,
    Relu,
    #[default]
    Tanh,
    Sigmoid,
    LeakyRelu,
    /// x·Φ(x) in the tanh form of Hendrycks & Gimpel 2016 (GPT-2's): WGSL has no erf.
    Gelu,
}

pub const LEAK: f32 = 0.01;

/// √(2/π), GELU's tanh form's scale.
const GELU_C: f32 = 0.797_884_6;
/// GELU's cubic term.
const GELU_A: f32 = 0.044_715;

/// tanh of GELU's inner term, clamped where tanh is ±1 in f32 (a GPU's tanh may overflow past it).
/// As (e²ᵘ − 1)/(e²ᵘ + 1): one `exp` is a fraction of libm's `tanhf` (which goes through `expm1f`),
/// and GELU's tanh was most of a transformer step on the CPU path; it differs from `tanh` by
/// float rounding (below 1e-7 absolutely, which the known points below check).
fn gelu_tanh(x: f32) -> f32 {
    let e = (2.0 * (GELU_C * (x + GELU_A * x * x * x)).clamp(-15.0, 15.0)).exp();
    (e - 1.0) / (e + 1.0)
}

impl Activation {
    pub const ALL: [Activation; 6] = [
        Activation::Linear,
        Activation::Relu,
        Activation::Tanh,
        Activation::Sigmoid,
        Activation::LeakyRelu,
        Activation::Gelu,
    ];

    /// The `kind` code the shader switches on.
    pub fn code(self) -> u32 {
        match self {
            Activation::Linear => 0,
            Activation::Relu => 1,
            Activation::Tanh => 2,
            Activation::Sigmoid => 3,
            Activation::LeakyRelu => 4,
            Activation::Gelu => 5,
        }
    }

    pub fn apply(self, x: f32) -> f32 {
        match self {
            Activation::Linear => x,
            Activation::Relu => x.max(0.0),
            Activation::Tanh => x.tanh(),
            Activation::Sigmoid => 1.0 / (1.0 + (-x).exp()),
            Activation::LeakyRelu => {
                if x > 0.0 {
                    x
                } else {
                    LEAK * x
                }
            }
            Activation::Gelu => 0.5 * x * (1.0 + gelu_tanh(x)),
        }
    }

    pub fn derivative(self, x: f32) -> f32 {
        match self {
            Activation::Linear => 1.0,
            Activation::Relu => (x > 0.0) as u8 as f32,
            Activation::Tanh => 1.0 - x.tanh().powi(2),
            Activation::Sigmoid => {
                let s = self.apply(x);
                s * (1.0 - s)
            }
            Activation::LeakyRelu => {
                if x > 0.0 {
                    1.0
                } else {
                    LEAK
                }
            }
            Activation::Gelu => {
                let t = gelu_tanh(x);
                0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * GELU_C * (1.0 + 3.0 * GELU_A * x * x)
            }
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Activation::Linear => "linear",
            Activation::Relu => "ReLU",
            Activation::Tanh => "tanh",
            Activation::Sigmoid => "sigmoid",
            Activation::LeakyRelu => "leaky ReLU",
            Activation::Gelu => "GELU",
        }
    }
}

/// h = act(z), element-wise over n values.
#[derive(Clone)]
pub struct ActForward {
    pub kind: Activation,
    pub z: BufId,
    pub h: BufId,
    pub n: usize,
}

/// dz = dh · act'(z).
#[derive(Clone)]
pub struct ActBackward {
    pub kind: Activation,
    pub z: BufId,
    pub dh: BufId,
    pub dz: BufId,
    pub n: usize,
}

/// The pipeline's one activation (`KIND` in `shaders/activation_fns.wgsl`): a pipeline per kind
/// used, everywhere, since an emulated GPU would otherwise run every kind for every value.
pub fn kind_constant(kind: Activation) -> Vec<(&'static str, f64)> {
    vec![("KIND", kind.code() as f64)]
}

pub fn act_forward_cpu(kind: Activation, z: &[f32], h: &mut [f32]) {
    for (h, &z) in h.iter_mut().zip(z) {
        *h = kind.apply(z);
    }
}

pub fn act_backward_cpu(kind: Activation, z: &[f32], dh: &[f32], dz: &mut [f32]) {
    for ((dz, &z), &dh) in dz.iter_mut().zip(z).zip(dh) {
        *dz = dh * kind.derivative(z);
    }
}

impl Kernel for ActForward {
    fn bytes(&self) -> f64 {
        8.0 * self.n as f64
    }
    fn shader(&self) -> Shader {
        wgsl_with!(["activation_fns.wgsl"], "activation.wgsl", "forward")
    }
    fn constants(&self, _fine: bool) -> Vec<(&'static str, f64)> {
        kind_constant(self.kind)
    }
    fn params(&self, _: &StepScalars) -> Words {
        Words::default().u("n", self.n as u32).u("kind", self.kind.code())
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.z), (2, self.h)]
    }
    fn strided(&self) -> bool {
        true
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.n, 256)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let mut h = bufs.take_f32(self.h);
        act_forward_cpu(self.kind, &bufs.f32(self.z)[..self.n], &mut h[..self.n]);
        bufs.put_f32(self.h, h);
    }
}

impl Kernel for ActBackward {
    fn bytes(&self) -> f64 {
        12.0 * self.n as f64
    }
    fn shader(&self) -> Shader {
        wgsl_with!(["activation_fns.wgsl"], "activation.wgsl", "backward")
    }
    fn constants(&self, _fine: bool) -> Vec<(&'static str, f64)> {
        kind_constant(self.kind)
    }
    fn params(&self, _: &StepScalars) -> Words {
        Words::default().u("n", self.n as u32).u("kind", self.kind.code())
    }
    fn bindings(&self) -> Vec<(u32, BufId)> {
        vec![(1, self.z), (3, self.dh), (4, self.dz)]
    }
    fn strided(&self) -> bool {
        true
    }
    fn workgroups(&self) -> [u32; 3] {
        groups_1d(self.n, 256)
    }
    fn run_cpu(&self, bufs: &mut CpuBuffers, _: &StepScalars) {
        let mut dz = bufs.take_f32(self.dz);
        let n = self.n;
        act_backward_cpu(
            self.kind,
            &bufs.f32(self.z)[..n],
            &bufs.f32(self.dh)[..n],
            &mut dz[..n],
        );
        bufs.put_f32(self.dz, dz);
    }
}

#[cfg(test)]
mod tests {
    use super::Activation::Gelu;

    #[test]
    fn gelu_at_known_points() {
        // The tanh form's published values (PyTorch's GELU(approximate='tanh')): 0.841192 at 1,
        // −0.158808 at −1; x far out is x or 0, its slope 1 or 0; at 0 the slope is ½.
        assert!((Gelu.apply(1.0) - 0.841_192).abs() < 1e-6);
        assert!((Gelu.apply(-1.0) + 0.158_808).abs() < 1e-6);
        assert_eq!(
            (Gelu.apply(0.0), Gelu.apply(30.0), Gelu.apply(-30.0)),
            (0.0, 30.0, 0.0)
        );
        assert_eq!(
            (
                Gelu.derivative(0.0),
                Gelu.derivative(30.0),
                Gelu.derivative(-30.0)
            ),
            (0.5, 1.0, 0.0)
        );
    }

    #[test]
    fn gelu_tanh_by_exp_is_libm_tanh_to_rounding() {
        for i in -4000..=4000 {
            let x = i as f32 / 500.0;
            let u = (super::GELU_C * (x + super::GELU_A * x * x * x)).clamp(-15.0, 15.0);
            let (ours, libm) = (super::gelu_tanh(x), u.tanh());
            assert!((ours - libm).abs() < 2e-7, "{x}: {ours} against {libm}");
        }
    }
}
