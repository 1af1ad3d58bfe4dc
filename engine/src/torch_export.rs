//! A saved model taken to the next step of a course: its weights as a safetensors file and a
//! PyTorch script that rebuilds the model as an `nn.Sequential` (the tensors named as its
//! `state_dict` names them: `{i}.weight`, `{i}.bias` for module i) with its training setup (optimizer, learning rate,
//! batch, loss), plus the layer list as JSON for a reader without PyTorch (`scripts/check_torch_export.py`
//! runs the model in NumPy). Dense, convolution, pooling, activation, flatten and dropout layers
//! are exported; a model with batch or layer norm or residual blocks is refused, naming the layer.
//!
//! safetensors (huggingface/safetensors): an 8-byte little-endian header length, the JSON header
//! `{name: {"dtype": "F32", "shape": [...], "data_offsets": [start, end]}}`, then the bytes.

use serde_json::{json, Value};

use crate::error::Error;
use crate::export::ModelExport;
use crate::model::{Compiled, Layer};
use crate::ops::activation::{Activation, LEAK};
use crate::ops::pool::PoolKind;
use crate::optim::Optimizer;
use crate::plan::Loss;

/// The three files of an export: the weights, the PyTorch script, the layer list.
pub struct TorchExport {
    pub safetensors: Vec<u8>,
    pub script: String,
    pub layers: Value,
}

/// One torch layer: its `nn` constructor and its NumPy description.
fn torch_layer(l: &crate::model::CompiledLayer, i: usize) -> Result<(String, Value), Error> {
    let [c, h, w] = l.in_shape;
    Ok(match &l.layer {
        Layer::Dense { units } => {
            let inputs = c * h * w;
            (format!("nn.Linear({inputs}, {units})"), json!({ "type": "dense", "inputs": inputs, "units": units }))
        }
        Layer::Conv2d { filters, kernel, stride, padding } => (
            format!("nn.Conv2d({c}, {filters}, kernel_size={kernel}, stride={stride}, padding={padding})"),
            json!({ "type": "conv2d", "channels": c, "filters": filters, "kernel": kernel, "stride": stride, "padding": padding }),
        ),
        Layer::Pool { kind, size, stride } => {
            let (name, kind) = match kind {
                PoolKind::Max => ("MaxPool2d", "max"),
                PoolKind::Avg => ("AvgPool2d", "avg"),
            };
            (format!("nn.{name}(kernel_size={size}, stride={stride})"), json!({ "type": "pool", "kind": kind, "size": size, "stride": stride }))
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
            (module, json!({ "type": "activation", "kind": name }))
        }
        Layer::Flatten => ("nn.Flatten()".into(), json!({ "type": "flatten" })),
        Layer::Dropout { rate } => (format!("nn.Dropout({rate})"), json!({ "type": "dropout", "rate": rate })),
        other => {
            return Err(Error::Mismatch(format!(
                "layer {i} ({}) has no PyTorch export yet: dense, conv2d, pool, activation, flatten and dropout layers do",
                serde_json::to_value(other).ok().and_then(|v| v["type"].as_str().map(String::from)).unwrap_or_else(|| "a residual block's part".into())
            )))
        }
    })
}

/// The export of `model`.
pub fn export(model: &ModelExport) -> Result<TorchExport, Error> {
    let compiled: Compiled = model.model.compile().map_err(Error::from)?;
    let flat = model.flat_params(&compiled)?;
    let mut modules = Vec::new();
    let mut layers = Vec::new();
    let mut tensors: Vec<(String, Vec<usize>, &[f32])> = Vec::new();
    for (i, l) in compiled.layers.iter().enumerate() {
        // The engine's dense layer reads a [C, H, W] sample as one row; PyTorch's needs the flatten.
        if matches!(l.layer, Layer::Dense { .. })
            && (l.in_shape[1] > 1 || l.in_shape[2] > 1)
            && !matches!(layers.last(), Some(Value::Object(o)) if o["type"] == "flatten")
        {
            modules.push("nn.Flatten()".to_string());
            layers.push(json!({ "type": "flatten" }));
        }
        let (module, layer) = torch_layer(l, i)?;
        if l.has_params() {
            let at = modules.len();
            tensors.push((format!("{at}.weight"), l.w_shape(), &flat[l.w_off..l.b_off]));
            let units = l.out_shape[0];
            tensors.push((format!("{at}.bias"), vec![units], &flat[l.b_off..l.b_off + units]));
        }
        modules.push(module);
        layers.push(layer);
    }
    let input = model.model.input;
    Ok(TorchExport {
        safetensors: safetensors(&tensors, model.step),
        script: script(model, &modules, input),
        layers: json!({ "input": input, "layers": layers, "loss": loss_name(model.config.loss) }),
    })
}

