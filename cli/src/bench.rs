//! `lab bench`, `lab slice-bench` and `lab cluster-bench`: figures for the README, printed as
//! JSON lines (per-kernel profiles to stderr).

use anyhow::Context;
use std::path::{Path, PathBuf};

use engine::train::{TrainConfig, Trainer};

use crate::io::{build, config_of, gpu_of, load_data, tiles_on};
use crate::{Backend, Backends};

#[derive(clap::Args)]
pub struct BenchArgs {
    #[arg(long, default_value = "all", value_parser = ["W1", "W2", "all"])]
    workload: String,
    #[arg(long, value_enum, default_value = "both")]
    backend: Backends,
    /// Train this many epochs
    #[arg(long, default_value_t = 1, value_name = "N", conflicts_with = "steps")]
    epochs: usize,
    /// Train this many steps instead of whole epochs
    #[arg(long, value_name = "N")]
    steps: Option<usize>,
    /// Run the teaching kernels one op each instead of the fused step (same values)
    #[arg(long)]
    unfused: bool,
    /// Specialize the fused kernels' pipelines even on an emulated GPU (as on a real one)
    #[arg(long)]
    specialize: bool,
    /// Print the profile dispatch by dispatch, in step order, not summed by kernel name
    #[arg(long)]
    each: bool,
    /// The GPU's product tiles: timed per device (auto), or 64×64, 32×32, 128×128, 32×32 k÷4 (32k4), or one shape per size
    /// class: small/larger (64/128) or small/medium/large (32/64/128), then gathered
    /// products (32/32/128/32k4), then on a real GPU the most chunks of a convolution's weight
    /// gradient (/c8, /c32, /c512; c128 the default)
    #[arg(
        long,
        default_value = "auto",
        value_name = "auto|64|32|128|32k4|SMALL/MEDIUM/LARGE[/GATHERED][/cCHUNKS]"
    )]
    tiles: String,
}

#[derive(clap::Args)]
pub struct SliceArgs {
    #[arg(long, default_value = "W1", value_parser = ["W1", "W2", "all"])]
    workload: String,
    /// Any model instead of the fixed workloads
    #[arg(long, value_name = "FILE.json", conflicts_with = "workload")]
    config: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "both")]
    backend: Backends,
    /// Points per side of the slice
    #[arg(long, default_value_t = 25, value_name = "N")]
    res: usize,
    /// Training samples each point's loss is measured on
    #[arg(long, default_value_t = 1000, value_name = "N")]
    samples: usize,
    /// Training steps timed for comparison
    #[arg(long, default_value_t = 156, value_name = "N")]
    steps: usize,
}

#[derive(clap::Args)]
pub struct ClusterArgs {
    #[arg(long, value_enum, default_value = "cpu")]
    backend: Backend,
    #[arg(long, default_value_t = 64, value_name = "N")]
    workers: usize,
    /// The global batch, split over the workers
    #[arg(long, default_value_t = 1024, value_name = "N")]
    batch: usize,
    #[arg(long, default_value_t = 20, value_name = "N")]
    steps: usize,
}

pub fn bench(a: &BenchArgs, data: &Path) -> anyhow::Result<()> {
    // Each run gets a fresh context (its first step compiles its own pipelines), but the tiles
    // are timed once, on the first, and the later ones take the same.
    let mut tiles = None;
    for w in lab_sims::bench::WORKLOADS
        .iter()
        .filter(|w| a.workload == "all" || a.workload == w.name)
    {
        for b in a.backend.list() {
            let gpu = gpu_of(b)?;
            tiles = tiles_on(&gpu, &a.tiles, tiles)?;
            if let Some(ctx) = gpu.as_ref().filter(|_| a.specialize) {
                ctx.specialize.set(true);
            }
            let (mut trainer, test) = build(data, (w.config)(), gpu, 0)?;
            trainer.set_fused(!a.unfused);
            let steps = a
                .steps
                .unwrap_or_else(|| lab_sims::bench::epoch_steps(&trainer, a.epochs));
            let now = lab_sims::bench::native_now_ms;
            let mut r = pollster::block_on(lab_sims::bench::run(
                &mut trainer,
                test.as_ref(),
                w.name,
                steps,
                &now,
            ))?;
            r.losses.clear(); // one line per run: the per-step losses are for the browser's chart
            let name = if b == Backend::Gpu { "gpu" } else { "cpu" };
            for k in if a.each { &r.dispatches } else { &r.kernels } {
                let rate = if k.flops > 0.0 {
                    format!("{:8.2} GFLOP/s", k.flops / k.ms / 1e6)
                } else {
                    String::new()
                };
                eprintln!("  {:>3} {:>4}  {:28} {:9.3} ms{rate}", w.name, name, k.name, k.ms);
            }
            println!("{}", serde_json::to_string(&r).expect("results serialize"));
        }
    }
    Ok(())
}

