//! How many workgroups a kernel is dispatched on: a 1-D grid's, and a strided kernel's on a GPU
//! emulated on the processor.

use super::Kernel;

/// Workgroups for a 1-D grid of `n` invocations in groups of `size`.
pub fn groups_1d(n: usize, size: u32) -> [u32; 3] {
    [(n as u32).div_ceil(size).max(1), 1, 1]
}

/// Workgroups of a strided kernel (`Kernel::strided`) per core of an emulated GPU.
const STRIDED_GROUPS_PER_CORE: u32 = 4;

/// The workgroups a kernel is dispatched on a device that runs `parallel_workgroups` at once
/// (`DeviceFit`; 0 on a real GPU, which gets them all). An emulated GPU starts each workgroup
/// as a task of its own, and for an element-wise kernel over thousands of workgroups that
/// start-up costs more than the work: a strided kernel there gets a few per core instead.
pub fn strided_groups(k: &dyn Kernel, parallel_workgroups: u32) -> [u32; 3] {
    let [x, y, z] = k.workgroups();
    if k.strided() && parallel_workgroups != 0 {
        [x.min(parallel_workgroups * STRIDED_GROUPS_PER_CORE), y, z]
    } else {
        [x, y, z]
    }
}