fn loss_name(loss: Loss) -> &'static str {
    match loss {
        Loss::CrossEntropy => "cross_entropy",
        Loss::Mse => "mse",
    }
}

/// The safetensors bytes of `tensors` (f32, row-major, in order).
fn safetensors(tensors: &[(String, Vec<usize>, &[f32])], step: u64) -> Vec<u8> {
    let mut header = serde_json::Map::new();
    header.insert(
        "__metadata__".into(),
        json!({ "format": "pt", "source": "training-lab", "step": step.to_string() }),
    );
    let mut at = 0;
    for (name, shape, values) in tensors {
        let end = at + 4 * values.len();
        header.insert(
            name.clone(),
            json!({ "dtype": "F32", "shape": shape, "data_offsets": [at, end] }),
        );
        at = end;
    }
    let mut text = Value::Object(header).to_string();
    // The data starts 8-byte aligned, as the format's readers expect.
    while !(8 + text.len()).is_multiple_of(8) {
        text.push(' ');
    }
    let mut out = (text.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(text.as_bytes());
    for (_, _, values) in tensors {
        for v in values.iter() {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}

fn optimizer_line(o: &Optimizer, lr: f32) -> String {
    match o {
        Optimizer::Sgd => format!("torch.optim.SGD(model.parameters(), lr={lr})"),
        Optimizer::Momentum { momentum } => format!("torch.optim.SGD(model.parameters(), lr={lr}, momentum={momentum})"),
        Optimizer::Nesterov { momentum } => format!("torch.optim.SGD(model.parameters(), lr={lr}, momentum={momentum}, nesterov=True)"),
        Optimizer::AdaGrad { eps } => format!("torch.optim.Adagrad(model.parameters(), lr={lr}, eps={eps})"),
        Optimizer::RmsProp { beta, eps } => format!("torch.optim.RMSprop(model.parameters(), lr={lr}, alpha={beta}, eps={eps})"),
        Optimizer::Adam { beta1, beta2, eps } => format!("torch.optim.Adam(model.parameters(), lr={lr}, betas=({beta1}, {beta2}), eps={eps})"),
        Optimizer::AdamW { beta1, beta2, eps, weight_decay } => {
            format!("torch.optim.AdamW(model.parameters(), lr={lr}, betas=({beta1}, {beta2}), eps={eps}, weight_decay={weight_decay})")
        }
        Optimizer::Lars { momentum, weight_decay } => format!(
            "torch.optim.SGD(model.parameters(), lr={lr}, momentum={momentum}, weight_decay={weight_decay})  # the lab trained with LARS; PyTorch has no LARS: SGD is the nearest"
        ),
    }
}

fn script(model: &ModelExport, modules: &[String], input: [usize; 3]) -> String {
    let c = &model.config;
    let loss = match c.loss {
        Loss::CrossEntropy => "nn.CrossEntropyLoss()",
        Loss::Mse => "nn.MSELoss()  # on one-hot labels for classification, as the lab trains",
    };
    let body: String = modules
        .iter()
        .enumerate()
        .map(|(i, m)| format!("    {m},  # {i}\n"))
        .collect();
    format!(
        "# The model trained in Training Lab (step {step}), rebuilt in PyTorch with its weights and its training setup.\n\
# Needs: pip install torch safetensors\n\
import torch\n\
from torch import nn\n\
from safetensors.torch import load_file\n\
\n\
# One input sample is [{c0}, {c1}, {c2}] (channels, height, width); images as pixel / 255.\n\
model = nn.Sequential(\n{body})\n\
model.load_state_dict(load_file('model.safetensors'))\n\
\n\
# How the lab trained it: go on from here in a notebook.\n\
optimizer = {optimizer}\n\
loss_fn = {loss}\n\
batch_size = {batch}\n\
\n\
if __name__ == '__main__':\n\
    model.eval()\n\
    x = torch.zeros(1, {c0}, {c1}, {c2})\n\
    print('outputs for an all-zero input:', model(x).detach().numpy().round(4))\n",
        step = model.step,
        c0 = input[0],
        c1 = input[1],
        c2 = input[2],
        optimizer = optimizer_line(&c.optimizer, c.learning_rate),
        batch = c.batch,
    )
}
