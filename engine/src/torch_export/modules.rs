//! The compiled layers walked into PyTorch modules: each module's constructor (Python), its
//! NumPy description, and the tensors of its `state_dict` under the names PyTorch gives them. A
//! residual block (its start and end in the compiled list) becomes a `Residual` module around an
//! `nn.Sequential` of its layers (`{i}.body.{j}.…`) and its skip (`{i}.skip.…`).

use serde_json::{json, Value};

use crate::error::Error;
use crate::model::{CompiledLayer, Layer};
use crate::ops::activation::{Activation, LEAK};
use crate::ops::norm::NORM_EPS;
use crate::ops::pool::PoolKind;

/// A tensor of the safetensors file: f32 values, or one integer (batch norm's step count).
pub enum Values {
    F32(Vec<f32>),
    I64(i64),
}

pub struct Named {
    pub name: String,
    pub shape: Vec<usize>,
    pub values: Values,
}

/// One level of modules being built: the model, or a residual block's body.
struct Level {
    /// The `state_dict` prefix of this level's modules ("" or "3.body.").
    prefix: String,
    modules: Vec<String>,
    layers: Vec<Value>,
    /// Whether PyTorch's tensor is [N, features] here rather than [N, C, H, W].
    flat: bool,
}

impl Level {
    fn push(&mut self, module: String, layer: Value) {
        self.modules.push(module);
        self.layers.push(layer);
    }
    fn at(&self) -> String {
        format!("{}{}", self.prefix, self.modules.len())
    }
}

/// What the walk gives: the top level's modules, their NumPy descriptions, the tensors, and
/// whether the script needs its `Residual` class.
pub struct Walked {
    pub modules: Vec<String>,
    pub layers: Vec<Value>,
    pub tensors: Vec<Named>,
    pub residual: bool,
}

