//! An MLP as data: a spec (inputs → hidden widths → classes) compiled to offsets into one flat
//! parameter buffer, llm.c style. Gradients and optimizer state use the same layout.

use serde::{Deserialize, Serialize};

use crate::ops::activation::Activation;
use crate::rng::Rng;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MlpSpec {
    pub inputs: usize,
    pub hidden: Vec<usize>,
    pub classes: usize,
    pub activation: Activation,
}

/// One dense layer's place in the flat buffer: W is out×in (row-major, one row per output neuron),
/// then the bias of length out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DenseLayout {
    pub inputs: usize,
    pub outputs: usize,
    pub w_off: usize,
    pub b_off: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub layers: Vec<DenseLayout>,
    pub n_params: usize,
}

impl MlpSpec {
    pub fn widths(&self) -> Vec<usize> {
        let mut w = vec![self.inputs];
        w.extend(&self.hidden);
        w.push(self.classes);
        w
    }

    pub fn layout(&self) -> Layout {
        let mut layers = Vec::new();
        let mut off = 0;
        for pair in self.widths().windows(2) {
            let (i, o) = (pair[0], pair[1]);
            layers.push(DenseLayout {
                inputs: i,
                outputs: o,
                w_off: off,
                b_off: off + i * o,
            });
            off += i * o + o;
        }
        Layout {
            layers,
            n_params: off,
        }
    }

    /// Seeded initial weights: He (std √(2/in)) before ReLU-like activations, Glorot
    /// (std √(2/(in+out))) otherwise; biases zero.
    pub fn init(&self, seed: u64) -> Vec<f32> {
        let layout = self.layout();
        let mut rng = Rng::new(seed);
        let mut params = vec![0.0; layout.n_params];
        for l in &layout.layers {
            let std = match self.activation {
                Activation::Relu | Activation::LeakyRelu => (2.0 / l.inputs as f32).sqrt(),
                _ => (2.0 / (l.inputs + l.outputs) as f32).sqrt(),
            };
            for w in &mut params[l.w_off..l.b_off] {
                *w = rng.normal() * std;
            }
        }
        params
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.inputs == 0 || self.classes < 2 {
            return Err("a model needs at least one input and two classes".into());
        }
        if self.hidden.contains(&0) {
            return Err("every hidden layer needs at least one neuron".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_contiguous() {
        let spec = MlpSpec {
            inputs: 2,
            hidden: vec![8, 3],
            classes: 2,
            activation: Activation::Tanh,
        };
        let l = spec.layout();
        assert_eq!(l.layers.len(), 3);
        assert_eq!(
            l.layers[0],
            DenseLayout {
                inputs: 2,
                outputs: 8,
                w_off: 0,
                b_off: 16
            }
        );
        assert_eq!(l.layers[1].w_off, 24);
        assert_eq!(l.n_params, (2 * 8 + 8) + (8 * 3 + 3) + (3 * 2 + 2));
        let p = spec.init(1);
        assert_eq!(p, spec.init(1));
        assert!(p[16..24].iter().all(|&b| b == 0.0));
    }
}
