//! The training lab's engine: UI-free, builds natively and for `wasm32-unknown-unknown`.
//!
//! Every op in [`ops`] is a WGSL kernel (in `shaders/`) with a plain-Rust twin; a [`plan::Plan`]
//! lists the kernels of one training step, and a [`backend::Backend`] runs that list on the GPU
//! or the CPU. [`train::Trainer`] drives a session and streams its metrics.

pub mod autotune;
pub mod backend;
pub mod collectives;
pub mod data;
pub mod error;
pub mod export;
pub mod gpu;
pub mod inspect;
pub mod kernel;
pub mod model;
pub mod ops;
pub mod optim;
pub mod parallel;
pub mod plan;
pub mod precision;
pub mod readback;
pub mod rng;
pub mod roofline;
pub mod series;
pub mod sparse;
pub mod table;
pub mod tile_probes;
pub mod tiles;
pub mod torch_export;
pub mod train;
pub mod transformer;
pub mod workloads;

/// Grid of points covering the data square, row by row from the top (y = +extent) — the inputs of
/// a decision-boundary heatmap of `size × size` cells.
pub fn heatmap_grid(size: usize, extent: f32) -> Vec<f32> {
    let mut pts = Vec::with_capacity(size * size * 2);
    for row in 0..size {
        let y = extent - (row as f32 + 0.5) / size as f32 * 2.0 * extent;
        for col in 0..size {
            let x = -extent + (col as f32 + 0.5) / size as f32 * 2.0 * extent;
            pts.push(x);
            pts.push(y);
        }
    }
    pts
}
