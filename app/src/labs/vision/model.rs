//! What the vision lab's owner task holds and takes: the trained (or loaded) model, the commands
//! the page sends, and the model's downloads. Below `session`, `train` and `inspect`, which all
//! use it, so none of them reaches back into another.

use engine::data::Dataset;
use engine::export::export_model;
use engine::inspect::Evaluation;
use engine::train::Trainer;
use lab_state::vision::VisionLab as Settings;

use leptos::prelude::*;

use super::View;
use crate::browser;

pub enum Command {
    Train(Box<Settings>),
    Stop,
    Save,
    /// The model for a notebook: safetensors weights, a PyTorch script, its layer list.
    SaveTorch,
    Load {
        name: String,
        text: String,
        webgpu: bool,
    },
    /// Classify 784 values (the pad's drawing, fitted like MNIST's digits).
    Classify {
        input: Vec<f32>,
        note: String,
    },
    /// The next test image on the pad, classified.
    NextTest,
    /// The `k`-th misclassified image as drawn.
    ShowMiss(usize),
    /// Step through the misclassified images (the keyboard's way).
    StepMiss(isize),
}

/// A trained (or loaded) model with its data and what was measured.
pub struct Model {
    pub trainer: Trainer,
    pub test: Dataset,
    pub set: String,
    pub evaluation: Option<Evaluation>,
}

/// Downloads a model as `lab export-torch` writes it: three files.
pub async fn save_torch(trainer: &Trainer, v: View) {
    let export = match export_model(trainer).await {
        Ok(m) => engine::torch_export::export(&m),
        Err(e) => Err(e),
    };
    match export {
        Ok(t) => {
            browser::download_bytes("model.safetensors", "application/octet-stream", &t.safetensors);
            browser::download("model.py", "text/x-python", &t.script);
            browser::download(
                "model_layers.json",
                "application/json",
                &serde_json::to_string_pretty(&t.layers).unwrap_or_default(),
            );
        }
        Err(e) => v.refusal.set(Some(format!("No PyTorch export: {e}"))),
    }
}

/// Downloads a model as the JSON `lab train --save-model` writes.
pub async fn save(trainer: &Trainer, v: View) {
    match export_model(trainer).await {
        Ok(m) => browser::download(
            "model.json",
            "application/json",
            &serde_json::to_string(&m).unwrap_or_default(),
        ),
        Err(e) => v.error.set(Some(e.to_string())),
    }
}
