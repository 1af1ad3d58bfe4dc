//! The kernels of one training step's forward and backward passes, layer by layer.

use super::layer_ops::{conv_backward, conv_geom, input_gradient_needed, norm_geom, pool_geom, Forward};
use super::*;

/// Forward pass over `rows` samples in `input`; the last buffer holds the logits. Dropout runs
/// only when `dropout_seed` is given (training); batch norm uses the `running` statistics when
/// given (predicting), else the batch's own. With several `points` (the landscape), each
/// runs the same samples on its own weights in one dispatch per kernel: every buffer after the
/// input holds the points' blocks of `rows` samples one after another.
#[allow(clippy::too_many_arguments)]
pub(super) fn forward(
    t: &mut BufferTable,
    ops: &mut KernelList,
    model: &Compiled,
    params: BufId,
    input: BufId,
    (rows, points): (usize, Points),
    tag: &str,
    (dropout_seed, running, store): (Option<u32>, Option<BufId>, Option<Store>),
) -> Forward {
    let copies = points.n();
    let mut acts = vec![input];
    let mut argmax = Vec::new();
    let mut stats = Vec::new();
    let mut starts = Vec::new();
    for (i, l) in model.layers.iter().enumerate() {
        starts.push(ops.len());
        let x = acts[i];
        stats.push(None);
        if matches!(l.layer, Layer::Flatten | Layer::SkipFrom)
            || (matches!(l.layer, Layer::Dropout { .. }) && dropout_seed.is_none())
        {
            // Same memory (new shape, a residual block's start, or dropout off when predicting).
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
                    tiles: None,
                    fetch_ahead: false,
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
                row_groups: ROW_GROUPS,
                narrow: false,
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
            Layer::BatchNorm { .. } | Layer::LayerNorm => {
                let g = norm_geom(l, rows);
                match running.filter(|_| matches!(l.layer, Layer::BatchNorm { .. })) {
                    Some(running) => ops.push(Box::new(NormForwardRunning {
                        g,
                        input: x,
                        params,
                        running,
                        output: y,
                        points,
                    })),
                    None => {
                        let st = t.add(
                            &format!("{tag}.norm_stats{}", i + 1),
                            Elem::F32,
                            2 * copies * g.groups(),
                        );
                        ops.push(Box::new(NormForward {
                            g,
                            input: x,
                            params,
                            output: y,
                            stats: st,
                            points,
                        }));
                        stats[i] = Some(st);
                    }
                }
            }
            Layer::SkipAdd { from, projection } => {
                let source = acts[from];
                let mut skip = source;
                if projection {
                    skip = t.add(&format!("{tag}.projection{}", i + 1), Elem::F32, len);
                    ops.push(Box::new(Conv2dForward {
                        input: source,
                        params,
                        output: skip,
                        g: conv_geom(l, rows),
                        points,
                        input_shared: source == input,
                        row_groups: ROW_GROUPS,
                        narrow: false,
                    }));
                }
                ops.push(Box::new(Add {
                    a: x,
                    b: skip,
                    y,
                    per_copy: rows * l.out_len(),
                    points,
                    b_shared: skip == input,
                }));
            }
            Layer::Flatten | Layer::SkipFrom | Layer::Residual { .. } => unreachable!(),
        }
        // A reduced-precision step stores each output in the activations' format.
        round(store, ops, y, len, i);
        acts.push(y);
        argmax.push(arg);
    }
    starts.push(ops.len());
    Forward {
        acts,
        argmax,
        stats,
        starts,
    }
}

/// Backward pass: from the gradient of the logits, every parameter's gradient into `grads`.
#[allow(clippy::too_many_arguments)]
pub(super) fn backward(
    t: &mut BufferTable,
    ops: &mut KernelList,
    model: &Compiled,
    params: BufId,
    grads: BufId,
    fwd: &Forward,
    d_logits: BufId,
    rows: usize,
    (dropout_seed, store): (u32, Option<Store>),
) -> Vec<usize> {
    let n = model.layers.len();
    // Where each layer's backward kernels start (layers run last to first).
    let mut starts = vec![0; n];
    // The gradient w.r.t. acts[i + 1].
    let mut d_out = d_logits;
    // A residual block's skip gradient, waiting at its start (by the start's index).
    let mut skip_grads: Vec<Option<BufId>> = vec![None; n];
    for i in (0..n).rev() {
        starts[i] = ops.len();
        let l = &model.layers[i];
        let x = fwd.acts[i];
        // Below the first layer with weights lies only the data (and parameter-free layers on
        // it): its gradient is never needed, so it is not computed.
        let needs_d_in = input_gradient_needed(model, i);
        if matches!(l.layer, Layer::Flatten) {
            continue; // d_out already is the gradient of the same memory
        }
        if let Layer::SkipAdd { from, projection } = l.layer {
            // F's gradient is d_out itself; the skip's waits at the block's start.
            skip_grads[from] = if !projection {
                Some(d_out)
            } else {
                let d_skip = input_gradient_needed(model, from).then(|| {
                    let len = rows * l.skip_shape.iter().product::<usize>();
                    t.add(&format!("train.d_skip{i}"), Elem::F32, len)
                });
                conv_backward(
                    t,
                    ops,
                    (conv_geom(l, rows), &format!("train.proj_partials{i}")),
                    (fwd.acts[from], d_out, d_skip),
                    (params, grads),
                );
                if let Some(d) = d_skip {
                    round(store, ops, d, rows * l.skip_shape.iter().product::<usize>(), i);
                }
                d_skip
            };
            continue;
        }
        if matches!(l.layer, Layer::SkipFrom) {
            // Both paths' gradients reach the block's input.
            if let (true, Some(skip)) = (needs_d_in, skip_grads[i]) {
                let d_in = t.add(&format!("train.d_act{i}"), Elem::F32, rows * l.in_len());
                ops.push(Box::new(Add {
                    a: d_out,
                    b: skip,
                    y: d_in,
                    per_copy: rows * l.in_len(),
                    points: Points::default(),
                    b_shared: false,
                }));
                round(store, ops, d_in, rows * l.in_len(), i);
                d_out = d_in;
            }
            continue;
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
                    tiles: None,
                    fetch_ahead: false,
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
                        tiles: None,
                        fetch_ahead: false,
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
            Layer::Conv2d { .. } => conv_backward(
                t,
                ops,
                (conv_geom(l, rows), &format!("train.conv_partials{i}")),
                (x, d_out, d_in),
                (params, grads),
            ),
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
            Layer::BatchNorm { .. } | Layer::LayerNorm => {
                let g = norm_geom(l, rows);
                let stats = fwd.stats[i].expect("training normalizes with the batch's statistics");
                ops.push(Box::new(NormBackwardParams {
                    g,
                    input: x,
                    stats,
                    d_out,
                    grads,
                }));
                if let Some(d_in) = d_in {
                    ops.push(Box::new(NormBackwardInput {
                        g,
                        input: x,
                        params,
                        stats,
                        d_out,
                        d_in,
                    }));
                }
            }
            Layer::Flatten | Layer::SkipFrom | Layer::SkipAdd { .. } | Layer::Residual { .. } => {
                unreachable!()
            }
        }
        if let Some(d_in) = d_in {
            // A reduced-precision step stores each input gradient in the gradients' format.
            round(store, ops, d_in, rows * l.in_len(), i);
            d_out = d_in;
        }
    }
    starts
}
