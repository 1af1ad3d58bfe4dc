//! The state crate's integration tests as one binary: each file is a module, so the run links
//! once and the long lesson runs share the cores with the quick checks instead of queueing
//! behind them (`cargo test -p lab_state --test state landscape_lessons::` runs one file).

mod cluster_lessons;
mod flops;
mod fuzz_state;
mod lab_states;
mod landscape_lessons;
mod lessons;
mod named_choices;
mod optimizer_lessons;
mod parallelism_lab;
mod parallelism_records;
mod playground_lessons;
mod precision_lab;
mod registry;
mod scaling_lessons;
mod settings_tables;
mod trajectory_lessons;
mod vision_lessons;
