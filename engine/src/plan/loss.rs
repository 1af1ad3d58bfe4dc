//! The loss of a step's outputs and the forward-only evaluation pass (metrics, predictions).

use super::*;

/// The per-sample loss and correctness of `rows` outputs against `labels`, and the loss's
/// gradient with respect to the outputs.
#[allow(clippy::too_many_arguments)]
pub(super) fn loss_kernel(
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
    let first = model
        .layers
        .iter()
        .find(|l| !matches!(l.layer, Layer::Flatten | Layer::SkipFrom));
    if !first.is_some_and(|l| l.has_params()) {
        return 1;
    }
    let per_point = 4 * (model.n_params + rows * eval_row_floats(model));
    let fit = (EVAL_BUDGET_BYTES / per_point.max(1)).clamp(1, MAX_EVAL_POINTS);
    1 << fit.ilog2()
}

/// Values one sample takes in one point's evaluation pass: every layer's output (a pool's twice:
/// its argmax), the outputs' gradient, the loss, correctness and label.
fn eval_row_floats(model: &Compiled) -> usize {
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
    acts + model.classes() + 3
}

/// Device memory the activations of one evaluation pass over one chunk of samples may take. A
/// deep CNN's activations for all its evaluation samples would not fit (a ResNet on 1,000 images
/// holds hundreds of megabytes), so its samples go through the pass in chunks.
pub const EVAL_CHUNK_BYTES: usize = 128 << 20;

/// How the landscape's `rows` evaluation samples go through the pass: `(chunk, chunks)`, equal
/// chunks whose activations fit in `EVAL_CHUNK_BYTES` — the fewest, or up to twice that many
/// when they divide `rows`. The samples used are the first `chunk × chunks` (up to `chunks − 1`
/// fewer than asked when no such count divides `rows`). Each chunk is one forward pass,
/// so batch norm normalizes each chunk with its own statistics (docs/theory.md §4.2).
pub fn eval_chunks(model: &Compiled, rows: usize) -> (usize, usize) {
    eval_chunks_within(model, rows, EVAL_CHUNK_BYTES)
}

/// [`eval_chunks`] with `chunk_bytes` in place of `EVAL_CHUNK_BYTES`.
pub fn eval_chunks_within(model: &Compiled, rows: usize, chunk_bytes: usize) -> (usize, usize) {
    if rows == 0 {
        return (0, 1);
    }
    let fit = (chunk_bytes / (4 * eval_row_floats(model)).max(1)).max(1);
    let fewest = rows.div_ceil(fit);
    // Up to twice as many chunks, if that many divide the samples exactly.
    let chunks = (fewest..=2 * fewest)
        .find(|c| rows.is_multiple_of(*c))
        .unwrap_or(fewest);
    (rows / chunks, chunks)
}

/// The landscape evaluation: buffers and kernels (see `Plan::evaluate`).
pub(super) fn evaluation(t: &mut BufferTable, cfg: &PlanConfig) -> (KernelList, EvalBuffers) {
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
    // Batch norm normalizes each point's samples with their own statistics, as in training.
    let f = forward(
        t,
        &mut ops,
        model,
        weights,
        b.x,
        (r, points),
        "eval",
        (None, None, None),
    );
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
