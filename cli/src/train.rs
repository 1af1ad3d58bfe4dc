//! `lab train`, `lab predict` and `lab export-step`: one model, trained, asked, or taken apart.

use anyhow::Context;
use std::path::{Path, PathBuf};

use crate::io::{build, config_of, gpu_of};
use crate::{Backend, Format};

#[derive(clap::Args)]
pub struct TrainArgs {
    /// A training config (JSON); the default config when absent
    #[arg(long, value_name = "FILE.json")]
    config: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "gpu")]
    backend: Backend,
    #[arg(long, default_value_t = 200, value_name = "N")]
    steps: usize,
    /// Measure the training and test sets every N steps (0: only at the end)
    #[arg(long, default_value_t = 0, value_name = "N")]
    eval_every: usize,
    #[arg(long, value_enum, default_value = "jsonl")]
    format: Format,
    /// Save the trained model (weights, optimizer state, config) here
    #[arg(long, value_name = "MODEL.json")]
    save_model: Option<PathBuf>,
    /// Carry on from a saved model
    #[arg(long, value_name = "MODEL.json")]
    resume: Option<PathBuf>,
    /// Train in reduced precision: fp32, fp16 (naive), mixed-fp16, mixed-bf16 or fp8
    #[arg(long, value_name = "PRESET", value_parser = parse_preset)]
    precision: Option<engine::precision::Preset>,
}

fn parse_preset(name: &str) -> anyhow::Result<engine::precision::Preset> {
    engine::precision::Preset::parse(name).with_context(|| {
        let names: Vec<_> = engine::precision::PRESETS.iter().map(|p| p.name()).collect();
        format!("unknown precision {name:?}: one of {}", names.join(", "))
    })
}

#[derive(clap::Args)]
pub struct PredictArgs {
    #[arg(long, value_name = "MODEL.json")]
    model: PathBuf,
    #[arg(long, value_enum, default_value = "cpu")]
    backend: Backend,
    /// How many test images, from the first
    #[arg(long, default_value_t = 10, value_name = "N")]
    count: usize,
}

#[derive(clap::Args)]
pub struct ExportArgs {
    #[arg(long, value_name = "FILE.json")]
    config: Option<PathBuf>,
    /// A fixed benchmark workload (W1, W2 or T1) instead of a config file: its initial weights
    /// for the peer comparison (`bench/compare.mjs`); T1's file also holds its batches
    #[arg(long, value_name = "W1|W2|T1", conflicts_with = "config")]
    workload: Option<String>,
    /// T1: the batches written (the steps the comparison trains; default the lab's default run)
    #[arg(long, value_name = "N")]
    batches: Option<usize>,
    #[arg(long, value_enum, default_value = "gpu")]
    backend: Backend,
    /// The step written whole (after N − 1 real steps)
    #[arg(long, default_value_t = 1, value_name = "N")]
    steps: u64,
    #[arg(long, value_name = "STEP.json")]
    out: PathBuf,
}

pub fn load_model(path: &Path) -> anyhow::Result<engine::export::ModelExport> {
    let text = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
    engine::export::ModelExport::from_json(&text).with_context(|| path.display().to_string())
}

/// A saved model's predictions on the first test images: what the vision lab must reproduce.
pub fn predict(a: &PredictArgs, data: &Path) -> anyhow::Result<()> {
    let saved = load_model(&a.model)?;
    let (mut trainer, test) = build(data, saved.config.clone(), gpu_of(a.backend)?, 0)?;
    saved.load_weights(&mut trainer)?;
    let test = test.context("the model's data has no test set")?.head(a.count);
    let probs = pollster::block_on(trainer.probabilities(&test))?;
    let classes = trainer.compiled.classes();
    println!(
        "{}",
        serde_json::json!({
            "labels": test.y,
            "probabilities": probs.chunks(classes).collect::<Vec<_>>(),
        })
    );
    Ok(())
}

