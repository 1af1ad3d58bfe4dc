//! The `lab` command line refuses what it does not understand, with the usage, instead of
//! ignoring it (a mistyped `--step 5000` used to train the default 200 steps without a word).

use std::process::Command;

#[path = "export/torch.rs"]
mod torch_export;

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

/// `lab pipeline` and `lab zero` print the models' figures: the simulated bubble beside its closed
/// form, and ZeRO's bytes per device stage by stage; a zero stage count is refused.
#[test]
fn the_parallelism_commands_print_their_figures() {
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_lab"))
            .args(args)
            .output()
            .expect("lab runs");
        assert!(out.status.success(), "{args:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let p: serde_json::Value = serde_json::from_str(&run(&[
        "pipeline",
        "--schedule",
        "1f1b",
        "--stages",
        "4",
        "--micro",
        "12",
    ]))
    .unwrap();
    assert!((p["bubble"].as_f64().unwrap() - p["bubbleClosedForm"].as_f64().unwrap()).abs() < 1e-12);
    assert_eq!(p["peakInFlightPerStage"], serde_json::json!([4, 3, 2, 1]));
    let stages: Vec<serde_json::Value> = run(&["zero", "--params", "1000", "--workers", "4", "--fp32", "2"])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let totals: Vec<f64> = stages.iter().map(|s| s["totalBytes"].as_f64().unwrap()).collect();
    // 4 + 4 + 8 bytes per parameter; then Adam's 8, the gradients' 4, the weights' 4 split in four.
    assert_eq!(totals, [16_000.0, 10_000.0, 7_000.0, 4_000.0]);
    let (ok, err) = lab(&["pipeline", "--stages", "0"]);
    assert!(!ok && err.contains("at least 1"));
}

/// `lab memory` prints the step's bytes by class, then one line per segment length; one segment
/// (all layers) keeps every activation and re-runs nothing.
#[test]
fn lab_memory_prints_the_classes_and_the_checkpointing_trade() {
    let out = Command::new(env!("CARGO_BIN_EXE_lab"))
        .args(["memory"])
        .output()
        .expect("lab runs");
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let step = &lines[0];
    assert_eq!(step["weightsBytes"], step["gradientsBytes"]);
    let last = lines.last().unwrap();
    assert_eq!(last["keptBytes"], last["allBytes"]);
    assert_eq!(last["recomputeFlops"].as_f64(), Some(0.0));
    assert_eq!(last["allBytes"], step["activationBytes"]);
}

