//! One benchmark run: load the workload and its data, open the backend, train (or time a
//! landscape slice) and publish the figures for scripts in `window.__labBench`.

use std::sync::Arc;

use crate::error::RunError;
use leptos::prelude::*;
use wasm_bindgen::JsValue;

use engine::tiles::TilePlan;
use engine::train::Trainer;
use lab_sims::attention::bench::{TransformerBench, T1};
use lab_sims::bench::{epoch_steps, slice_run, BenchResult, SliceBenchResult, WORKLOADS};

use crate::cpu_team::Cores;

use crate::{fetch, frame};

/// What one run measures, from the page's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    pub workload: String,
    pub webgpu: bool,
    pub steps: Option<usize>,
    /// Time an N × N landscape slice instead of training (`slice=N`).
    pub slice: Option<usize>,
    /// Test images to evaluate on (default all 10,000).
    pub test: Option<usize>,
    /// CPU cores to split each step over (none: all of them).
    pub threads: Option<usize>,
    /// The GPU's product tiles: "auto" (as the labs), "time" (timed now), "64", "32", "128" or "32k4".
    pub tiles: String,
}

/// Training images a slice is evaluated on.
const SLICE_SAMPLES: usize = 1000;

/// Publishes the outcome for scripts.
fn publish(value: &serde_json::Value) {
    if let (Some(window), Ok(js)) = (web_sys::window(), js_sys::JSON::parse(&value.to_string())) {
        let _ = js_sys::Reflect::set(&window, &JsValue::from_str("__labBench"), &js);
    }
}

/// The workload's trainer (with a landscape evaluation over `eval_rows` images) and test set.
async fn trainer(
    q: &Query,
    status: RwSignal<String>,
    eval_rows: usize,
) -> Result<(Trainer, Option<engine::data::Dataset>), RunError> {
    let workload = WORKLOADS
        .iter()
        .find(|w| w.name == q.workload)
        .ok_or_else(|| RunError::UnknownWorkload(q.workload.clone()))?;
    let mut config = (workload.config)();
    if let (Some(n), engine::train::DataConfig::Images(images)) = (q.test, &mut config.data) {
        images.test_limit = n;
    }
    status.set("loading MNIST…".into());
    let (train, test) = fetch::data(&config).await?;
    let test = Some(test);
    let gpu = if q.webgpu {
        status.set("opening WebGPU…".into());
        let ctx = crate::gpu::open_untiled()
            .await
            .map_err(|e| RunError::NoWebgpu(format!("{NO_WEBGPU} ({e})")))?;
        match (q.tiles.as_str(), TilePlan::parse(&q.tiles)) {
            ("time", _) => {
                status.set("timing the GPU's tile shapes on this device…".into());
                crate::gpu_tiles::tune(&ctx).await?;
            }
            (_, Some(t)) => crate::gpu_tiles::force(&ctx, t),
            _ => crate::gpu_tiles::settle(&ctx).await,
        }
        Some(ctx)
    } else {
        None
    };
    let trainer = Trainer::with_evaluation(config, train, gpu, 1000, eval_rows).await?;
    Ok((trainer, test))
}

async fn run_slice(q: Query, res: usize, status: RwSignal<String>) -> Result<SliceBenchResult, RunError> {
    let (mut trainer, _) = trainer(&q, status, SLICE_SAMPLES).await?;
    let steps = q.steps.unwrap_or_else(|| epoch_steps(&trainer, 1));
    status.set(format!(
        "training {steps} steps, then a {res} × {res} slice on {}…",
        trainer.backend_name()
    ));
    frame::next_frame().await;
    Ok(slice_run(&mut trainer, &q.workload, res, steps, &frame::now_ms).await?)
}

async fn run(q: Query, status: RwSignal<String>) -> Result<BenchResult, RunError> {
    let (mut trainer, test) = trainer(&q, status, 0).await?;
    let steps = q.steps.unwrap_or_else(|| epoch_steps(&trainer, 1));
    status.set(format!(
        "training {} for {steps} steps on {}…",
        q.workload,
        trainer.backend_name()
    ));
    // One core, or the cores `threads` asks for, or (by default) as the labs choose: one core
    // or all, whichever the run's own first steps time faster.
    let mut cores = match q.threads {
        _ if trainer.is_gpu() => Cores::alone(""),
        Some(1) => Cores::alone(""),
        Some(wanted) => Cores::with_team(&trainer, wanted).await,
        None => Cores::for_run(&trainer).await,
    };
    if !cores.note.is_empty() {
        status.set(format!(
            "training {} for {steps} steps on the CPU, {}…",
            q.workload, cores.note
        ));
    }
    frame::next_frame().await; // let the status paint before the CPU path blocks
    let mut r = lab_sims::bench::run_with(
        &mut trainer,
        &mut cores,
        test.as_ref(),
        &q.workload,
        steps,
        &frame::now_ms,
    )
    .await?;
    // The tiles with how they were chosen ("64×64 (timed now: …)").
    r.tiles = r.tiles.map(|t| format!("{t} ({})", crate::gpu_tiles::how()));
    Ok(r)
}

