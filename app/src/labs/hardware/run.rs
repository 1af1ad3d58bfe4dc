//! Measuring: the device's roofs (the probes), the workload's training step kernel by kernel, and
//! the product sweep — three stages on the chosen backend, each drawn as it ends.

use crate::error::RunError;
use leptos::prelude::*;

use engine::backend::KernelTime;
use engine::plan::StepGraph;
use engine::roofline::{self, Roofs};
use engine::train::Trainer;
use lab_sims::hardware::record::{dispatches, Dispatch, HardwareRecord, SWEEP};
use lab_sims::hardware::tiling::{product_flops, sweep_fits, tile_rows, tuned_rows, TileRow, TunedRow};
use lab_state::hardware::HardwareLab;

use super::{redraw, Canvases};
use crate::fetch;
use crate::frame::now_ms;
use crate::recorded::Run;

/// The engine's tiles for the settings' product on this device, how they were chosen, and what
/// the autotune timed this visit.
struct Autotuned {
    choice: Option<String>,
    how: String,
    tuned: Vec<TunedRow>,
}

fn autotuned(s: &HardwareLab, gpu: Option<&engine::gpu::GpuContext>) -> Autotuned {
    let flops = product_flops(s.m, s.n, s.k);
    Autotuned {
        choice: gpu.map(|g| g.tiles.get().for_flops(flops).code().to_string()),
        how: match gpu {
            Some(_) => crate::gpu_tiles::how(),
            None => "the CPU path has no tiles".into(),
        },
        tuned: crate::gpu_tiles::last_tuning().map_or_else(Vec::new, |t| tuned_rows(&t)),
    }
}

/// What a stage measured.
enum Measured {
    Roofs(Roofs, String, bool),
    Kernels(Vec<KernelTime>, Vec<Dispatch>, StepGraph),
    Sweep(Vec<(usize, KernelTime)>),
    Tiles(Vec<TileRow>, Autotuned),
}

const STAGES: [&str; 4] = [
    "the roofs (the probes)",
    "the training step, kernel by kernel",
    "the matrix-product sweep",
    "the product in each tile shape",
];

/// The settings' product in each tile shape: its bytes counted, and on a GPU (where its matrices
/// fit the sweep's buffers) its time.
async fn tiles(
    s: &HardwareLab,
    gpu: Option<std::rc::Rc<engine::gpu::GpuContext>>,
    reps: usize,
) -> Result<Vec<TileRow>, RunError> {
    let (m, n, k) = (s.m, s.n, s.k);
    let times = match gpu.filter(|_| sweep_fits(m, n, k)) {
        Some(g) => roofline::tile_sweep(g, (m, n, k), reps, &now_ms).await?,
        None => Vec::new(),
    };
    let times: Vec<_> = times.into_iter().map(|(shape, t)| (shape, t.ms)).collect();
    Ok(tile_rows(m, n, k, &times))
}

pub async fn run_all(s: HardwareLab, run: Run<HardwareRecord>, canvases: Canvases) -> Result<(), RunError> {
    let config = s.config();
    let mut gpu = run.gpu().await;
    run.status.set("loading data…".into());
    let (train, _) = fetch::data(&config).await?;
    let mut record = HardwareRecord::new(&s.workload, s.fused, s.gemm(), s.array);
    let (points, roofs) = s.distributed();
    (record.distributed, record.cluster_roofs) = (points, Some(roofs));
    run.record.set(Some(record));
    let reps = s.reps.max(1);
    run.each(
        &mut gpu,
        &[0usize, 1, 2, 3],
        |i| STAGES[*i].to_string(),
        async |i, stage, gpu, pacer| {
            let measured = match stage {
                0 => {
                    let device = match gpu.as_ref().map(|g| g.adapter.name.trim()) {
                        None => "the CPU path".to_string(),
                        Some("") => "this browser's WebGPU adapter (it gives no name)".to_string(),
                        Some(name) => name.to_string(),
                    };
                    let emulated = gpu.as_ref().is_none_or(|g| g.parallel_workgroups != 0);
                    let roofs = roofline::measure(gpu, reps, &now_ms)
                        .await
                        ?;
                    Measured::Roofs(roofs, device, emulated)
                }
                1 => {
                    let mut t = Trainer::with_data(config.clone(), train.clone(), gpu, 1)
                        .await
                        ?;
                    t.set_fused(s.fused);
                    // A few steps first: pipelines compiled, buffers touched.
                    t.train(3).await?;
                    let times = t.profile_step(reps, &now_ms).await?;
                    let graph = t.plan().graph(&t.compiled);
                    Measured::Kernels(
                        times,
                        dispatches(t.plan().kernels(engine::backend::Pass::Train)),
                        graph,
                    )
                }
                2 => Measured::Sweep(
                    roofline::matmul_sweep(gpu, &SWEEP, reps, &now_ms)
                        .await
                        ?,
                ),
                _ => {
                    let chosen = autotuned(&s, gpu.as_deref());
                    Measured::Tiles(tiles(&s, gpu, reps).await?, chosen)
                }
            };
            run.go_on(pacer, (i, STAGES.len(), 1.0)).await;
            Ok::<Measured, RunError>(measured)
        },
        |rec, out| match out {
            Measured::Roofs(roofs, device, emulated) => {
                rec.roofs = Some(roofs);
                rec.device = device;
                rec.emulated = emulated;
            }
            Measured::Kernels(k, d, g) => {
                rec.kernels = k;
                rec.dispatches = d;
                rec.graph = Some(g);
            }
            Measured::Sweep(s) => rec.sweep = s,
            Measured::Tiles(t, a) => {
                rec.tiles = t;
                rec.tile_choice = a.choice;
                rec.tuning = a.how;
                rec.tuned = a.tuned;
            }
        },
        |rec| redraw(&canvases, rec),
    )
    .await
}
