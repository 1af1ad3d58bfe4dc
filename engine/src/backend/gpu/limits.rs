//! A plan checked against the device's limits (bytes a buffer, workgroups a dimension) before
//! anything is allocated, so a model too large for a GPU is refused with a reason.

use super::*;

/// Refuses a plan that would exceed the device's limits, before anything is allocated.
pub fn check_limits(plan: &Plan, limits: &wgpu::Limits) -> Result<(), Error> {
    let max_binding = limits.max_storage_buffer_binding_size;
    let max_buffer = limits.max_buffer_size;
    for spec in &plan.table.specs {
        let bytes = spec.len as u64 * 4;
        if bytes > max_binding.min(max_buffer) {
            return Err(Error::GpuRefused(format!(
                "buffer '{}' needs {:.1} MB but this GPU allows {:.1} MB per buffer: use a smaller model, batch or data set",
                spec.name,
                bytes as f64 / 1e6,
                max_binding.min(max_buffer) as f64 / 1e6
            )));
        }
    }
    let max_groups = limits.max_compute_workgroups_per_dimension;
    for k in plan
        .train
        .iter()
        .chain(&plan.fused)
        .chain(&plan.predict)
        .chain(&plan.evaluate)
    {
        if k.workgroups().iter().any(|&g| g > max_groups) {
            return Err(Error::GpuRefused(format!(
                "kernel '{}' needs more than {max_groups} workgroups in one dimension: use a smaller batch",
                k.shader().entry
            )));
        }
    }
    Ok(())
}
