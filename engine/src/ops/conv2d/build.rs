//! A convolution's kernels as a plan (or a probe) lists them, each with the emulated GPU's
//! settings: `Kernel::fit_device` sets the device's tiles, chunks and row cap when a backend is
//! built.

use super::{
    Conv2dBackwardInput, Conv2dBackwardReduce, Conv2dBackwardWeight, Conv2dForward, ConvGeom, GRAD_CHUNK,
    ROW_GROUPS,
};
use crate::kernel::{BufId, Kernel};

impl Conv2dForward {
    /// One point's forward pass over its own input.
    pub fn single(input: BufId, params: BufId, output: BufId, g: ConvGeom) -> Conv2dForward {
        Conv2dForward {
            input,
            params,
            output,
            g,
            points: Default::default(),
            input_shared: false,
            row_groups: ROW_GROUPS,
            narrow: false,
        }
    }
}

/// Where a convolution's backward pass reads and writes: its input, the output's gradient and,
/// where the layer below needs it, the input's gradient; the weights (the input gradient reads
/// them), the per-chunk partial sums and the gradients they are reduced into.
#[derive(Clone, Copy, Debug)]
pub struct BackwardBuffers {
    pub input: BufId,
    pub d_out: BufId,
    pub d_in: Option<BufId>,
    pub params: BufId,
    pub partials: BufId,
    pub grads: BufId,
}

/// The backward pass: the weight gradient in per-chunk partial sums reduced into the gradients,
/// then the input gradient where `b.d_in` asks for it.
pub fn backward_kernels(g: ConvGeom, b: BackwardBuffers) -> Vec<Box<dyn Kernel>> {
    let mut kernels: Vec<Box<dyn Kernel>> = vec![
        Box::new(Conv2dBackwardWeight {
            input: b.input,
            d_out: b.d_out,
            partials: b.partials,
            g,
            chunk: GRAD_CHUNK,
            fetch_ahead: false,
            narrow: false,
        }),
        Box::new(Conv2dBackwardReduce {
            partials: b.partials,
            grads: b.grads,
            g,
            chunk: GRAD_CHUNK,
        }),
    ];
    if let Some(d_in) = b.d_in {
        kernels.push(Box::new(Conv2dBackwardInput {
            params: b.params,
            d_out: b.d_out,
            d_in,
            g,
            row_groups: ROW_GROUPS,
            narrow: false,
        }));
    }
    kernels
}
