//! A saved model taken to the next step of a course: its weights as a safetensors file and a
//! PyTorch script (`model.py`) that rebuilds the model as an `nn.Sequential` (the tensors named as
//! its `state_dict` names them) with its training setup (optimizer, learning rate, batch, loss),
//! plus the layer list as JSON for a reader without PyTorch (`scripts/check_torch_export.py` runs
//! it in NumPy). Every layer kind the labs train is exported (`modules`): dense, convolution,
//! pooling, activations, flatten, dropout, batch norm (with its running statistics), layer norm
//! (PyTorch's one-group `GroupNorm`: each sample over all its values, γ and β per channel) and
//! residual blocks. `scripts/check_torch_model.py` runs the script under PyTorch in the tests.
//!
//! safetensors (huggingface/safetensors): an 8-byte little-endian header length, the JSON header
//! `{name: {"dtype": "F32", "shape": [...], "data_offsets": [start, end]}}`, then the bytes.

mod modules;
mod script;

use serde_json::{json, Value};

use crate::error::Error;
use crate::export::ModelExport;
use crate::model::Compiled;
use crate::plan::Loss;
use modules::{Named, Values};

/// The three files of an export: the weights, the PyTorch script, the layer list.
pub struct TorchExport {
    pub safetensors: Vec<u8>,
    pub script: String,
    pub layers: Value,
}

/// The export of `model`.
pub fn export(model: &ModelExport) -> Result<TorchExport, Error> {
    let compiled: Compiled = model.model.compile().map_err(Error::from)?;
    let flat = model.flat_params(&compiled)?;
    let walked = modules::walk(&compiled.layers, &flat, &model.running, model.step)?;
    let input = model.model.input;
    Ok(TorchExport {
        safetensors: safetensors(&walked.tensors, model.step),
        script: script::script(model, &walked.modules, walked.residual, input),
        layers: json!({ "input": input, "layers": walked.layers, "loss": loss_name(model.config.loss) }),
    })
}

fn loss_name(loss: Loss) -> &'static str {
    match loss {
        Loss::CrossEntropy => "cross_entropy",
        Loss::Mse => "mse",
    }
}

/// The safetensors bytes of `tensors` (little-endian, row-major, in order).
fn safetensors(tensors: &[Named], step: u64) -> Vec<u8> {
    let mut header = serde_json::Map::new();
    header.insert(
        "__metadata__".into(),
        json!({ "format": "pt", "source": "training-lab", "step": step.to_string() }),
    );
    let mut at = 0;
    for t in tensors {
        let (dtype, bytes) = match &t.values {
            Values::F32(v) => ("F32", 4 * v.len()),
            Values::I64(_) => ("I64", 8),
        };
        let end = at + bytes;
        header.insert(
            t.name.clone(),
            json!({ "dtype": dtype, "shape": t.shape, "data_offsets": [at, end] }),
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
    for t in tensors {
        match &t.values {
            Values::F32(v) => v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Values::I64(n) => out.extend_from_slice(&n.to_le_bytes()),
        }
    }
    out
}
