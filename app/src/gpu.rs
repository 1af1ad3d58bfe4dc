//! The WebGPU context a long computation asks for, or the CPU path with the reason; and what
//! happens when that GPU is lost mid-run (a driver reset, a laptop switching GPUs): the lab says
//! so and goes on on the CPU path. `window.__labLoseGpu()` loses it on purpose, for the tests
//! (the playground installs its own, which recovers its weights as well).

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use engine::gpu::GpuContext;
use leptos::prelude::*;

use crate::error::RunError;
use crate::frame::{next_frame, now_ms};

thread_local! {
    /// The contexts this page opened, for `__labLoseGpu`.
    static OPENED: RefCell<Vec<Weak<GpuContext>>> = const { RefCell::new(Vec::new()) };
}

/// A WebGPU context when asked for and available; otherwise None (the CPU path), saying why in
/// the page's banner.
pub async fn gpu_if(webgpu: bool, status: RwSignal<String>) -> Option<Rc<GpuContext>> {
    if !webgpu {
        return None;
    }
    status.set("opening WebGPU…".into());
    match open().await {
        Ok(ctx) => Some(ctx),
        Err(e) => {
            crate::banner::raise(format!(
                "WebGPU is not available here ({e}): this run uses the CPU path instead, which gives the same numbers more slowly"
            ));
            None
        }
    }
}

/// A new WebGPU context, its product tiles settled for this adapter (`gpu_tiles`).
pub async fn context() -> Result<Rc<GpuContext>, engine::error::Error> {
    let ctx = Rc::new(GpuContext::new().await?);
    crate::gpu_tiles::settle(&ctx).await;
    Ok(ctx)
}

/// A WebGPU context that `__labLoseGpu` can lose, its tiles settled.
pub async fn open() -> Result<Rc<GpuContext>, engine::error::Error> {
    let ctx = open_untiled().await?;
    crate::gpu_tiles::settle(&ctx).await;
    Ok(ctx)
}

/// A WebGPU context that `__labLoseGpu` can lose, its tiles left for the caller to set (`/bench`
/// timing them or forcing a shape: settling first could time them twice).
pub async fn open_untiled() -> Result<Rc<GpuContext>, engine::error::Error> {
    let ctx = Rc::new(GpuContext::new().await?);
    OPENED.with(|o| o.borrow_mut().push(Rc::downgrade(&ctx)));
    Ok(ctx)
}

/// Why a GPU this page opened was lost, if one was.
pub fn lost() -> Option<String> {
    OPENED.with(|o| o.borrow().iter().filter_map(Weak::upgrade).find_map(|c| c.lost()))
}

/// Where a run computes, for its status line: the same words on every lab.
pub fn runs_on(gpu: &Option<Rc<GpuContext>>) -> &'static str {
    if gpu.is_some() {
        "WebGPU"
    } else {
        "the CPU path"
    }
}

/// `window.__labLoseGpu()`: destroys every GPU device this page opened, as a driver reset would.
pub fn install_loss_hook() {
    use wasm_bindgen::prelude::*;
    let hook = Closure::<dyn Fn()>::new(|| {
        OPENED.with(|o| {
            for ctx in o.borrow().iter().filter_map(Weak::upgrade) {
                ctx.device.destroy();
            }
        })
    });
    if let Some(w) = web_sys::window() {
        let _ = js_sys::Reflect::set(&w, &"__labLoseGpu".into(), hook.as_ref());
    }
    hook.forget();
}

/// Why `ctx`'s device was lost, waiting up to 10 s for it to say so: a lost device fails the
/// readback first and reports its loss a moment later (seconds later on a busy machine). None
/// when it is not lost.
pub async fn loss_of(ctx: &GpuContext) -> Option<String> {
    let deadline = now_ms() + 10_000.0;
    loop {
        if let Some(why) = ctx.lost() {
            return Some(why);
        }
        if now_ms() > deadline {
            return None;
        }
        next_frame().await;
    }
}

