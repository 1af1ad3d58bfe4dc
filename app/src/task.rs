//! Long computations on a page (a landscape, a sweep): how they report their end.

use std::rc::Rc;

use engine::gpu::GpuContext;
use leptos::prelude::*;

/// Sets the status line when a long computation ends: "done", the cancel notice saying what is
/// kept, or "failed" with the error in the page's banner.
pub fn report_end(
    status: RwSignal<String>,
    error: RwSignal<Option<String>>,
    result: Result<(), String>,
    cancelled: bool,
    kept: &str,
) {
    status.set(match result {
        Ok(()) if cancelled => format!("cancelled: {kept}"),
        Ok(()) => "done".into(),
        Err(e) => {
            error.set(Some(e));
            format!("failed (see the message above): {kept}")
        }
    });
}

/// A WebGPU context when asked for and available; otherwise None (the CPU path), saying why in
/// the page's banner.
pub async fn gpu_if(webgpu: bool, status: RwSignal<String>) -> Option<Rc<GpuContext>> {
    if !webgpu {
        return None;
    }
    status.set("opening WebGPU…".into());
    match GpuContext::new().await {
        Ok(ctx) => Some(Rc::new(ctx)),
        Err(e) => {
            crate::banner::raise(format!(
                "WebGPU is not available here ({e}): this run uses the CPU path instead, which gives the same numbers more slowly"
            ));
            None
        }
    }
}
