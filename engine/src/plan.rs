//! Compiles a model into the buffers and the ordered kernel lists of one training step and of a
//! forward-only prediction. Both backends run exactly these lists, which is what makes the CPU
//! path a faithful reference for the GPU one.

use crate::kernel::{BufId, BufferTable, Elem, Kernel, Points};
use crate::model::{Compiled, CompiledLayer, Layer};
use crate::ops::activation::{ActBackward, ActForward};
use crate::ops::batch_mean::BatchMean;
use crate::ops::bias::{AddBias, BiasGrad};
use crate::ops::conv2d::{
    Conv2dBackwardInput, Conv2dBackwardReduce, Conv2dBackwardWeight, Conv2dForward, ConvGeom,
};
use crate::ops::dropout::{self, Dropout};
use crate::ops::gather::Gather;
use crate::ops::matmul::{Matmul, MatmulDims};
use crate::ops::mse::Mse;
use crate::ops::pool::{PoolBackward, PoolForward, PoolGeom};
use crate::ops::regularize::Regularize;
use crate::ops::softmax_xent::{Softmax, SoftmaxXent};
use crate::ops::weight_offset::WeightOffset;
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
    /// The optimizer's two state vectors (velocity, moments, accumulators), one value per
    /// parameter each.
    pub optimizer_a: BufId,
    pub optimizer_b: BufId,
}

/// The buffers of the landscape evaluation (`Plan::evaluate`): a fixed set of samples on the
/// device, a plane (center and two directions) and a list of points on it; the mean loss and
/// accuracy at point i land in slot i of the log.
#[derive(Clone, Copy, Debug)]
pub struct EvalBuffers {
    pub x: BufId,
    pub y: BufId,
    pub center: BufId,
    pub d1: BufId,
    pub d2: BufId,
    pub points: BufId,
    pub log_loss: BufId,
    pub log_accuracy: BufId,
    /// Points evaluated side by side in one run of `Plan::evaluate` (see `eval_points`).
    pub points_per_pass: usize,
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
    /// Each layer's output in the predict pass (layer i writes `predict_acts[i]`).
    pub predict_acts: Vec<BufId>,
    /// The loss at `eval.points_per_pass` points of a plane through weight space, over
    /// `eval_rows` samples: the points' weights, the forward pass, the loss and its mean per
    /// point. Empty when `eval_rows` is 0.
    pub evaluate: KernelList,
    pub eval: Option<EvalBuffers>,
    pub eval_rows: usize,
}

/// The training loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Loss {
    /// Softmax cross-entropy (docs/theory.md §1.1).
    #[default]
    CrossEntropy,
    /// Mean squared error of the raw outputs against one-hot targets.
    Mse,
}

/// L1 / L2 penalties on the weights (not the biases), added to their gradients in the update.
#[derive(Clone, Copy, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Regularization {
    pub l1: f32,
    pub l2: f32,
}

pub struct PlanConfig<'a> {
    pub model: &'a Compiled,
    pub loss: Loss,
    pub regularization: Regularization,
    /// Seeds the dropout masks.
    pub seed: u32,
    pub optimizer: Optimizer,
    pub batch: usize,
    pub data_rows: usize,
    /// The data's features are bytes, stored four to a word (`Dataset::packed_u8`).
    pub data_packed: bool,
    /// Real targets (their f32 bits in the label buffer) instead of classes; needs `Loss::Mse`.
    pub regression: bool,
    pub predict_rows: usize,
    /// Samples in the landscape evaluation (0: no evaluation plan).
    pub eval_rows: usize,
    /// Several landscape points per evaluation pass (`eval_points`); else one.
    pub eval_batched: bool,
}

