//! The cluster lab's settings table: one row per setting; a control's name is its test id
//! without `cl-`.

use engine::collectives::Link;
use engine::optim::Optimizer;

use super::{parse_bound, parse_counts, ClusterLab, ALGORITHMS, COMPRESSIONS};
use crate::lab::nearest;
use crate::table::{field, hide_field, no_check, ranged, text, Setting, Table};

impl Table for ClusterLab {
    const SETTINGS: &'static [Setting<Self>] = &[
        field!("data"),
        ranged!("optimizer", optimizer, 0, Optimizer::all().len() - 1),
        ranged!("lr", lr, 1e-6, 10.0),
        ranged!("target", target, 0.0, 1.0),
        ranged!("max_steps", Some("steps"), max_steps, 1, 100_000),
        ranged!("workers", workers, 1, 64),
        field!("weak", Some("scaling"), no_check),
        ranged!("batch", batch, 1, 4096),
        ranged!("gflops", gflops, 1e-3, 1e6),
        ranged!("straggler", straggler, 1.0, 100.0),
        field!("chosen", Some("algorithms"), no_check),
        ranged!("shards", shards, 1, 64),
        ranged!("gpus_per_node", Some("gpus"), gpus_per_node, 1, 64),
        ranged!("intra", intra, 0, Link::PRESETS.len() - 1),
        ranged!("inter", inter, 0, Link::PRESETS.len() - 1),
        field!("overlap"),
        field!("asynchronous", Some("async"), no_check),
        text!("bound", Some("bound"), bound, 20, parse_bound),
        ranged!("compression", compression, 0, COMPRESSIONS.len() - 1),
        ranged!("percent", percent, 0.01, 100.0),
        field!("bits", |s, n| nearest(n, "bits", &mut s.bits, &[8, 4, 2, 1])),
        field!("error_feedback", Some("ef"), no_check),
        field!("momentum_correction", Some("correction"), no_check),
        text!("study", Some("study"), study, 200, parse_counts),
        ranged!("animate", animate, 0, ALGORITHMS.len() - 1),
        ranged!("seed", seed, 0, crate::lab::MAX_SEED),
        field!("backend"),
    ];
    const OTHER_CONTROLS: &'static [&'static str] = &[
        "train",
        "run-study",
        "cancel",
        "export-csv",
        "export-record",
        "export-curve",
        "export-config",
        "load",
        "share",
        "lesson",
    ];

    hide_field!();
}

crate::lab::runs_on_field!(ClusterLab);
