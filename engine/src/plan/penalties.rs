//! The penalties added to the loss's gradient before the update: L1 and L2 on the weights (not
//! the biases), and group lasso on each hidden dense layer's neurons.

use crate::kernel::BufId;
use crate::model::{Compiled, CompiledLayer, Layer};
use crate::ops::group_lasso::GroupLasso;
use crate::ops::regularize::Regularize;

use super::{KernelList, Regularization};

/// The penalties' kernels for `model` under `r`: `(weights, grads, bounds)` the buffers, `(n,
/// segments)` the parameters and the optimizer's segments (a layer's weights, its bias).
pub(super) fn kernels(
    model: &Compiled,
    r: Regularization,
    (weights, grads, bounds): (BufId, BufId, BufId),
    (n, segments): (usize, usize),
) -> KernelList {
    let mut out: KernelList = Vec::new();
    if r.l1 != 0.0 || r.l2 != 0.0 {
        out.push(Box::new(Regularize {
            weights,
            grads,
            bounds,
            n,
            segments,
            l1: r.l1,
            l2: r.l2,
        }));
    }
    if r.group != 0.0 {
        // Every dense layer but the output: its rows are the neurons a structured pruning
        // removes.
        let dense: Vec<&CompiledLayer> = (model.layers.iter())
            .filter(|l| matches!(l.layer, Layer::Dense { .. }))
            .collect();
        for l in dense.iter().take(dense.len().saturating_sub(1)) {
            out.push(Box::new(GroupLasso {
                weights,
                grads,
                w_off: l.w_off,
                inputs: l.in_len(),
                outputs: l.out_len(),
                lambda: r.group,
            }));
        }
    }
    out
}
