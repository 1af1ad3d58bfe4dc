//! `lab sparse-bench`: what pruning buys in real time. An MLP's forward pass over a batch of
//! inputs, dense; with its smallest weights pruned (unstructured, one global threshold) and run by
//! the CSR kernel (`engine::sparse`); and pruned structurally to the smaller dense network of
//! about as many weights (`lab_sims::sparsity::structured`) — at each sparsity, on the GPU or the
//! CPU path. The pattern of a magnitude mask on initial weights is as scattered as a trained
//! one's, which is what the sparse kernel's speed depends on.

use std::path::Path;
use std::time::Instant;

use engine::data::Dataset;
use engine::ops::activation::Activation;
use engine::rng::Rng;
use engine::sparse::SparseMlp;
use engine::train::{ModelConfig, TrainConfig, Trainer};
use lab_sims::sparsity::masks::{self, Scope};
use lab_sims::sparsity::structured::{compact, kept_widths, smaller_config, unit_mask};

use crate::io::gpu_of;
use crate::Backends;

#[derive(clap::Args)]
pub struct SparseArgs {
    /// Hidden widths of the MLP (784 inputs, 10 outputs)
    #[arg(long, default_value = "100", value_name = "W,W")]
    hidden: String,
    /// Inputs per forward pass (at most 65,535)
    #[arg(long, default_value_t = 2000, value_name = "N")]
    rows: usize,
    /// Shares of the weights pruned
    #[arg(long, default_value = "0.5,0.875,0.95,0.99", value_name = "S,S")]
    sparsities: String,
    /// Timed passes of each network (the median is printed), after one untimed
    #[arg(long, default_value_t = 5, value_name = "N")]
    repeats: usize,
    #[arg(long, value_enum, default_value = "both")]
    backend: Backends,
}

fn list<T: std::str::FromStr>(text: &str, what: &str) -> anyhow::Result<Vec<T>> {
    (text.split(','))
        .map(|v| {
            v.trim()
                .parse()
                .map_err(|_| anyhow::anyhow!("{what}: {v:?} is not a number"))
        })
        .collect()
}

/// The median of `repeats` timed runs of `f`, in milliseconds, after one untimed run.
fn median_ms(repeats: usize, mut f: impl FnMut() -> anyhow::Result<()>) -> anyhow::Result<f64> {
    f()?;
    let mut times = Vec::new();
    for _ in 0..repeats.max(1) {
        let start = Instant::now();
        f()?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

pub fn sparse_bench(a: &SparseArgs, _: &Path) -> anyhow::Result<()> {
    let hidden: Vec<usize> = list(&a.hidden, "hidden")?;
    let sparsities: Vec<f64> = list(&a.sparsities, "sparsities")?;
    anyhow::ensure!((1..=65_535).contains(&a.rows), "rows: 1 to 65,535");
    let mut rng = Rng::new(7);
    let data = Dataset {
        x: (0..a.rows * 784).map(|_| rng.range(0.0, 1.0)).collect(),
        y: (0..a.rows).map(|i| (i % 10) as u32).collect(),
        dim: 784,
        classes: 10,
        targets: Vec::new(),
    };
    let config = TrainConfig {
        model: ModelConfig::Mlp {
            hidden: hidden.clone(),
            activation: Activation::Relu,
        },
        ..lab_sims::bench::w1()
    };
    for backend in a.backend.list() {
        let gpu = gpu_of(backend)?;
        let device = gpu
            .as_ref()
            .map_or("CPU path".to_string(), |g| g.adapter.name.clone());
        let trainer = |config: TrainConfig| -> anyhow::Result<Trainer> {
            Ok(pollster::block_on(Trainer::with_data(
                config,
                data.clone(),
                gpu.clone(),
                a.rows,
            ))?)
        };
        let mut dense = trainer(config.clone())?;
        let params = pollster::block_on(dense.params())?;
        let dense_ms = median_ms(a.repeats, || {
            Ok(pollster::block_on(dense.evaluate(&data)).map(|_| ())?)
        })?;
        let spans = masks::weight_spans(&dense.compiled);
        for &sparsity in &sparsities {
            let mask = masks::magnitude(
                &params,
                &masks::dense(params.len()),
                &spans,
                sparsity,
                Scope::Global,
            );
            let mut sparse = pollster::block_on(SparseMlp::new(
                &dense.compiled,
                &masks::apply(&params, &mask),
                a.rows,
                gpu.clone(),
            ))?;
            let csr_ms = median_ms(a.repeats, || {
                Ok(pollster::block_on(sparse.accuracy(&data)).map(|_| ())?)
            })?;
            let widths =
                kept_widths(&dense.compiled, sparsity).ok_or_else(|| anyhow::anyhow!("not an MLP"))?;
            let (_, kept) =
                unit_mask(&params, &dense.compiled, &widths).ok_or_else(|| anyhow::anyhow!("not an MLP"))?;
            let (small_config, _) = smaller_config(&config, &dense.compiled, &widths)
                .ok_or_else(|| anyhow::anyhow!("not an MLP"))?;
            let mut small = trainer(small_config)?;
            small.set_params(
                &compact(&params, &dense.compiled, &kept).ok_or_else(|| anyhow::anyhow!("not an MLP"))?,
            )?;
            let small_ms = median_ms(a.repeats, || {
                Ok(pollster::block_on(small.evaluate(&data)).map(|_| ())?)
            })?;
            let line = serde_json::json!({
                "device": device,
                "hidden": hidden,
                "rows": a.rows,
                "sparsity": sparsity,
                "denseMs": dense_ms,
                "csrMs": csr_ms,
                "smallerMs": small_ms,
                "smallerWidths": widths,
                "csrSpeedup": dense_ms / csr_ms,
                "smallerSpeedup": dense_ms / small_ms,
                "csrBytes": sparse.bytes(),
            });
            println!("{line}");
        }
    }
    Ok(())
}
