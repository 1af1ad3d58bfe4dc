//! `lab sweep` and `lab noise-scale`: the scaling lab's experiments, natively.

use anyhow::Context;
use std::path::{Path, PathBuf};

use engine::train::Trainer;

use crate::io::{build, config_of, gpu_of, load_data, read};
use crate::{Backend, Format};

#[derive(clap::Args)]
pub struct SweepArgs {
    /// The sweep (the scaling lab's config file)
    #[arg(long, value_name = "SWEEP.json")]
    config: PathBuf,
    #[arg(long, value_enum, default_value = "gpu")]
    backend: Backend,
    #[arg(long, value_enum, default_value = "jsonl")]
    format: Format,
}

#[derive(clap::Args)]
pub struct NoiseArgs {
    #[arg(long, value_name = "FILE.json")]
    config: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "gpu")]
    backend: Backend,
    #[arg(long, default_value_t = 1000, value_name = "N")]
    steps: usize,
    /// Measure every N steps
    #[arg(long, default_value_t = 50, value_name = "N")]
    every: usize,
    /// Batches per measurement
    #[arg(long, default_value_t = 8, value_name = "N")]
    k: usize,
    /// Measurements B_simple is averaged over
    #[arg(long, default_value_t = lab_sims::scaling::NOISE_WINDOW, value_name = "N")]
    window: usize,
}

pub fn sweep(a: &SweepArgs, data: &Path) -> anyhow::Result<()> {
    use lab_sims::scaling::{run, Sweep};
    let path = a.config.display();
    let sweep: Sweep = serde_json::from_slice(&read(&a.config)?).with_context(|| path.to_string())?;
    let csv = a.format == Format::Csv;
    let gpu = gpu_of(a.backend)?;
    if csv {
        println!("{}", lab_sims::scaling::CSV_HEADER);
    }
    let (train, test) = load_data(data, &sweep.base)?;
    for (batch, lr) in sweep.runs() {
        let config = sweep.config(batch, lr, train.len());
        let mut trainer = pollster::block_on(Trainer::with_data(config, train.clone(), gpu.clone(), 1000))?;
        let mut r = pollster::block_on(run(&mut trainer, &sweep, test.as_ref(), |_, _| async { true }))?;
        if csv {
            println!("{}", r.csv_row());
        } else {
            r.losses.clear();
            r.learning_rates.clear();
            println!("{}", serde_json::to_string(&r).expect("results serialize"));
        }
    }
    Ok(())
}

pub fn noise_scale(a: &NoiseArgs, data: &Path) -> anyhow::Result<()> {
    use lab_sims::scaling::{measure_noise, raw_b_simple, NoiseScale};
    let config = config_of(a.config.as_deref())?;
    let (mut trainer, _) = build(data, config, gpu_of(a.backend)?, 0)?;
    let mut estimate = NoiseScale::new(a.window);
    while (trainer.step() as usize) < a.steps {
        pollster::block_on(trainer.train(a.every.max(1)))?;
        let (bs, small, bb, big) = pollster::block_on(measure_noise(&mut trainer, a.k))?;
        estimate.add(trainer.step() as usize, bs, small, bb, big);
        let last = *estimate.raw.last().expect("just added");
        println!(
            "{}",
            serde_json::json!({
                "step": trainer.step(), "b_small": bs, "g2_small": small, "b_big": bb, "g2_big": big,
                "g2": last.1, "trace": last.2, "b_simple_raw": raw_b_simple(last),
                "b_simple_window": estimate.b_simple(),
            })
        );
    }
    Ok(())
}