/// The per-sample loss and correctness of `rows` outputs against `labels`, and the loss's
/// gradient with respect to the outputs.
#[allow(clippy::too_many_arguments)]
fn loss_kernel(
    cfg: &PlanConfig,
    outputs: BufId,
    labels: BufId,
    loss: BufId,
    correct: BufId,
    d_outputs: BufId,
    rows: usize,
) -> Box<dyn Kernel> {
    let classes = cfg.model.classes();
    match cfg.loss {
        Loss::CrossEntropy => Box::new(SoftmaxXent {
            logits: outputs,
            labels,
            loss,
            correct,
            dlogits: d_outputs,
            rows,
            classes,
        }),
        Loss::Mse => Box::new(Mse {
            outputs,
            labels,
            loss,
            correct,
            d_outputs,
            rows,
            classes,
            regression: cfg.regression,
        }),
    }
}

/// Device memory one landscape evaluation pass may take for its points' weights and
/// activations. Small nets get many points per dispatch (their single point is a dispatch of a
/// few hundred values); a pass stays small enough to run from the cache of a CPU-emulated GPU,
/// where 32 MNIST MLP points at once (48 MB) ran 15–30 % slower than one at a time.
pub const EVAL_BUDGET_BYTES: usize = 16 << 20;
/// The most landscape points evaluated in one pass (a divisor of `LOG_CAPACITY`).
pub const MAX_EVAL_POINTS: usize = 32;

/// How many landscape points one evaluation pass runs side by side: as many as fit in
/// `EVAL_BUDGET_BYTES` (weights, activations, per-sample loss), at least one, at most
/// `MAX_EVAL_POINTS`, a power of two so that the log's 256 slots hold whole passes. A model whose
/// first layer has no weights (a pool or an activation on the data) runs one point at a time:
/// the batched kernels are the ones with weights.
pub fn eval_points(model: &Compiled, rows: usize) -> usize {
    let first = model.layers.iter().find(|l| !matches!(l.layer, Layer::Flatten));
    if !first.is_some_and(|l| l.has_params()) {
        return 1;
    }
    let acts: usize = model
        .layers
        .iter()
        .filter(|l| !matches!(l.layer, Layer::Flatten))
        .map(|l| {
            l.out_len()
                * if matches!(l.layer, Layer::Pool { .. }) {
                    2
                } else {
                    1
                }
        })
        .sum();
    let per_point = 4 * (model.n_params + rows * (acts + model.classes() + 3));
    let fit = (EVAL_BUDGET_BYTES / per_point.max(1)).clamp(1, MAX_EVAL_POINTS);
    1 << fit.ilog2()
}

/// The landscape evaluation: buffers and kernels (see `Plan::evaluate`).
fn evaluation(t: &mut BufferTable, cfg: &PlanConfig) -> (KernelList, EvalBuffers) {
    let model = cfg.model;
    let (n, r) = (model.n_params, cfg.eval_rows);
    let count = if cfg.eval_batched {
        eval_points(model, r)
    } else {
        1
    };
    let b = EvalBuffers {
        x: t.add("eval.x", Elem::F32, r * model.input_len()),
        // The labels once per point: the loss kernel reads them row by row.
        y: t.add("eval.y", Elem::U32, count * r),
        center: t.add("eval.center", Elem::F32, n),
        d1: t.add("eval.d1", Elem::F32, n),
        d2: t.add("eval.d2", Elem::F32, n),
        points: t.add("eval.points", Elem::F32, 2 * LOG_CAPACITY),
        log_loss: t.add("eval.log.loss", Elem::F32, LOG_CAPACITY),
        log_accuracy: t.add("eval.log.accuracy", Elem::F32, LOG_CAPACITY),
        points_per_pass: count,
    };
    let weights = t.add("eval.weights", Elem::F32, count * n);
    let loss = t.add("eval.loss", Elem::F32, count * r);
    let correct = t.add("eval.correct", Elem::F32, count * r);
    let d_outputs = t.add("eval.d_outputs", Elem::F32, count * r * model.classes());
    let mut ops: KernelList = vec![Box::new(WeightOffset {
        center: b.center,
        d1: b.d1,
        d2: b.d2,
        points: b.points,
        weights,
        n,
        count,
    })];
    // The training forward pass (dropout off), every point on its own weights.
    let points = Points::new(count, n);
    let f = forward(t, &mut ops, model, weights, b.x, (r, points), "eval", None);
    let outputs = *f.acts.last().expect("a model has layers");
    ops.push(loss_kernel(
        cfg,
        outputs,
        b.y,
        loss,
        correct,
        d_outputs,
        count * r,
    ));
    ops.push(Box::new(BatchMean {
        loss,
        correct,
        log_loss: b.log_loss,
        log_accuracy: b.log_accuracy,
        rows: r,
        batches: count,
    }));
    (ops, b)
}

