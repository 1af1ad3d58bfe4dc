//! The state crate's integration tests as one binary: each file is a module, so the run links
//! once and the long lesson runs share the cores with the quick checks instead of queueing
//! behind them (`cargo test -p lab_state --test state landscape_lessons::` runs one file).

// Every other file of this folder, as a module (`build.rs` lists them): a new file joins the
// binary without a line here.
include!(concat!(env!("OUT_DIR"), "/test_modules.rs"));
