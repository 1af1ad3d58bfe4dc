//! The kernels of one training step's forward and backward passes, layer by layer.

use super::*;

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
pub(super) struct Forward {
    pub(super) acts: Vec<BufId>,
    pub(super) argmax: Vec<Option<BufId>>,
}

/// Forward pass over `rows` samples in `input`; the last buffer holds the logits. Dropout runs
/// only when `dropout_seed` is given (training). With several `points` (the landscape), each
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
pub(super) fn backward(
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
