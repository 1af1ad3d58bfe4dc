//! The settings' extremes and the counts they give (`wide_counts.rs`), compiled for wasm32 and run
//! under node by wasm-bindgen-test-runner: a count kept in a 32-bit `usize` fails here.

#[path = "../wide_counts.rs"]
mod wide_counts;