/// The [start, end) bounds of every parameter tensor in the flat buffer (W then bias, layer by
/// layer): LARS gives each its own trust ratio.
pub fn segment_bounds(model: &Compiled) -> Vec<u32> {
    let mut b = vec![0u32];
    for l in model.layers.iter().filter(|l| l.has_params()) {
        b.push(l.b_off as u32);
        b.push((l.b_off + l.out_shape[0]) as u32);
    }
    b
}

fn conv_geom(l: &CompiledLayer, rows: usize) -> ConvGeom {
    let Layer::Conv2d {
        filters,
        kernel,
        stride,
        padding,
    } = l.layer
    else {
        unreachable!("not a conv layer")
    };
    let [c, h, w] = l.in_shape;
    ConvGeom {
        batch: rows,
        in_c: c,
        in_h: h,
        in_w: w,
        out_c: filters,
        k_h: kernel,
        k_w: kernel,
        stride,
        pad: padding,
        w_off: l.w_off,
        b_off: l.b_off,
    }
}

fn pool_geom(l: &CompiledLayer, rows: usize) -> PoolGeom {
    let Layer::Pool { size, stride, .. } = l.layer else {
        unreachable!("not a pool layer")
    };
    let [c, h, w] = l.in_shape;
    PoolGeom {
        planes: rows * c,
        in_h: h,
        in_w: w,
        size,
        stride,
    }
}

/// What the forward pass leaves for the backward pass: each layer's input and output buffer
/// (acts[i] → layer i → acts[i + 1]) and the arg-max of every max-pool.
struct Forward {
    acts: Vec<BufId>,
    argmax: Vec<Option<BufId>>,
}

