//! Long computations on a page (a landscape, a sweep): how they report their end.

use std::rc::Rc;

use engine::gpu::GpuContext;
use leptos::prelude::*;

/// Sets the status line when a long computation ends: "done", the cancel notice saying what is
/// kept, or the error.
pub fn report_end(status: RwSignal<String>, result: Result<(), String>, cancelled: bool, kept: &str) {
    status.set(match result {
        Ok(()) if cancelled => format!("cancelled: {kept}"),
        Ok(()) => "done".into(),
        Err(e) => format!("failed: {e}"),
    });
}

/// A WebGPU context when asked for and available; otherwise None (the CPU path), saying why on the
/// status line.
pub async fn gpu_if(webgpu: bool, status: RwSignal<String>) -> Option<Rc<GpuContext>> {
    if !webgpu {
        return None;
    }
    status.set("opening WebGPU…".into());
    match GpuContext::new().await {
        Ok(ctx) => Some(Rc::new(ctx)),
        Err(e) => {
            status.set(format!("WebGPU unavailable ({e}): using the CPU path"));
            None
        }
    }
}
