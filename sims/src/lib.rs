//! The labs' studies and simulations, built on the engine's compute core: a simulated
//! data-parallel cluster and its allreduce costs, gradient compression, the loss landscape and
//! Hessian, batch-size scaling and the gradient noise scale, memory and parallelism layouts,
//! precision runs, optimizer surfaces, iteration timelines, and the benchmark workloads. The
//! engine knows none of these; they reach it only through its public API.

pub mod attention;
pub mod bench;
pub mod cluster;
pub mod cluster_run;
pub mod compress;
pub mod curvature;
pub mod hardware;
pub mod hessian;
pub mod landscape;
pub mod noise_scale;
pub mod parallelism;
pub mod precision_run;
pub mod record;
pub mod scaling;
pub mod sparsity;
pub mod surfaces;
pub mod timeline;

// The simulations of labs in folders of their own (`src/labs/<id>/`, as `lab new-lab` writes
// them), each a module under its id (`build.rs`).
include!(concat!(env!("OUT_DIR"), "/labs.rs"));