/// Forward pass over `rows` samples in `input`; the last buffer holds the logits. Dropout runs
/// only when `dropout_seed` is given (training). With several `points` (the landscape), each
/// runs the same samples on its own weights in one dispatch per kernel: every buffer after the
/// input holds the points' blocks of `rows` samples one after another.
#[allow(clippy::too_many_arguments)]
fn forward(
    t: &mut BufferTable,
    ops: &mut KernelList,
    model: &Compiled,
    params: BufId,
    input: BufId,
    (rows, points): (usize, Points),
    tag: &str,
    dropout_seed: Option<u32>,
) -> Forward {
    let copies = points.n();
    let mut acts = vec![input];
    let mut argmax = Vec::new();
    for (i, l) in model.layers.iter().enumerate() {
        let x = acts[i];
        if matches!(l.layer, Layer::Flatten)
            || (matches!(l.layer, Layer::Dropout { .. }) && dropout_seed.is_none())
        {
            // Same memory (new shape, or dropout off when predicting).
            acts.push(x);
            argmax.push(None);
            continue;
        }
        let len = copies * rows * l.out_len();
        let y = t.add(&format!("{tag}.act{}", i + 1), Elem::F32, len);
        // The points share the data (the input, or a flatten of it); later layers are per point.
        let input_shared = x == input;
        let mut arg = None;
        match l.layer {
            Layer::Dense { units } => {
                let inputs = l.in_len();
                ops.push(Box::new(Matmul {
                    a: x,
                    b: params,
                    c: y,
                    parallel: 0,
                    // Y = X · Wᵀ: B[k = input j, n = output o] = W[o·in + j].
                    dims: MatmulDims {
                        m: rows,
                        n: units,
                        k: inputs,
                        a_rs: inputs,
                        a_cs: 1,
                        b_off: l.w_off,
                        b_rs: 1,
                        b_cs: inputs,
                        batch: copies,
                        a_bs: if input_shared { 0 } else { rows * inputs },
                        b_bs: points.param_stride,
                        c_bs: rows * units,
                        ..Default::default()
                    },
                }));
                ops.push(Box::new(AddBias {
                    params,
                    bias_off: l.b_off,
                    z: y,
                    rows,
                    cols: units,
                    points,
                }));
            }
            Layer::Conv2d { .. } => ops.push(Box::new(Conv2dForward {
                input: x,
                params,
                output: y,
                g: conv_geom(l, rows),
                points,
                input_shared,
            })),
            Layer::Pool { kind, .. } => {
                let g = pool_geom(l, copies * rows);
                let a = t.add(&format!("{tag}.argmax{}", i + 1), Elem::U32, g.out_len());
                ops.push(Box::new(PoolForward {
                    kind,
                    input: x,
                    output: y,
                    argmax: a,
                    g,
                }));
                arg = Some(a);
            }
            Layer::Activation { kind } => ops.push(Box::new(ActForward {
                kind,
                z: x,
                h: y,
                n: len,
            })),
            Layer::Dropout { rate } => ops.push(Box::new(Dropout {
                x,
                y,
                n: len,
                seed: dropout_seed.unwrap_or(0) ^ dropout::hash(i as u32),
                keep: 1.0 - rate,
            })),
            Layer::Flatten => unreachable!(),
        }
        acts.push(y);
        argmax.push(arg);
    }
    Forward { acts, argmax }
}

/// Backward pass: from the gradient of the logits, every parameter's gradient into `grads`.
#[allow(clippy::too_many_arguments)]
fn backward(
    t: &mut BufferTable,
    ops: &mut KernelList,
    model: &Compiled,
    params: BufId,
    grads: BufId,
    fwd: &Forward,
    d_logits: BufId,
    rows: usize,
    dropout_seed: u32,
) {
    let n = model.layers.len();
    let mut d_out = d_logits; // gradient w.r.t. acts[i + 1]
    for i in (0..n).rev() {
        let l = &model.layers[i];
        let x = fwd.acts[i];
        // Below the first layer with weights lies only the data (and parameter-free layers on
        // it): its gradient is never needed, so it is not computed.
        let needs_d_in = input_gradient_needed(model, i);
        if matches!(l.layer, Layer::Flatten) {
            continue; // d_out already is the gradient of the same memory
        }
        let d_in = if needs_d_in {
            Some(t.add(&format!("train.d_act{i}"), Elem::F32, rows * l.in_len()))
        } else {
            None
        };
        match l.layer {
            Layer::Dense { units } => {
                let inputs = l.in_len();
                // dW = dYᵀ · X: A[m = o, k = r] = dY[r·out + o], B[k = r, n = j] = X[r·in + j].
                ops.push(Box::new(Matmul {
                    a: d_out,
                    b: x,
                    c: grads,
                    parallel: 0,
                    dims: MatmulDims {
                        m: units,
                        n: inputs,
                        k: rows,
                        a_rs: 1,
                        a_cs: units,
                        b_rs: inputs,
                        b_cs: 1,
                        c_off: l.w_off,
                        ..Default::default()
                    },
                }));
                ops.push(Box::new(BiasGrad {
                    dz: d_out,
                    grads,
                    bias_off: l.b_off,
                    rows,
                    cols: units,
                }));
                if let Some(d_in) = d_in {
                    // dX = dY · W.
                    ops.push(Box::new(Matmul {
                        a: d_out,
                        b: params,
                        c: d_in,
                        parallel: 0,
                        dims: MatmulDims {
                            m: rows,
                            n: inputs,
                            k: units,
                            a_rs: units,
                            a_cs: 1,
                            b_off: l.w_off,
                            b_rs: inputs,
                            b_cs: 1,
                            ..Default::default()
                        },
                    }));
                }
            }
            Layer::Conv2d { .. } => {
                let g = conv_geom(l, rows);
                let partials = t.add(
                    &format!("train.conv_partials{i}"),
                    Elem::F32,
                    g.chunks() * g.partial_len(),
                );
                ops.push(Box::new(Conv2dBackwardWeight {
                    input: x,
                    d_out,
                    partials,
                    g,
                }));
                ops.push(Box::new(Conv2dBackwardReduce { partials, grads, g }));
                if let Some(d_in) = d_in {
                    ops.push(Box::new(Conv2dBackwardInput {
                        params,
                        d_out,
                        d_in,
                        g,
                    }));
                }
            }
            Layer::Pool { kind, .. } => {
                if let Some(d_in) = d_in {
                    let argmax = fwd.argmax[i].expect("pool layers record their arg-max");
                    ops.push(Box::new(PoolBackward {
                        kind,
                        d_out,
                        argmax,
                        d_in,
                        g: pool_geom(l, rows),
                    }));
                }
            }
            Layer::Activation { kind } => {
                if let Some(d_in) = d_in {
                    ops.push(Box::new(ActBackward {
                        kind,
                        z: x,
                        dh: d_out,
                        dz: d_in,
                        n: rows * l.in_len(),
                    }));
                }
            }
            Layer::Dropout { rate } => {
                if let Some(d_in) = d_in {
                    // The same mask as the forward pass: same seed, step and indices.
                    ops.push(Box::new(Dropout {
                        x: d_out,
                        y: d_in,
                        n: rows * l.in_len(),
                        seed: dropout_seed ^ dropout::hash(i as u32),
                        keep: 1.0 - rate,
                    }));
                }
            }
            Layer::Flatten => unreachable!(),
        }
        if let Some(d_in) = d_in {
            d_out = d_in;
        }
    }
}

