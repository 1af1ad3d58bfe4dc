//! Compiles a model into the buffers and the ordered kernel lists of one training step and of a
//! forward-only prediction. Both backends run exactly these lists, which is what makes the CPU
//! path a faithful reference for the GPU one.

use crate::kernel::{BufId, BufferTable, Elem, Kernel, Points};
use crate::model::{Compiled, CompiledLayer, Layer};
use crate::ops::activation::{ActBackward, ActForward};
use crate::ops::add::Add;
use crate::ops::batch_mean::BatchMean;
use crate::ops::bias::{AddBias, BiasGrad};
use crate::ops::clip::{ClipGrads, GradNorm};
use crate::ops::conv2d::{backward_kernels, BackwardBuffers, Conv2dForward, ConvGeom, ROW_GROUPS};
use crate::ops::dropout::{self, Dropout};
use crate::ops::gather::Gather;
use crate::ops::mask::ApplyMask;
use crate::ops::matmul::{Matmul, MatmulDims};
use crate::ops::mse::Mse;
use crate::ops::norm::{
    NormBackwardInput, NormBackwardParams, NormForward, NormForwardRunning, NormGeom, NormKind, UpdateRunning,
};
use crate::ops::pool::{PoolBackward, PoolForward, PoolGeom};
use crate::ops::softmax_xent::{Softmax, SoftmaxXent};
use crate::ops::weight_offset::WeightOffset;
use crate::optim::{self, OptimizerBuffers};

/// Steps whose metrics fit in the on-device log before the host must read it back.
pub const LOG_CAPACITY: usize = 256;

pub type KernelList = Vec<Box<dyn Kernel>>;

mod buffers;
mod fuse;
pub(crate) mod graph;
mod layer_ops;
mod layer_spans;
pub mod liveness;
mod loss;
mod penalties;
mod rounding;
mod steps;

pub use buffers::{EvalBuffers, HostBuffers};
pub use graph::{Edge, Node, Phase, StepGraph, Tensor};
pub use layer_ops::input_gradient_needed;
pub use layer_spans::LayerSpans;
pub use loss::{eval_chunks, eval_chunks_within, eval_points, segment_bounds, EVAL_CHUNK_BYTES};
use loss::{evaluation, loss_kernel};
pub use rounding::ScaledTensor;
use rounding::{round, Slots, Store};
use steps::{backward, forward};

mod config;
pub use config::{Loss, PlanConfig, Regularization};

/// Which kernel list of the plan to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// A whole training step.
    Train,
    /// The training step without the update: loss and gradients at the current weights.
    Gradient,
    /// The optimizer's kernels alone, on the gradient buffer as it is (written by the host).
    Update,
    Predict,
    /// The loss at one point of a landscape plane (the step's slot picks the point).
    Evaluate,
}