pub fn slice_bench(a: &SliceArgs, data: &Path) -> anyhow::Result<()> {
    // A config file instead of the fixed workloads: any model, e.g. a small one where many points
    // per pass matter most.
    let (configs, names): (Vec<TrainConfig>, Vec<String>) = match &a.config {
        Some(path) => (vec![config_of(Some(path))?], vec![path.display().to_string()]),
        None => lab_sims::bench::WORKLOADS
            .iter()
            .filter(|w| a.workload == "all" || a.workload == w.name)
            .map(|w| ((w.config)(), w.name.to_string()))
            .unzip(),
    };
    for (config, name) in configs.into_iter().zip(&names) {
        for b in a.backend.list() {
            let (mut trainer, _) = build(data, config.clone(), gpu_of(b)?, a.samples)?;
            let now = lab_sims::bench::native_now_ms;
            let r = pollster::block_on(lab_sims::bench::slice_run(
                &mut trainer,
                name,
                a.res,
                a.steps,
                &now,
            ))?;
            println!("{}", serde_json::to_string(&r).expect("results serialize"));
        }
    }
    Ok(())
}

/// W1's model and data: one worker training on the whole global batch against `workers` simulated
/// workers each on its share (strong scaling), ring allreduce, the same steps.
pub fn cluster_bench(a: &ClusterArgs, data: &Path) -> anyhow::Result<()> {
    use engine::collectives::{Algorithm, Link};
    use lab_sims::cluster::{Cluster, ClusterConfig, Scaling};
    let (workers, global, steps) = (a.workers.max(1), a.batch, a.steps.max(1));
    let gpu = gpu_of(a.backend)?;
    let now = lab_sims::bench::native_now_ms;
    let base = lab_sims::bench::w1();
    let (train, _) = load_data(data, &base)?;
    let build = |batch: usize| {
        let config = TrainConfig {
            batch,
            ..base.clone()
        };
        pollster::block_on(Trainer::with_data(config, train.clone(), gpu.clone(), 1))
    };
    let mut one = build(global)?;
    let per = Scaling::Strong
        .worker_batch(global, workers)
        .with_context(|| format!("--batch {global} cannot be split over {workers} workers"))?;
    let mut shared = build(per)?;
    let link = Link::preset("infiniband").expect("a preset");
    let config = ClusterConfig::new(workers, Algorithm::Ring, link);
    let mut cluster = Cluster::new(config, &shared.compiled, shared.config.batch);
    pollster::block_on(one.train(1))?;
    pollster::block_on(cluster.step(&mut shared))?;
    // Alternate the three so that a noisy machine slows each alike; medians per step.
    let (mut one_ms, mut cluster_ms, mut gradients_ms) = (Vec::new(), Vec::new(), Vec::new());
    let mut report = None;
    let mut g = Vec::new();
    for _ in 0..steps {
        let t = now();
        pollster::block_on(one.train(1))?;
        one_ms.push(now() - t);
        let t = now();
        report = Some(pollster::block_on(cluster.step(&mut shared))?);
        cluster_ms.push(now() - t);
        // The workers' gradients alone: the part of a cluster step that is real compute.
        let t = now();
        for _ in 0..workers {
            let rows = shared.next_batch_rows();
            pollster::block_on(shared.loss_and_gradient_into(&rows, &mut g))?;
        }
        gradients_ms.push(now() - t);
    }
    let (one_ms, cluster_ms, gradients_ms) = (median(one_ms), median(cluster_ms), median(gradients_ms));
    let report = report.expect("at least one step");
    println!(
        "{}",
        serde_json::json!({
            "workers": workers, "globalBatch": global, "backend": shared.backend_name(),
            "oneWorkerMsPerStep": one_ms, "clusterMsPerStep": cluster_ms, "ratio": cluster_ms / one_ms,
            "workerGradientsMsPerStep": gradients_ms,
            "modelledAllreduceMs": report.comm_seconds * 1e3, "bytesPerStep": report.bytes,
        })
    );
    Ok(())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}
