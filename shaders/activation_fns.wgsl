// The activations and their derivatives, shared by `activation.wgsl` (element-wise kernels)
// and `matmul_fused.wgsl` (an activation in the product's epilogue); the engine puts this file
// before either. kind: 0 linear, 1 ReLU, 2 tanh, 3 sigmoid, 4 leaky ReLU (slope 0.01),
// 5 GELU (the tanh form, its inner term clamped where tanh is ±1: a GPU's tanh may overflow).

const LEAK: f32 = 0.01;
const GELU_C: f32 = 0.7978846;
const GELU_A: f32 = 0.044715;

fn gelu_tanh(x: f32) -> f32 { return tanh(clamp(GELU_C * (x + GELU_A * x * x * x), -15.0, 15.0)); }

// The one activation a pipeline applies, set by the engine where it knows it (an overridable
// constant, so the compiler keeps only its case: a GPU emulated on the processor runs every case
// of a switch, masked, for every value). ANY_KIND: each call's own `kind`.
const ANY_KIND: u32 = 255u;
override KIND: u32 = 255u;

fn kind_of(kind: u32) -> u32 { return select(kind, KIND, KIND != ANY_KIND); }

fn act(kind: u32, x: f32) -> f32 {
    switch kind_of(kind) {
        case 1u: { return max(x, 0.0); }
        case 2u: { return tanh(x); }
        case 3u: { return 1.0 / (1.0 + exp(-x)); }
        case 4u: { return select(LEAK * x, x, x > 0.0); }
        case 5u: { return 0.5 * x * (1.0 + gelu_tanh(x)); }
        default: { return x; }
    }
}

fn act_derivative(kind: u32, x: f32) -> f32 {
    switch kind_of(kind) {
        case 1u: { return select(0.0, 1.0, x > 0.0); }
        case 2u: { let t = tanh(x); return 1.0 - t * t; }
        case 3u: { let s = 1.0 / (1.0 + exp(-x)); return s * (1.0 - s); }
        case 4u: { return select(LEAK, 1.0, x > 0.0); }
        case 5u: {
            let t = gelu_tanh(x);
            return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * GELU_C * (1.0 + 3.0 * GELU_A * x * x);
        }
        default: { return 1.0; }
    }
}