/// Whether backward computes the gradient of layer `i`'s input: only when some layer below it
/// has weights. `timeline::Work` counts FLOPs by the same rule.
pub fn input_gradient_needed(model: &Compiled, i: usize) -> bool {
    model.layers[..i].iter().any(|l| l.has_params())
}

impl Plan {
    /// A plan whose training pass is just `kernels` over `table`, with no host buffers of its
    /// own: for running single kernels on both backends (tests, formulas).
    pub fn of_kernels(table: BufferTable, kernels: KernelList) -> Self {
        let none = BufId(0);
        Plan {
            table,
            train: kernels,
            optimizer_start: 0,
            predict: Vec::new(),
            host: HostBuffers {
                params: none,
                grads: none,
                data_x: none,
                data_y: none,
                indices: none,
                log_loss: none,
                log_accuracy: none,
                predict_x: none,
                probs: none,
                segment_bounds: none,
                optimizer_a: none,
                optimizer_b: none,
            },
            batch: 1,
            predict_rows: 1,
            predict_acts: Vec::new(),
            evaluate: Vec::new(),
            eval: None,
            eval_rows: 0,
        }
    }

    /// The kernels `pass` runs, in order.
    pub fn kernels(&self, pass: crate::backend::Pass) -> &[Box<dyn Kernel>] {
        use crate::backend::Pass;
        match pass {
            Pass::Train => &self.train,
            Pass::Gradient => &self.train[..self.optimizer_start],
            Pass::Update => &self.train[self.optimizer_start..],
            Pass::Predict => &self.predict,
            Pass::Evaluate => &self.evaluate,
        }
    }