/// `lab layouts` prints the four corners (plain's peak is the step's bytes `lab memory` prints),
/// then the search's layouts, each fitting, fastest first.
#[test]
fn lab_layouts_prints_the_corners_and_the_search() {
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_lab"))
            .args(args)
            .output()
            .expect("lab runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .collect::<Vec<_>>()
    };
    let memory = run(&["memory"]);
    let lines = run(&["layouts", "--memory", "0.02", "--search", "4"]);
    assert_eq!(lines[0]["layout"], "plain");
    assert_eq!(
        lines[0]["fits"], false,
        "the default config's plain step needs more than 20 kB"
    );
    assert_eq!(lines[0]["peakBytes"], memory[0]["stepBytes"]);
    let found = &lines[4..];
    assert!(!found.is_empty());
    assert!(found
        .iter()
        .all(|l| l["fits"] == true && l["devices"].as_u64().unwrap() <= 4));
    let times: Vec<f64> = found.iter().map(|l| l["stepSeconds"].as_f64().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
}

/// `lab bench-matmul` times the product kernel and checks each result (all-0.5 by all-0.25:
/// every value k/8) as it prints GFLOP/s.
#[test]
fn lab_bench_matmul_prints_checked_figures() {
    let out = Command::new(env!("CARGO_BIN_EXE_lab"))
        .args([
            "bench-matmul",
            "--backend",
            "cpu",
            "--max",
            "64",
            "--seconds",
            "0.01",
        ])
        .output()
        .expect("lab runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4, "square 64 and W1's three products");
    for l in &lines {
        assert_eq!(l["check"], l["expected"], "{l}");
        assert!(l["gflops"].as_f64().unwrap() > 0.0);
    }
}

/// `lab split-bench` times W1's CPU step on one core and split over two threads both ways.
#[test]
fn lab_split_bench_prints_each_split() {
    let out = Command::new(env!("CARGO_BIN_EXE_lab"))
        .args(["--data", concat!(env!("CARGO_MANIFEST_DIR"), "/../data")])
        .args(["split-bench", "--steps", "3"])
        .output()
        .expect("lab runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let splits: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .inspect(|l| assert!(l["samplesPerSec"].as_f64().unwrap() > 0.0, "{l}"))
        .map(|l| l["split"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(splits, ["one core", "batch rows", "hidden units"]);
}

#[test]
fn lab_lesson_check_passes_the_course_and_names_a_broken_lessons_problems() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../public/lessons");
    let good = format!("{dir}/optimizers-momentum.json");
    let out = Command::new(env!("CARGO_BIN_EXE_lab"))
        .args(["lesson", "check", &good])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).ends_with("optimizers-momentum.json: ok\n"));
    // The same lesson with a misspelled metric.
    let broken = std::env::temp_dir().join(format!("lesson-check-{}.json", std::process::id()));
    let text = std::fs::read_to_string(&good)
        .unwrap()
        .replacen("{rate-momentum}", "{rate-momentm}", 1);
    std::fs::write(&broken, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lab"))
        .args(["lesson", "check", &good, broken.to_str().unwrap()])
        .output()
        .unwrap();
    std::fs::remove_file(&broken).unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success());
    assert!(
        stdout.contains("1 problem(s)") && stdout.contains("publishes no metric \"rate-momentm\""),
        "{stdout}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 of 2 lesson file(s) have problems"));
}

/// `lab attention` with a tiny model on the CPU path and `task` arguments: its JSON lines.
fn attention_lines(task: &[&str]) -> Vec<serde_json::Value> {
    let tiny = "--width 8 --heads 2 --hidden 16 --batch 8 --backend cpu";
    let out = Command::new(env!("CARGO_BIN_EXE_lab"))
        .arg("attention")
        .args(task)
        .args(tiny.split(' '))
        .output()
        .expect("lab runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn lab_attention_prints_its_curves_and_refuses_a_bad_task() {
    let lines = attention_lines(&[
        "--p",
        "5",
        "--train-fraction",
        "0.6",
        "--steps",
        "20",
        "--every",
        "10",
    ]);
    let steps: Vec<u64> = lines.iter().map(|l| l["step"].as_u64().unwrap()).collect();
    assert_eq!(steps, [10, 20]);
    for l in &lines {
        for key in ["train_accuracy", "test_accuracy"] {
            assert!((0.0..=1.0).contains(&l[key].as_f64().unwrap()), "{l}");
        }
        assert!(l["weight_norm"].as_f64().unwrap() > 0.0, "{l}");
    }
    // Copying also says where the last block looks: a share of attention.
    let copy = attention_lines(&[
        "--task", "copy", "--p", "5", "--len", "3", "--steps", "10", "--every", "10",
    ]);
    assert!(
        (0.0..=1.0).contains(&copy[0]["answer_attention"].as_f64().unwrap()),
        "{}",
        copy[0]
    );
    // Sorting says where the next smallest token stood.
    let sort = attention_lines(&[
        "--task", "sort", "--p", "5", "--len", "3", "--steps", "10", "--every", "10",
    ]);
    assert!(
        (0.0..=1.0).contains(&sort[0]["answer_attention"].as_f64().unwrap()),
        "{}",
        sort[0]
    );
    let (ok, err) = lab(&["attention", "--task", "reverse", "--backend", "cpu"]);
    assert!(!ok && err.contains("unknown task"), "{err}");
}
