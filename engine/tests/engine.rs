//! The engine's integration tests as one binary: each file is a module, so the test run links
//! once instead of once per file. A file's tests are named `file::test` (`cargo test -p engine
//! --test engine carry_on::` runs one file).

mod common;

mod architecture;
mod attention;
mod carry_on;
mod checkpointing;
mod clipping;
mod cnn_training;
mod collectives;
mod conv_pool;
mod data_files;
mod delayed_scaling;
mod embedding;
mod export_step;
#[path = "fused/main.rs"]
mod fused;
mod gradients_finite_difference;
mod hidden_split;
#[path = "kernels_gpu_vs_cpu/main.rs"]
mod kernels_gpu_vs_cpu;
mod masked_training;
mod memory_plan;
mod micro_batches;
mod norm_residual;
mod optimizer_formulas;
mod precision_formats;
mod readbacks;
mod roofline;
mod sparse_forward;
mod split_step;
mod step_export_whole;
mod step_graph;
mod tiles;
mod training_gpu_vs_cpu;
mod transformer;
mod uniform_layouts;
mod vision;
