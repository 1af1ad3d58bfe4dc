//! The `lab` command line refuses what it does not understand, with the usage, instead of
//! ignoring it (a mistyped `--step 5000` used to train the default 200 steps without a word).

use std::process::Command;

fn lab(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lab"))
        .args(args)
        .output()
        .expect("lab runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn unknown_flags_and_bad_values_are_refused_with_the_usage() {
    let (ok, err) = lab(&["train", "--step", "5000"]);
    assert!(!ok && err.contains("unexpected argument '--step'") && err.contains("Usage: lab train"));
    let (ok, err) = lab(&["train", "--steps", "many"]);
    assert!(!ok && err.contains("invalid value 'many' for '--steps <N>'"));
    let (ok, err) = lab(&["train", "--backend", "tpu"]);
    assert!(!ok && err.contains("invalid value 'tpu'") && err.contains("gpu, cpu"));
    let (ok, err) = lab(&["bench", "--epochs", "1", "--steps", "5"]);
    assert!(!ok && err.contains("cannot be used with"));
    let (ok, err) = lab(&["fly"]);
    assert!(!ok && err.contains("unrecognized subcommand 'fly'"));
}

#[test]
fn a_good_command_line_trains() {
    let out = Command::new(env!("CARGO_BIN_EXE_lab"))
        .args(["train", "--backend", "cpu", "--steps", "3", "--format", "csv"])
        .output()
        .expect("lab runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let rows = engine::table::read_rows(&text).unwrap();
    assert_eq!(rows.len(), 4, "three steps and the final evaluation: {text}");
}
