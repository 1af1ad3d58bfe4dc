//! The WebGPU context a long computation asks for, or the CPU path with the reason.

use std::rc::Rc;

use engine::gpu::GpuContext;
use leptos::prelude::*;

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