/// Workload T1: the attention lab's transformer trained on its own generated data.
async fn run_transformer(q: Query, status: RwSignal<String>) -> Result<TransformerBench, RunError> {
    let plan = lab_state::bench::transformer_plan();
    let gpu = if q.webgpu {
        status.set("opening WebGPU…".into());
        let ctx = crate::gpu::open_untiled()
            .await
            .map_err(|e| RunError::NoWebgpu(format!("{NO_WEBGPU} ({e})")))?;
        crate::gpu_tiles::settle(&ctx).await;
        Some(ctx)
    } else {
        None
    };
    let steps = q.steps.unwrap_or(plan.steps);
    let on = if gpu.is_some() { "WebGPU" } else { "the CPU path" };
    status.set(format!("training T1 for {steps} steps on {on}…"));
    frame::next_frame().await; // let the status paint before the CPU path blocks
    Ok(lab_sims::attention::bench::run(&plan, gpu, steps, &frame::now_ms).await?)
}

/// How a run that asked for WebGPU where there is none fails: the page offers the CPU path.
pub const NO_WEBGPU: &str = "WebGPU is not available in this browser";

/// What a run measured.
#[derive(Clone, Debug)]
pub enum Outcome {
    Trained(BenchResult),
    Sliced(SliceBenchResult),
    Transformer(TransformerBench),
}

/// Why a run gave no figures, by kind; said in words where it is shown (the page's status, the
/// published figures' `error`). Shared, as the page's action keeps its value.
#[derive(Clone, Debug, thiserror::Error)]
pub enum MeasureError {
    /// The GPU went away during the run.
    #[error("{NO_WEBGPU} any more: the device was lost ({why}; {run})")]
    Lost { why: String, run: Arc<RunError> },
    #[error("{0}")]
    Run(Arc<RunError>),
}

impl MeasureError {
    /// WebGPU is missing or was lost: the CPU path measures the same workload without it.
    pub fn without_webgpu(&self) -> bool {
        match self {
            MeasureError::Lost { .. } => true,
            MeasureError::Run(e) => matches!(**e, RunError::NoWebgpu(_)),
        }
    }
}

/// Runs what `q` asks for, saying what it does in `status`, and publishes the outcome (or the
/// error) for scripts. `backend` in the published figures echoes the URL's vocabulary; `device`
/// names the adapter.
pub async fn measure(q: Query, status: RwSignal<String>) -> Result<Outcome, MeasureError> {
    let backend = if q.webgpu { "webgpu" } else { "cpu" };
    let outcome = match q.slice {
        _ if q.workload == T1 => run_transformer(q, status).await.map(Outcome::Transformer),
        Some(res) => run_slice(q, res, status).await.map(Outcome::Sliced),
        None => run(q, status).await.map(Outcome::Trained),
    };
    // A GPU lost during the run: said as such (the page then offers the CPU path).
    let outcome = outcome.map_err(|e| match crate::gpu::lost() {
        Some(why) => MeasureError::Lost { why, run: Arc::new(e) },
        None => MeasureError::Run(Arc::new(e)),
    });
    let json = match &outcome {
        Ok(Outcome::Trained(r)) => with_device(serde_json::to_value(r), &r.backend, backend),
        Ok(Outcome::Sliced(r)) => with_device(serde_json::to_value(r), &r.backend, backend),
        Ok(Outcome::Transformer(r)) => with_device(serde_json::to_value(r), &r.backend, backend),
        Err(e) => serde_json::json!({ "error": e.to_string() }),
    };
    publish(&json);
    outcome
}

fn with_device(
    value: serde_json::Result<serde_json::Value>,
    device: &str,
    backend: &str,
) -> serde_json::Value {
    let mut json = value.unwrap_or_default();
    json["device"] = device.into();
    json["backend"] = backend.into();
    json
}