/// Walks `layers` (a compiled model's) with their parameters `flat`, batch norm's running
/// statistics `running` (mean, variance pairs) and the steps trained `step`.
pub fn walk(layers: &[CompiledLayer], flat: &[f32], running: &[f32], step: u64) -> Result<Walked, Error> {
    let mut stack = vec![Level {
        prefix: String::new(),
        modules: vec![],
        layers: vec![],
        flat: false,
    }];
    let mut tensors = Vec::new();
    let mut residual = false;
    let params = |l: &CompiledLayer, at: &str, tensors: &mut Vec<Named>| {
        let units = l.out_shape[0];
        tensors.push(Named {
            name: format!("{at}.weight"),
            shape: l.w_shape(),
            values: Values::F32(flat[l.w_off..l.b_off].to_vec()),
        });
        tensors.push(Named {
            name: format!("{at}.bias"),
            shape: vec![units],
            values: Values::F32(flat[l.b_off..l.b_off + units].to_vec()),
        });
    };
    for (i, l) in layers.iter().enumerate() {
        let level = stack.last_mut().expect("the model's level");
        let [c, h, w] = l.in_shape;
        // PyTorch's dense layer needs a flat input, its convolutions and pools an image.
        let wants_flat = matches!(l.layer, Layer::Dense { .. });
        let wants_image = matches!(l.layer, Layer::Conv2d { .. } | Layer::Pool { .. });
        if wants_flat && !level.flat {
            level.push("nn.Flatten()".into(), json!({ "type": "flatten" }));
            level.flat = true;
        } else if wants_image && level.flat {
            level.push(
                format!("nn.Unflatten(1, ({c}, {h}, {w}))"),
                json!({ "type": "unflatten", "shape": [c, h, w] }),
            );
            level.flat = false;
        }
        let at = level.at();
        match &l.layer {
            Layer::Dense { units } => {
                let inputs = c * h * w;
                params(l, &at, &mut tensors);
                level.push(
                    format!("nn.Linear({inputs}, {units})"),
                    json!({ "type": "dense", "inputs": inputs, "units": units }),
                );
            }
            Layer::Conv2d {
                filters,
                kernel,
                stride,
                padding,
            } => {
                params(l, &at, &mut tensors);
                level.push(
                    format!("nn.Conv2d({c}, {filters}, kernel_size={kernel}, stride={stride}, padding={padding})"),
                    json!({ "type": "conv2d", "channels": c, "filters": filters, "kernel": kernel, "stride": stride, "padding": padding }),
                );
            }
            Layer::Pool { kind, size, stride } => {
                let (name, kind) = match kind {
                    PoolKind::Max => ("MaxPool2d", "max"),
                    PoolKind::Avg => ("AvgPool2d", "avg"),
                };
                level.push(
                    format!("nn.{name}(kernel_size={size}, stride={stride})"),
                    json!({ "type": "pool", "kind": kind, "size": size, "stride": stride }),
                );
            }
            Layer::Activation { kind } => {
                let (module, name) = match kind {
                    Activation::Linear => ("nn.Identity()".to_string(), "linear"),
                    Activation::Relu => ("nn.ReLU()".to_string(), "relu"),
                    Activation::Tanh => ("nn.Tanh()".to_string(), "tanh"),
                    Activation::Sigmoid => ("nn.Sigmoid()".to_string(), "sigmoid"),
                    Activation::LeakyRelu => (format!("nn.LeakyReLU({LEAK})"), "leaky_relu"),
                    Activation::Gelu => ("nn.GELU(approximate='tanh')".to_string(), "gelu"),
                };
                level.push(module, json!({ "type": "activation", "kind": name }));
            }
            Layer::Flatten => {
                level.push("nn.Flatten()".into(), json!({ "type": "flatten" }));
                level.flat = true;
            }
            Layer::Dropout { rate } => level.push(
                format!("nn.Dropout({rate})"),
                json!({ "type": "dropout", "rate": rate }),
            ),
            Layer::BatchNorm { momentum } => {
                params(l, &at, &mut tensors);
                let pairs = running.get(l.run_off..l.run_off + 2 * c).ok_or_else(|| {
                    Error::Mismatch(format!(
                        "layer {i} (batch norm): the model file has no running statistics for it"
                    ))
                })?;
                let (mean, var) = (
                    pairs.iter().step_by(2).copied().collect(),
                    pairs.iter().skip(1).step_by(2).copied().collect(),
                );
                tensors.push(Named {
                    name: format!("{at}.running_mean"),
                    shape: vec![c],
                    values: Values::F32(mean),
                });
                tensors.push(Named {
                    name: format!("{at}.running_var"),
                    shape: vec![c],
                    values: Values::F32(var),
                });
                tensors.push(Named {
                    name: format!("{at}.num_batches_tracked"),
                    shape: vec![],
                    values: Values::I64(step as i64),
                });
                let dims = if level.flat { 1 } else { 2 };
                level.push(
                    format!("nn.BatchNorm{dims}d({c}, eps={NORM_EPS:e}, momentum={momentum})"),
                    json!({ "type": "batch_norm", "channels": c, "eps": NORM_EPS, "momentum": momentum }),
                );
            }
            // Each sample over all its values, γ and β per channel: PyTorch's GroupNorm of one group.
            Layer::LayerNorm => {
                params(l, &at, &mut tensors);
                level.push(
                    format!("nn.GroupNorm(1, {c}, eps={NORM_EPS:e})"),
                    json!({ "type": "layer_norm", "channels": c, "eps": NORM_EPS }),
                );
            }
            Layer::SkipFrom => {
                let inner = Level {
                    prefix: format!("{at}.body."),
                    modules: vec![],
                    layers: vec![],
                    flat: level.flat,
                };
                stack.push(inner);
            }
            Layer::SkipAdd { projection, .. } => {
                let body = stack.pop().filter(|_| !stack.is_empty()).ok_or_else(|| {
                    Error::Mismatch(format!("layer {i}: a residual block's end without its start"))
                })?;
                let level = stack.last_mut().expect("the block's level");
                let at = level.at();
                let (skip, skip_json) = match (projection, l.conv()) {
                    (true, Some((filters, _, stride, _))) => {
                        params(l, &format!("{at}.skip"), &mut tensors);
                        let from = l.skip_shape[0];
                        (
                            format!("nn.Conv2d({from}, {filters}, kernel_size=1, stride={stride})"),
                            json!({ "type": "conv2d", "channels": from, "filters": filters, "kernel": 1, "stride": stride, "padding": 0 }),
                        )
                    }
                    _ => ("nn.Identity()".to_string(), json!({ "type": "identity" })),
                };
                let inner: String = body.modules.iter().map(|m| format!("        {m},\n")).collect();
                level.push(
                    format!("Residual(nn.Sequential(\n{inner}    ), {skip})"),
                    json!({ "type": "residual", "body": body.layers, "skip": skip_json }),
                );
                level.flat = body.flat;
                residual = true;
            }
            Layer::Residual { .. } => {
                return Err(Error::Mismatch(format!(
                    "layer {i}: a residual block in a compiled model"
                )));
            }
        }
    }
    let top = stack
        .pop()
        .filter(|_| stack.is_empty())
        .ok_or_else(|| Error::Mismatch("a residual block without its end".into()))?;
    Ok(Walked {
        modules: top.modules,
        layers: top.layers,
        tensors,
        residual,
    })
}
