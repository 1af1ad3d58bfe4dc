//! Compiles a model into the buffers and the ordered kernel lists of one training step and of a
//! forward-only prediction. Both backends run exactly these lists, which is what makes the CPU
//! path a faithful reference for the GPU one.

use crate::kernel::{BufId, BufferTable, Elem, Kernel};
use crate::model::{Layout, MlpSpec};
use crate::ops::activation::{ActBackward, ActForward, Activation};
use crate::ops::batch_mean::BatchMean;
use crate::ops::bias::{AddBias, BiasGrad};
use crate::ops::gather::Gather;
use crate::ops::matmul::{Matmul, MatmulDims};
use crate::ops::softmax_xent::{Softmax, SoftmaxXent};
use crate::optim::{self, Optimizer, OptimizerBuffers};

/// Steps whose metrics fit in the on-device log before the host must read it back.
pub const LOG_CAPACITY: usize = 256;

pub type KernelList = Vec<Box<dyn Kernel>>;

/// The buffers the host reads or writes.
#[derive(Clone, Copy, Debug)]
pub struct HostBuffers {
    pub params: BufId,
    pub grads: BufId,
    pub data_x: BufId,
    pub data_y: BufId,
    pub indices: BufId,
    pub log_loss: BufId,
    pub log_accuracy: BufId,
    pub predict_x: BufId,
    pub probs: BufId,
    pub segment_bounds: BufId,
}

/// The [start, end) bounds of every tensor in the flat buffer (W then b, layer by layer).
pub fn segment_bounds(layout: &Layout) -> Vec<u32> {
    let mut b = vec![0u32];
    for l in &layout.layers {
        b.push(l.b_off as u32);
        b.push((l.b_off + l.outputs) as u32);
    }
    b
}

pub struct Plan {
    pub table: BufferTable,
    /// Forward, loss, backward, then the optimizer's kernels from `optimizer_start` on.
    pub train: KernelList,
    pub optimizer_start: usize,
    pub predict: KernelList,
    pub host: HostBuffers,
    pub batch: usize,
    pub predict_rows: usize,
}

pub struct PlanConfig<'a> {
    pub spec: &'a MlpSpec,
    pub optimizer: Optimizer,
    pub batch: usize,
    pub data_rows: usize,
    pub predict_rows: usize,
}

/// The network a forward pass runs: its layout, activation and parameter buffer.
struct Net<'a> {
    layout: &'a Layout,
    act: Activation,
    params: BufId,
}

/// Forward pass over `rows` samples in `input`; returns (pre-activations, activations) per layer.
/// The last layer's activations are its logits (no activation).
fn forward(
    table: &mut BufferTable,
    ops: &mut KernelList,
    net: &Net,
    input: BufId,
    rows: usize,
    tag: &str,
) -> (Vec<BufId>, Vec<BufId>) {
    let Net { layout, act, params } = *net;
    let (mut zs, mut hs) = (Vec::new(), Vec::new());
    let mut h_prev = input;
    let last = layout.layers.len() - 1;
    for (i, l) in layout.layers.iter().enumerate() {
        let z = table.add(&format!("{tag}.z{i}"), Elem::F32, rows * l.outputs);
        ops.push(Box::new(Matmul {
            a: h_prev,
            b: params,
            c: z,
            // Z = H · Wᵀ: B[k = input j, n = output o] = W[o·in + j].
            dims: MatmulDims {
                m: rows,
                n: l.outputs,
                k: l.inputs,
                a_rs: l.inputs,
                a_cs: 1,
                b_off: l.w_off,
                b_rs: 1,
                b_cs: l.inputs,
                ..Default::default()
            },
        }));
        ops.push(Box::new(AddBias {
            params,
            bias_off: l.b_off,
            z,
            rows,
            cols: l.outputs,
        }));
        let h = if i == last {
            z
        } else {
            let h = table.add(&format!("{tag}.h{i}"), Elem::F32, rows * l.outputs);
            ops.push(Box::new(ActForward {
                kind: act,
                z,
                h,
                n: rows * l.outputs,
            }));
            h
        };
        zs.push(z);
        hs.push(h);
        h_prev = h;
    }
    (zs, hs)
}