    pub fn new(cfg: &PlanConfig) -> Self {
        let model = cfg.model;
        let n = model.n_params;
        let b = cfg.batch;
        let (inputs, classes) = (model.input_len(), model.classes());
        let mut t = BufferTable::default();
        let params = t.add("params", Elem::F32, n);
        let grads = t.add("grads", Elem::F32, n);
        let opt_a = t.add("optimizer.a", Elem::F32, n);
        let opt_b = t.add("optimizer.b", Elem::F32, n);
        let data_x = if cfg.data_packed {
            t.add("data.x (bytes)", Elem::U32, (cfg.data_rows * inputs).div_ceil(4))
        } else {
            t.add("data.x", Elem::F32, cfg.data_rows * inputs)
        };
        let data_y = t.add("data.y", Elem::U32, cfg.data_rows);
        let indices = t.add("batch.indices", Elem::U32, b);
        let batch_x = t.add("batch.x", Elem::F32, b * inputs);
        let batch_y = t.add("batch.y", Elem::U32, b);
        let loss = t.add("batch.loss", Elem::F32, b);
        let correct = t.add("batch.correct", Elem::F32, b);
        let d_logits = t.add("batch.d_logits", Elem::F32, b * classes);
        let log_loss = t.add("log.loss", Elem::F32, LOG_CAPACITY);
        let log_accuracy = t.add("log.accuracy", Elem::F32, LOG_CAPACITY);
        let bounds = segment_bounds(model);
        let segment_bounds = t.add("optimizer.bounds", Elem::U32, bounds.len());
        let segment_norms = t.add("optimizer.norms", Elem::F32, 2 * (bounds.len() - 1));

        let mut train: KernelList = Vec::new();
        train.push(Box::new(Gather {
            data_x,
            data_y,
            indices,
            batch_x,
            batch_y,
            rows: b,
            dim: inputs,
            packed: cfg.data_packed,
        }));
        let fwd = forward(
            &mut t,
            &mut train,
            model,
            params,
            batch_x,
            (b, Points::default()),
            "train",
            Some(cfg.seed),
        );
        let logits = *fwd.acts.last().expect("a model has layers");
        train.push(loss_kernel(cfg, logits, batch_y, loss, correct, d_logits, b));
        train.push(Box::new(BatchMean {
            loss,
            correct,
            log_loss,
            log_accuracy,
            rows: b,
            batches: 1,
        }));
        backward(
            &mut t, &mut train, model, params, grads, &fwd, d_logits, b, cfg.seed,
        );
        let optimizer_start = train.len();
        let r = cfg.regularization;
        if r.l1 != 0.0 || r.l2 != 0.0 {
            train.push(Box::new(Regularize {
                weights: params,
                grads,
                bounds: segment_bounds,
                n,
                segments: bounds.len() - 1,
                l1: r.l1,
                l2: r.l2,
            }));
        }
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
                segments: bounds.len() - 1,
            },
        ));

        let p = cfg.predict_rows;
        let predict_x = t.add("predict.x", Elem::F32, p * inputs);
        let mut predict: KernelList = Vec::new();
        let pf = forward(
            &mut t,
            &mut predict,
            model,
            params,
            predict_x,
            (p, Points::default()),
            "predict",
            None,
        );
        let logits = *pf.acts.last().expect("a model has layers");
        // Cross-entropy models predict probabilities; MSE models their raw outputs, which is
        // what that loss compares with its targets.
        let probs = match cfg.loss {
            Loss::CrossEntropy => {
                let probs = t.add("predict.probs", Elem::F32, p * classes);
                predict.push(Box::new(Softmax {
                    logits,
                    probs,
                    rows: p,
                    classes,
                }));
                probs
            }
            Loss::Mse => logits,
        };

        let (evaluate, eval) = if cfg.eval_rows > 0 {
            let (ops, buffers) = evaluation(&mut t, cfg);
            (ops, Some(buffers))
        } else {
            (Vec::new(), None)
        };

        Plan {
            table: t,
            train,
            optimizer_start,
            predict,
            host: HostBuffers {
                params,
                grads,
                segment_bounds,
                optimizer_a: opt_a,
                optimizer_b: opt_b,
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
            predict_acts: pf.acts[1..].to_vec(),
            evaluate,
            eval,
            eval_rows: cfg.eval_rows,
        }
    }
}