/// After a run on `gpu` failed: if the device was lost, says so in the banner, moves to the CPU
/// path (`gpu` becomes None) and answers true: the caller runs the work again there. False when
/// the failure was something else.
pub async fn fell_back(gpu: &mut Option<Rc<GpuContext>>) -> bool {
    let Some(ctx) = gpu.clone() else {
        return false;
    };
    let Some(why) = loss_of(&ctx).await else {
        return false;
    };
    crate::banner::raise(format!(
        "The GPU device was lost ({why}): the lab goes on on the CPU path, which gives the same numbers more slowly"
    ));
    *gpu = None;
    true
}

/// Runs `work` on `gpu`; when it fails because the device was lost, runs it again on the CPU
/// path (`gpu` is None from then on), as often as that happens.
pub async fn with_fallback<T>(
    gpu: &mut Option<Rc<GpuContext>>,
    mut work: impl AsyncFnMut(Option<Rc<GpuContext>>) -> Result<T, RunError>,
) -> Result<T, RunError> {
    loop {
        match work(gpu.clone()).await {
            Err(_) if fell_back(gpu).await => continue,
            other => return other,
        }
    }
}

/// The GPU for a run under a backend choice, and why: the CPU path, WebGPU (the CPU path when
/// missing), or for "auto" the faster of the two for this very model and data, timed over a few
/// steps of each. A software WebGPU (no real GPU) is far slower than the CPU path, and a GPU
/// step has a fixed cost only large layers amortize, so no rule of thumb picks well. The reason
/// also goes to `status`.
pub async fn for_choice(
    choice: lab_state::playground::BackendChoice,
    config: &engine::train::TrainConfig,
    data: &engine::data::Dataset,
    status: RwSignal<String>,
) -> (Option<Rc<GpuContext>>, String) {
    use lab_state::playground::BackendChoice;
    let (gpu, reason) = match choice {
        BackendChoice::Cpu => (None, "chosen: the CPU path".to_string()),
        BackendChoice::Webgpu => {
            let gpu = gpu_if(true, status).await;
            (gpu.clone(), format!("chosen: WebGPU, on {}", runs_on(&gpu)))
        }
        BackendChoice::Auto => match open().await {
            Err(_) => (None, "auto: no WebGPU here, so the CPU path".to_string()),
            Ok(ctx) => {
                status.set("auto: timing a few steps on WebGPU and on the CPU path…".into());
                let on_gpu = steps_per_second(config, data, Some(ctx.clone())).await;
                let on_cpu = steps_per_second(config, data, None).await;
                let use_gpu = on_gpu > on_cpu;
                let reason = format!(
                    "auto: {on_cpu:.1} steps/s on the CPU path, {on_gpu:.1} on WebGPU: training on {}",
                    if use_gpu { "WebGPU" } else { "the CPU path" }
                );
                (use_gpu.then_some(ctx), reason)
            }
        },
    };
    status.set(reason.clone());
    (gpu, reason)
}

/// Training steps per second of this model on one backend: one warm-up step (pipelines,
/// buffers), then steps for about 300 ms (at least two). Zero when it cannot train there.
async fn steps_per_second(
    config: &engine::train::TrainConfig,
    data: &engine::data::Dataset,
    gpu: Option<Rc<GpuContext>>,
) -> f64 {
    let Ok(mut t) = engine::train::Trainer::with_data(config.clone(), data.clone(), gpu, 1).await else {
        return 0.0;
    };
    if t.train(1).await.is_err() {
        return 0.0;
    }
    let (t0, mut steps) = (now_ms(), 0);
    while steps < 2 || (now_ms() - t0 < 300.0 && steps < 50) {
        if t.train(1).await.is_err() {
            return 0.0;
        }
        steps += 1;
    }
    steps as f64 * 1000.0 / (now_ms() - t0).max(0.1)
}