pub fn export_step(a: &ExportArgs, data: &Path) -> anyhow::Result<()> {
    if a.workload.as_deref() == Some(lab_sims::attention::bench::T1) {
        let plan = lab_state::bench::transformer_plan();
        let batches = a.batches.unwrap_or(plan.steps);
        let file = pollster::block_on(lab_sims::attention::bench::export(&plan, batches))?;
        let out = a.out.display();
        std::fs::write(&a.out, file.to_string()).with_context(|| out.to_string())?;
        println!(
            "wrote {out}: T1's initial weights and {batches} batches of {}",
            plan.batch
        );
        return Ok(());
    }
    let config = match &a.workload {
        Some(name) => {
            let w = lab_sims::bench::WORKLOADS
                .iter()
                .find(|w| w.name == name)
                .with_context(|| format!("no workload '{name}': W1, W2 or T1"))?;
            (w.config)()
        }
        None => config_of(a.config.as_deref())?,
    };
    let (mut trainer, _) = build(data, config, gpu_of(a.backend)?, 0)?;
    pollster::block_on(engine::export::train_until_step(&mut trainer, a.steps.max(1) - 1))?;
    let step = pollster::block_on(engine::export::export_step(&mut trainer))?;
    let json = serde_json::to_string_pretty(&step)?;
    let out = a.out.display();
    std::fs::write(&a.out, json).with_context(|| out.to_string())?;
    println!(
        "wrote {out}: step {}, loss {} on a batch of {}",
        step.step,
        step.loss,
        step.batch.labels.len()
    );
    Ok(())
}

/// Samples the training metrics are measured on (a fixed head of the training set, so that a
/// 60,000-image run does not spend its time evaluating).
const TRAIN_EVAL_SAMPLES: usize = 10_000;

pub fn train(a: &TrainArgs, data: &Path) -> anyhow::Result<()> {
    let mut config = config_of(a.config.as_deref())?;
    if let Some(preset) = a.precision {
        config.precision = preset.precision();
    }
    let (steps, eval_every, csv) = (a.steps, a.eval_every, a.format == Format::Csv);
    let (mut trainer, test) = build(data, config, gpu_of(a.backend)?, 0)?;
    if let Some(path) = &a.resume {
        load_model(path)?
            .resume(&mut trainer)
            .with_context(|| path.display().to_string())?;
        eprintln!("resumed {} at step {}", path.display(), trainer.step());
    }
    let train_head = trainer.data.head(TRAIN_EVAL_SAMPLES);
    eprintln!("training on {}", trainer.backend_name());
    if csv {
        println!("step,loss,accuracy,train_loss,train_accuracy,test_loss,test_accuracy,samples_per_sec");
    }
    let (mut done, mut trained_ms) = (0, 0.0);
    while done < steps {
        let until_eval = if eval_every > 0 {
            eval_every - done % eval_every
        } else {
            steps
        };
        let chunk = (steps - done).min(until_eval).min(100);
        let t0 = std::time::Instant::now();
        let metrics = pollster::block_on(trainer.train(chunk))?;
        trained_ms += t0.elapsed().as_secs_f64() * 1000.0;
        for m in &metrics {
            if csv {
                println!("{},{},{},,,,,", m.step, m.loss, m.accuracy);
            } else {
                println!("{}", serde_json::to_string(m).expect("metrics serialize"));
            }
        }
        done += metrics.len();
        if done == steps || (eval_every > 0 && done % eval_every == 0) {
            let (train_loss, train_accuracy) = pollster::block_on(trainer.evaluate(&train_head))?;
            let test = match &test {
                Some(t) => Some(pollster::block_on(trainer.evaluate(t))?),
                None => None,
            };
            let rate = (done * trainer.config.batch) as f64 / (trained_ms / 1000.0);
            if csv {
                let (tl, ta) = test.map_or((String::new(), String::new()), |(l, a)| {
                    (l.to_string(), a.to_string())
                });
                println!("{done},,,{train_loss},{train_accuracy},{tl},{ta},{rate:.1}");
            } else {
                let mut line = serde_json::json!({
                    "step": done,
                    "train_loss": train_loss,
                    "train_accuracy": train_accuracy,
                    "samples_per_sec": rate,
                });
                if !trainer.config.precision.is_fp32() {
                    line["loss_scale"] = trainer.loss_scale().into();
                    line["skipped_steps"] = trainer.skipped_steps().into();
                }
                if let Some((loss, accuracy)) = test {
                    line["test_loss"] = loss.into();
                    line["test_accuracy"] = accuracy.into();
                }
                println!("{line}");
            }
        }
    }
    if let Some(path) = &a.save_model {
        let model = pollster::block_on(engine::export::export_model(&trainer))?;
        let json = serde_json::to_string(&model)?;
        std::fs::write(path, json).with_context(|| path.display().to_string())?;
        eprintln!(
            "saved the trained model to {} (loads in the vision lab)",
            path.display()
        );
    }
    Ok(())
}
