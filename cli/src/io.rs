//! What every command shares: reading files, the config, the GPU, the data and the trainer.

use anyhow::Context;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use engine::data::Dataset;
use engine::gpu::GpuContext;
use engine::tiles::TilePlan;
use engine::train::{TrainConfig, Trainer};

use crate::Backend;

pub fn read(path: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).with_context(|| path.display().to_string())
}

/// The config in `path`, or the default config.
pub fn config_of(path: Option<&Path>) -> anyhow::Result<TrainConfig> {
    match path {
        Some(p) => serde_json::from_slice(&read(p)?).with_context(|| p.display().to_string()),
        None => Ok(TrainConfig::default()),
    }
}

/// The GPU for `gpu`, none for `cpu`.
pub fn gpu_of(backend: Backend) -> anyhow::Result<Option<Rc<GpuContext>>> {
    match backend {
        Backend::Gpu => Ok(Some(Rc::new(pollster::block_on(GpuContext::new())?))),
        Backend::Cpu => Ok(None),
    }
}

/// Sets the product kernels' tiles on `gpu`: "auto" times the candidates on this device and
/// keeps the fastest of each size class (saying so on stderr), a code sets those shapes ("64",
/// "32", "128", "32k4", or per size class as "64/128", "32/64/128" or "32/32/128/32k4"). `known`: a plan this run already settled,
/// which a later context of the same device takes without timing again; the plan set is
/// returned for the next.
pub fn tiles_on(
    gpu: &Option<Rc<GpuContext>>,
    tiles: &str,
    known: Option<TilePlan>,
) -> anyhow::Result<Option<TilePlan>> {
    let Some(ctx) = gpu else { return Ok(known) };
    let plan = match known {
        Some(plan) => plan,
        None if tiles == "auto" => {
            let t0 = lab_sims::bench::native_now_ms();
            let tuning =
                pollster::block_on(engine::autotune::autotune(ctx, &lab_sims::bench::native_now_ms))?;
            let ms = lab_sims::bench::native_now_ms() - t0;
            let device = ctx.adapter.label();
            eprintln!(
                "lab: tiles on {device} (timed in {ms:.0} ms): {}",
                tuning.summary()
            );
            tuning.best
        }
        None => TilePlan::parse(tiles).with_context(|| {
            format!("no tiles {tiles}: 64, 32, 128, 32k4, or e.g. 64/128, 32/64/128 or 64/c32")
        })?,
    };
    ctx.tiles.set(plan);
    Ok(Some(plan))
}

/// The config's training and test data (image sets from `dir`; a CSV path is taken as given when
/// it exists).
pub fn load_data(dir: &Path, config: &TrainConfig) -> anyhow::Result<(Dataset, Option<Dataset>)> {
    let data = config.data.load(|name| {
        let given = PathBuf::from(name);
        read(&if given.exists() { given } else { dir.join(name) }).map_err(|e| format!("{e:#}"))
    })?;
    Ok(data)
}

/// Loads the config's data and builds a trainer, with a landscape evaluation over `eval_rows`
/// samples (at most the training set's).
pub fn build(
    dir: &Path,
    config: TrainConfig,
    gpu: Option<Rc<GpuContext>>,
    eval_rows: usize,
) -> anyhow::Result<(Trainer, Option<Dataset>)> {
    let (train, test) = load_data(dir, &config)?;
    let eval_rows = eval_rows.min(train.len());
    // Predictions go in chunks of 250 rows: a deep CNN's activations for 1,000 rows would not fit
    // the CPU path's memory limit beside its evaluation plan.
    let trainer = pollster::block_on(Trainer::with_evaluation(config, train, gpu, 250, eval_rows))?;
    Ok((trainer, test))
}
