//! `lab roofline`: the device's two roofs, measured by the compute and copy probes
//! (`engine::roofline`), and each kernel of a workload's training step placed under them: its
//! time, FLOPs and bytes (hand-counted, `Kernel::bytes`), arithmetic intensity, attained GFLOP/s,
//! and which roof bounds it. JSON lines: the roofs, then a line per kernel.

use std::path::Path;

use engine::train::Trainer;
use lab_sims::hardware::record::{bound_of, HardwareRecord};

use crate::io::{gpu_of, load_data};
use crate::Backends;

#[derive(clap::Args)]
pub struct RooflineArgs {
    /// The workloads whose steps are placed: W1 (the MLP), W2 (the CNN)
    #[arg(long, default_value = "W1,W2", value_name = "W,W")]
    workloads: String,
    /// Runs of each probe and each kernel timed
    #[arg(long, default_value_t = 20, value_name = "N")]
    reps: usize,
    #[arg(long, value_enum, default_value = "gpu")]
    backend: Backends,
    /// Random digits of MNIST's shape instead of the data files (the times do not depend on the
    /// values; a machine without the data can still be measured)
    #[arg(long)]
    synthetic: bool,
}

/// 10,000 random 28 × 28 images of bytes over 255, ten classes.
fn synthetic() -> engine::data::Dataset {
    let mut rng = engine::rng::Rng::new(11);
    engine::data::Dataset {
        x: (0..10_000 * 784)
            .map(|_| (rng.range(0.0, 256.0).floor().min(255.0)) / 255.0)
            .collect(),
        y: (0..10_000).map(|i| (i % 10) as u32).collect(),
        dim: 784,
        classes: 10,
        targets: Vec::new(),
    }
}

pub fn roofline(a: &RooflineArgs, dir: &Path) -> anyhow::Result<()> {
    for backend in a.backend.list() {
        let gpu = gpu_of(backend)?;
        let device = gpu
            .as_ref()
            .map_or("CPU path".to_string(), |g| g.adapter.name.clone());
        let roofs = pollster::block_on(engine::roofline::measure(
            gpu.clone(),
            a.reps,
            &lab_sims::bench::native_now_ms,
        ))?;
        println!(
            "{}",
            serde_json::json!({ "device": device, "gflops": roofs.gflops, "gbs": roofs.gbs, "ridge": roofs.ridge() })
        );
        for name in a.workloads.split(',').map(str::trim) {
            let config = match name {
                "W1" => lab_sims::bench::w1(),
                "W2" => lab_sims::bench::w2(),
                other => anyhow::bail!("workloads: {other:?} is not W1 or W2"),
            };
            let data = if a.synthetic {
                synthetic()
            } else {
                load_data(dir, &config)?.0
            };
            let mut t = pollster::block_on(Trainer::with_data(config, data, gpu.clone(), 1))?;
            pollster::block_on(t.train(5)).map_err(|e| anyhow::anyhow!("{e}"))?;
            let times = pollster::block_on(t.profile_step(a.reps, &lab_sims::bench::native_now_ms))?;
            let step: f64 = times.iter().map(|k| k.ms).sum();
            for k in times {
                let intensity = HardwareRecord::intensity(&k);
                let gflops = k.flops / (k.ms.max(1e-9) * 1e6);
                println!(
                    "{}",
                    serde_json::json!({
                        "device": device, "workload": name, "kernel": k.name, "ms": k.ms,
                        "share": k.ms / step.max(1e-12), "flops": k.flops, "bytes": k.bytes,
                        "intensity": intensity, "gflops": gflops, "clock": k.clock,
                        "gbs": k.bytes / (k.ms.max(1e-9) * 1e6),
                        "attainable": intensity.map(|i| roofs.attainable(i)),
                        "bound": intensity.map(|i| bound_of(roofs, i)),
                    })
                );
            }
        }
    }
    Ok(())
}