impl Plan {
    pub fn new(cfg: &PlanConfig) -> Self {
        let spec = cfg.spec;
        let layout = spec.layout();
        let n = layout.n_params;
        let b = cfg.batch;
        let mut t = BufferTable::default();
        let params = t.add("params", Elem::F32, n);
        let grads = t.add("grads", Elem::F32, n);
        let opt_a = t.add("optimizer.m", Elem::F32, n);
        let opt_b = t.add("optimizer.v", Elem::F32, n);
        let data_x = t.add("data.x", Elem::F32, cfg.data_rows * spec.inputs);
        let data_y = t.add("data.y", Elem::U32, cfg.data_rows);
        let indices = t.add("batch.indices", Elem::U32, b);
        let batch_x = t.add("batch.x", Elem::F32, b * spec.inputs);
        let batch_y = t.add("batch.y", Elem::U32, b);
        let loss = t.add("batch.loss", Elem::F32, b);
        let correct = t.add("batch.correct", Elem::F32, b);
        let log_loss = t.add("log.loss", Elem::F32, LOG_CAPACITY);
        let log_accuracy = t.add("log.accuracy", Elem::F32, LOG_CAPACITY);
        // Each weight matrix and each bias is one tensor for LARS's per-tensor trust ratio.
        let segment_bounds = t.add("optimizer.bounds", Elem::U32, layout.layers.len() * 2 + 1);
        let segment_norms = t.add("optimizer.norms", Elem::F32, layout.layers.len() * 4);

        let mut train: KernelList = Vec::new();
        train.push(Box::new(Gather {
            data_x,
            data_y,
            indices,
            batch_x,
            batch_y,
            rows: b,
            dim: spec.inputs,
        }));
        let net = Net {
            layout: &layout,
            act: spec.activation,
            params,
        };
        let (zs, hs) = forward(&mut t, &mut train, &net, batch_x, b, "train");
        let last = layout.layers.len() - 1;
        // Gradients w.r.t. each layer's pre-activation, dZ, and w.r.t. each hidden activation, dH.
        let dzs: Vec<BufId> = layout
            .layers
            .iter()
            .enumerate()
            .map(|(i, l)| t.add(&format!("train.dz{i}"), Elem::F32, b * l.outputs))
            .collect();
        train.push(Box::new(SoftmaxXent {
            logits: zs[last],
            labels: batch_y,
            loss,
            correct,
            dlogits: dzs[last],
            rows: b,
            classes: spec.classes,
        }));
        train.push(Box::new(BatchMean {
            loss,
            correct,
            log_loss,
            log_accuracy,
            rows: b,
        }));
        for i in (0..=last).rev() {
            let l = layout.layers[i];
            let h_prev = if i == 0 { batch_x } else { hs[i - 1] };
            // dW = dZᵀ · H_prev: A[m = o, k = r] = dZ[r·out + o], B[k = r, n = j] = H[r·in + j].
            train.push(Box::new(Matmul {
                a: dzs[i],
                b: h_prev,
                c: grads,
                dims: MatmulDims {
                    m: l.outputs,
                    n: l.inputs,
                    k: b,
                    a_rs: 1,
                    a_cs: l.outputs,
                    b_rs: l.inputs,
                    b_cs: 1,
                    c_off: l.w_off,
                    ..Default::default()
                },
            }));
            train.push(Box::new(BiasGrad {
                dz: dzs[i],
                grads,
                bias_off: l.b_off,
                rows: b,
                cols: l.outputs,
            }));
            if i > 0 {
                // dH_prev = dZ · W, then through the previous layer's activation.
                let dh = t.add(&format!("train.dh{}", i - 1), Elem::F32, b * l.inputs);
                train.push(Box::new(Matmul {
                    a: dzs[i],
                    b: params,
                    c: dh,
                    dims: MatmulDims {
                        m: b,
                        n: l.inputs,
                        k: l.outputs,
                        a_rs: l.outputs,
                        a_cs: 1,
                        b_off: l.w_off,
                        b_rs: l.inputs,
                        b_cs: 1,
                        ..Default::default()
                    },
                }));
                train.push(Box::new(ActBackward {
                    kind: spec.activation,
                    z: zs[i - 1],
                    dh,
                    dz: dzs[i - 1],
                    n: b * l.inputs,
                }));
            }
        }
        let optimizer_start = train.len();
        train.extend(optim::kernels(
            cfg.optimizer,
            OptimizerBuffers {
                grads,
                weights: params,
                state_a: opt_a,
                state_b: opt_b,
                bounds: segment_bounds,
                norms: segment_norms,
                n,
                segments: layout.layers.len() * 2,
            },
        ));

        let p = cfg.predict_rows;
        let predict_x = t.add("predict.x", Elem::F32, p * spec.inputs);
        let probs = t.add("predict.probs", Elem::F32, p * spec.classes);
        let mut predict: KernelList = Vec::new();
        let (pz, _) = forward(&mut t, &mut predict, &net, predict_x, p, "predict");
        predict.push(Box::new(Softmax {
            logits: pz[last],
            probs,
            rows: p,
            classes: spec.classes,
        }));

        Plan {
            table: t,
            train,
            optimizer_start,
            predict,
            host: HostBuffers {
                params,
                grads,
                segment_bounds,
                data_x,
                data_y,
                indices,
                log_loss,
                log_accuracy,
                predict_x,
                probs,
            },
            batch: b,
            predict_rows: p,
        }
    }
}
