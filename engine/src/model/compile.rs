//! Compiling a model's layers: each layer's shapes and where its weights lie in the parameter
//! vector, residual blocks and their projections included, or why a layer cannot follow the one
//! before it.

use super::*;

/// Appends `layers` compiled from input `shape` to `c`; the output shape.
pub(super) fn compile_layers(
    layers: &[Layer],
    mut shape: [usize; 3],
    c: &mut Compiled,
) -> Result<[usize; 3], ModelError> {
    for layer in layers {
        let i = c.layers.len();
        let [ch, h, w] = shape;
        let bad = |why: String| {
            Err(ModelError::Layer {
                number: i + 1,
                layer: format!("{layer:?}"),
                why,
            })
        };
        if let Layer::Residual { layers, projection } = layer {
            if layers.is_empty() {
                return bad("a residual block needs at least one layer".into());
            }
            c.layers.push(CompiledLayer::plain(Layer::SkipFrom, shape, shape));
            let out = compile_layers(layers, shape, c)?;
            let mut end = CompiledLayer::plain(
                Layer::SkipAdd {
                    from: i,
                    projection: *projection,
                },
                out,
                out,
            );
            end.skip_shape = shape;
            if *projection {
                let stride = end.skip_stride();
                if (h - 1) / stride + 1 != out[1] || (w - 1) / stride + 1 != out[2] {
                    return bad(format!(
                        "a 1×1 projection cannot take the block's {h}×{w} input to its {}×{} output",
                        out[1], out[2]
                    ));
                }
                end.w_off = c.n_params;
                end.w_len = out[0] * ch;
                end.b_off = end.w_off + end.w_len;
                c.n_params += end.w_len + out[0];
            } else if out != shape {
                return bad(format!(
                    "the block turns {shape:?} into {out:?}: an identity skip needs the same shape (add a projection)"
                ));
            }
            c.layers.push(end);
            shape = out;
            continue;
        }
        let (out, w_len, b_len) = match *layer {
            Layer::Dense { units: 0 } => return bad("needs at least one unit".into()),
            Layer::Dense { units } => ([units, 1, 1], units * ch * h * w, units),
            Layer::Conv2d {
                filters,
                kernel,
                stride,
                padding,
            } => {
                if filters == 0 || kernel == 0 || stride == 0 {
                    return bad("filters, kernel and stride must be at least 1".into());
                }
                if kernel > h + 2 * padding || kernel > w + 2 * padding {
                    return bad(format!("a {kernel}×{kernel} kernel does not fit a {h}×{w} input"));
                }
                let oh = (h + 2 * padding - kernel) / stride + 1;
                let ow = (w + 2 * padding - kernel) / stride + 1;
                ([filters, oh, ow], filters * ch * kernel * kernel, filters)
            }
            Layer::Pool { size, stride, .. } => {
                if size == 0 || stride == 0 || size > h || size > w {
                    return bad(format!("a {size}×{size} window does not fit a {h}×{w} input"));
                }
                ([ch, (h - size) / stride + 1, (w - size) / stride + 1], 0, 0)
            }
            Layer::Activation { .. } => (shape, 0, 0),
            Layer::Dropout { rate } if !(0.0..1.0).contains(&rate) => {
                return bad(format!("the dropout rate must be in [0, 1), got {rate}"))
            }
            Layer::Dropout { .. } => (shape, 0, 0),
            Layer::BatchNorm { momentum } if !(0.0..=1.0).contains(&momentum) => {
                return bad(format!("the momentum must be in [0, 1], got {momentum}"))
            }
            Layer::BatchNorm { .. } | Layer::LayerNorm => (shape, ch, ch),
            Layer::Flatten => ([ch * h * w, 1, 1], 0, 0),
            Layer::Residual { .. } | Layer::SkipFrom | Layer::SkipAdd { .. } => {
                return bad("only a model file's residual blocks compile to these".into())
            }
        };
        let mut l = CompiledLayer::plain(layer.clone(), shape, out);
        (l.w_off, l.w_len, l.b_off) = (c.n_params, w_len, c.n_params + w_len);
        if matches!(layer, Layer::BatchNorm { .. }) {
            l.run_off = c.n_running;
            c.n_running += 2 * ch;
        }
        c.n_params += w_len + b_len;
        c.layers.push(l);
        shape = out;
    }
    Ok(shape)
}
