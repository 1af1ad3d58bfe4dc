//! The vision lab (`/vision`): train an MLP or a small CNN on MNIST or Fashion-MNIST in the browser,
//! then look inside it — the first layer's filters, every layer's feature maps for one input, the
//! confusion matrix, per-class accuracy, the misclassified test images — and try it on a digit
//! drawn with the mouse. Models save and load as files (the `lab` tool's `--save-model` too).
//! `session` owns the model; `page`, `settings_panel` and `pad` are the components.

pub mod draw;
mod inspect;
mod lesson;
mod model;
mod pad;
mod page;
mod session;
mod settings_panel;
mod train;

use leptos::html::Canvas;
use leptos::prelude::*;

/// The lab's page, under the name the registry's generated router mounts (`build.rs`).
pub use page::VisionPage as Page;

/// The drawing pad's side in pixels.
pub const PAD: usize = 196;

use lab_state::vision::class_names as names;

/// The losses per step and the points at each epoch's end.
pub type History = (Vec<f32>, Vec<draw::EpochPoint>);

#[derive(Clone, Copy)]
pub struct Canvases {
    pub loss: NodeRef<Canvas>,
    pub accuracy: NodeRef<Canvas>,
    pub filters: NodeRef<Canvas>,
    pub maps: NodeRef<Canvas>,
    pub confusion: NodeRef<Canvas>,
    pub misses: NodeRef<Canvas>,
    pub pad: NodeRef<Canvas>,
}

/// What the page shows about a run, also published as `window.__labVision` for scripts.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Figures {
    pub epochs_done: f64,
    pub steps: usize,
    pub samples_per_sec: f64,
    pub wall_ms: f64,
    pub test_accuracy: Option<f32>,
    /// Frames the page painted per second while training, and the longest gap between two.
    pub fps: f64,
    pub longest_frame_ms: f64,
    pub done: bool,
    /// What the CPU path trains on ("2 cores (1.7× one core)", "1 core (why)"); empty on the GPU.
    pub cores: String,
}

/// Sets `window[name]` to `value` as JSON, for scripts and tests.
fn publish(name: &str, value: &impl serde::Serialize) {
    let Ok(text) = serde_json::to_string(value) else {
        return;
    };
    if let (Some(w), Ok(v)) = (web_sys::window(), js_sys::JSON::parse(&text)) {
        let _ = js_sys::Reflect::set(&w, &name.into(), &v);
    }
}

/// The page's signals: what the session writes and the components read.
#[derive(Clone, Copy)]
pub struct View {
    pub status: RwSignal<String>,
    pub error: RwSignal<Option<String>>,
    /// The session's answer to a command it could not carry out, and why.
    pub refusal: RwSignal<Option<String>>,
    pub running: RwSignal<bool>,
    pub epoch_progress: RwSignal<f64>,
    pub figures: RwSignal<Figures>,
    pub eta: RwSignal<String>,
    pub probs: RwSignal<Vec<f32>>,
    pub pad_note: RwSignal<String>,
    pub per_class: RwSignal<Vec<f32>>,
    /// The most frequent mistake on the test set: (true class, predicted class, count).
    pub most_confused: RwSignal<Option<(usize, usize, u32)>>,
    pub has_model: RwSignal<bool>,
    /// Why the run trains where it does (the auto choice's timing).
    pub backend_reason: RwSignal<String>,
    /// Whether the loss curve's y axis is logarithmic.
    pub log_loss: RwSignal<bool>,
    /// The first convolution's weights when training started (None for a loaded model).
    pub filter_start: RwSignal<Option<Vec<f32>>>,
    /// How smooth the filters are now and, with a known start, what training changed.
    pub smoothness: RwSignal<Option<(f32, Option<f32>)>>,
    pub canvases: Canvases,
}

impl View {
    fn new() -> Self {
        Self {
            status: RwSignal::new("choose a data set and an architecture, then Train".to_string()),
            error: RwSignal::new(None),
            refusal: RwSignal::new(None),
            running: RwSignal::new(false),
            epoch_progress: RwSignal::new(0.0),
            figures: RwSignal::new(Figures::default()),
            eta: RwSignal::new(String::new()),
            backend_reason: RwSignal::new(String::new()),
            log_loss: RwSignal::new(false),
            filter_start: RwSignal::new(None),
            smoothness: RwSignal::new(None),
            probs: RwSignal::new(Vec::new()),
            pad_note: RwSignal::new("draw a digit here once a model is trained".to_string()),
            per_class: RwSignal::new(Vec::new()),
            most_confused: RwSignal::new(None),
            has_model: RwSignal::new(false),
            canvases: Canvases {
                loss: NodeRef::new(),
                accuracy: NodeRef::new(),
                filters: NodeRef::new(),
                maps: NodeRef::new(),
                confusion: NodeRef::new(),
                misses: NodeRef::new(),
                pad: NodeRef::new(),
            },
        }
    }
}
