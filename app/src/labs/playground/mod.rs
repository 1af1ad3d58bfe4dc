//! The playground: a small network on 2-D points, trained live. `lab` is the page's model (its
//! settings, data and what the charts show), `session` the one task that owns the trainer, and
//! the `*_panel` files the components that show them.

pub mod heatmap;
pub mod network_chart;
mod backend;
mod command;
mod controls;
mod data_panel;
mod gpu_job;
mod handover;
mod lab;
mod lesson;
mod network_panel;
mod page;
mod prediction;
mod run_panel;
mod session;
mod tables;

/// The lab's page, under the name the registry's generated router mounts (`build.rs`).
pub use page::App as Page;

/// Cells per side of the decision-boundary heatmap.
pub const GRID: usize = 48;