pub struct Plan {
    pub table: BufferTable,
    /// Forward, loss, backward, then the optimizer's kernels from `optimizer_start` on: the
    /// teaching kernels, one op each (what `layers` indexes and checkpointing re-runs).
    pub train: KernelList,
    pub optimizer_start: usize,
    /// The same step with runs of those kernels fused (`fuse`): what a training pass runs
    /// while `use_fused` is on.
    pub fused: KernelList,
    pub fused_optimizer_start: usize,
    pub use_fused: bool,
    /// Each layer's forward and backward kernels in `train`, and its saved buffers.
    pub layers: LayerSpans,
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
    /// Under delayed scaling, each scale's tensor (`host.scale_exponents`' slots); else empty.
    pub scaled_tensors: Vec<ScaledTensor>,
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
            fused: Vec::new(),
            fused_optimizer_start: 0,
            use_fused: false,
            layers: LayerSpans::default(),
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
                running: none,
                nonfinite: none,
                grads_unrounded: none,
                mask: none,
                scale_exponents: none,
                scale_amax: none,
            },
            batch: 1,
            predict_rows: 1,
            predict_acts: Vec::new(),
            evaluate: Vec::new(),
            eval: None,
            eval_rows: 0,
            scaled_tensors: Vec::new(),
        }
    }

    /// The kernels `pass` runs, in order.
    pub fn kernels(&self, pass: Pass) -> &[Box<dyn Kernel>] {
        let (list, start) = self.step_list();
        match pass {
            Pass::Train => list,
            Pass::Gradient => &list[..start],
            Pass::Update => &list[start..],
            Pass::Predict => &self.predict,
            Pass::Evaluate => &self.evaluate,
        }
    }

    /// The training step's list as it runs (fused or not) and where its optimizer starts.
    pub fn step_list(&self) -> (&[Box<dyn Kernel>], usize) {
        if self.use_fused {
            (&self.fused, self.fused_optimizer_start)
        } else {
            (&self.train, self.optimizer_start)
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
        let running = t.add("norm.running", Elem::F32, model.n_running);
        let nonfinite = t.add("grads.nonfinite", Elem::U32, 1);
        let grads_unrounded = if cfg.precision.is_fp32() {
            grads
        } else {
            t.add("grads.unrounded", Elem::F32, n)
        };
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
        let precision = &cfg.precision;
        let weights = rounding::weight_buffer(&mut t, precision, (params, n));
        let slots = Slots::new(&mut t, precision, bounds.len() - 1, model.layers.len());
        let rounds = (precision, cfg.seed, slots);
        rounding::round_weights(&mut train, rounds, (params, weights, n), &bounds);
        let acts_store = Store::activations(precision, cfg.seed, slots);
        let fwd = forward(
            &mut t,
            &mut train,
            model,
            weights,
            batch_x,
            (b, Points::default()),
            "train",
            (Some(cfg.seed), None, acts_store),
        );
        let logits = *fwd.acts.last().expect("a model has layers");
        train.push(loss_kernel(cfg, logits, batch_y, loss, correct, d_logits, b));
        let d_loss = (d_logits, b * classes, model.layers.len());
        rounding::scale_loss_gradient(&mut train, precision, cfg.seed, d_loss, slots);
        train.push(Box::new(BatchMean {
            loss,
            correct,
            log_loss,
            log_accuracy,
            rows: b,
            batches: 1,
        }));
        let backward_starts = backward(
            &mut t,
            &mut train,
            model,
            weights,
            grads,
            &fwd,
            d_logits,
            b,
            (cfg.seed, Store::gradients(precision, cfg.seed, slots)),
        );
        let layers = LayerSpans::new(&fwd, &backward_starts, train.len());
        rounding::store_gradients(
            &mut train,
            rounds,
            (grads, n, nonfinite, grads_unrounded),
            &bounds,
        );
        let optimizer_start = train.len();
        rounding::unscale_gradients(&mut train, precision, (grads, n));
        // Clipped as PyTorch's clip_grad_norm_: the loss's gradient, before any penalty is added.
        if cfg.clip_norm > 0.0 {
            let clip = t.add("grads.clip", Elem::F32, 2);
            train.push(Box::new(GradNorm {
                grads,
                clip,
                n,
                max_norm: cfg.clip_norm,
            }));
            train.push(Box::new(ClipGrads { grads, clip, n }));
        }
        train.extend(penalties::kernels(
            model,
            cfg.regularization,
            (params, grads, segment_bounds),
            (n, bounds.len() - 1),
        ));
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
        rounding::store_update(&mut train, precision, cfg.seed, (params, opt_a, opt_b, n));
        // Last of the update: what the optimizer moved a pruned weight by is undone.
        let mask = if cfg.masked {
            let mask = t.add("params.mask", Elem::F32, n);
            train.push(Box::new(ApplyMask {
                mask,
                weights: params,
                n,
            }));
            mask
        } else {
            BufId(0)
        };
        // After the update, so a gradient-only pass leaves the running statistics alone.
        train.extend(layer_ops::update_running(model, &fwd, running, b));

        let fused_buffers = fuse::fused_buffers(&mut t, &train);
        let (fused, fused_optimizer_start) = fuse::fuse(&train, optimizer_start, fused_buffers);

        let p = cfg.predict_rows;
        let predict_x = t.add("predict.x", Elem::F32, p * inputs);
        let mut predict: KernelList = Vec::new();
        // Prediction reads the weights and stores activations as training does: the copy
        // refreshed from the master weights (the last update came after training's copy).
        let replay = (precision, cfg.seed, slots.map(Slots::replaying));
        if weights != params {
            rounding::round_weights(&mut predict, replay, (params, weights, n), &bounds);
        }
        let pf = forward(
            &mut t,
            &mut predict,
            model,
            weights,
            predict_x,
            (p, Points::default()),
            "predict",
            (None, Some(running), acts_store.map(Store::replaying)),
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

        // Prediction runs whole, never by layer: only its fused list is kept.
        let predict = fuse::fuse(&predict, predict.len(), fused_buffers).0;

        let (evaluate, eval) = if cfg.eval_rows > 0 {
            let (ops, buffers) = evaluation(&mut t, cfg);
            (ops, Some(buffers))
        } else {
            (Vec::new(), None)
        };

        // The backward's gradient buffers share memory where their lives do not overlap, in
        // both orders the step runs in.
        liveness::share_dead_buffers(&mut t, &[&train, &fused]);

        Plan {
            table: t,
            train,
            optimizer_start,
            fused,
            fused_optimizer_start,
            use_fused: true,
            layers,
            predict,
            host: HostBuffers {
                params,
                grads,
                segment_bounds,
                optimizer_a: opt_a,
                optimizer_b: opt_b,
                running,
                nonfinite,
                grads_unrounded,
                mask,
                scale_exponents: slots.map_or(BufId(0), |s| s.exponents),
                scale_amax: slots.map_or(BufId(0), |s| s.amax),
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
            scaled_tensors: slots.map_or_else(Vec::new, |s| s.describe(precision, &bounds)),
        }
    }
}
