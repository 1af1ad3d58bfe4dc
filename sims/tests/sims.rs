//! The simulations' integration tests as one binary, each file a module (`cargo test -p lab_sims
//! --test sims cluster::` runs one file). They share the engine tests' helpers.

#[path = "../../engine/tests/common/mod.rs"]
mod common;

#[path = "cluster/main.rs"]
mod cluster;
mod hessian;
#[path = "landscape/main.rs"]
mod landscape;
mod landscape_chunks;
mod layouts;
mod precision_training;
mod scaling;
mod scaling_reference;
mod step_memory;
mod surfaces;
mod transformer_bench;
mod transformer_memory;
mod transformer_split;
mod zero_run;
