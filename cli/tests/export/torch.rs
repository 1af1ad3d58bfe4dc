//! `lab export-torch` where it lands: read without PyTorch (NumPy), and run by PyTorch itself.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `lab` in the repository root; its stdout (the test fails on a failed run).
fn run(root: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_lab"))
        .current_dir(root)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A folder of the test's own holding `config` as config.json: (folder, config path).
fn folder(name: &str, config: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("lab-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("config.json");
    std::fs::write(&path, config).unwrap();
    (dir, path)
}

/// Runs a checker script; whether it passed, and what it said (stdout and stderr).
fn said(check: &mut Command) -> (bool, String) {
    let out = check.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `lab export-torch`: a CNN trained a few steps (padding and a dense layer reading a flat
/// input included), exported, read by Python's `safetensors` and run in NumPy
/// (`scripts/check_torch_export.py`): its class probabilities are `lab predict`'s within 1e-4.
/// Needs `data/` and `tools/pyenv` (setup makes both).
#[test]
fn lab_export_torch_is_read_by_python_and_predicts_what_the_lab_predicts() {
    let root = root();
    let python = root.join("tools/pyenv/bin/python");
    if !python.exists() || !root.join("data/mnist-test.bin").exists() {
        eprintln!("tools/pyenv or data/ is missing: run scripts/setup.sh (skipping)");
        return;
    }
    let (dir, config) = folder(
        "torch",
        r#"{"data": {"images": {"set": "mnist", "train_limit": 500, "test_limit": 20}},
            "model": {"kind": "layers", "layers": [
              {"type": "conv2d", "filters": 4, "kernel": 3, "stride": 1, "padding": 1},
              {"type": "activation", "kind": "tanh"},
              {"type": "pool", "kind": "max", "size": 2, "stride": 2},
              {"type": "conv2d", "filters": 6, "kernel": 3, "stride": 2, "padding": 0},
              {"type": "activation", "kind": "relu"},
              {"type": "pool", "kind": "avg", "size": 2, "stride": 2},
              {"type": "dense", "units": 12}, {"type": "activation", "kind": "leaky_relu"},
              {"type": "dropout", "rate": 0.1}, {"type": "dense", "units": 10}]},
            "optimizer": {"kind": "momentum", "momentum": 0.9}, "learning_rate": 0.05, "batch": 32, "seed": 4}"#,
    );
    let model = dir.join("model.json");
    let run = |args: &[&str]| run(&root, args);
    let (c, m, d) = (
        config.to_str().unwrap(),
        model.to_str().unwrap(),
        dir.to_str().unwrap(),
    );
    run(&[
        "train",
        "--config",
        c,
        "--backend",
        "cpu",
        "--steps",
        "30",
        "--save-model",
        m,
    ]);
    run(&["export-torch", "--model", m, "--out", d]);
    let predicted = dir.join("predicted.json");
    std::fs::write(&predicted, run(&["predict", "--model", m, "--count", "20"])).unwrap();
    let script = std::fs::read_to_string(dir.join("model.py")).unwrap();
    assert!(
        script.contains("nn.Conv2d(1, 4, kernel_size=3, stride=1, padding=1)"),
        "{script}"
    );
    assert!(
        script.contains("nn.Flatten()") && script.contains("nn.Linear(54, 12)"),
        "{script}"
    );
    assert!(
        script.contains("torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)"),
        "{script}"
    );
    let (passed, said) = said(Command::new(&python).current_dir(&root).args([
        "scripts/check_torch_export.py",
        d,
        "data/mnist-test.bin",
        predicted.to_str().unwrap(),
    ]));
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(passed, "{said}");
    assert!(said.contains("20 images, 8 tensors"), "{said}");
}

/// `lab export-torch` run by PyTorch itself (the CPU build: Debian's python3-torch, with
/// safetensors in tools/torch-extra; setup installs both), for every layer kind the labs train —
/// convolution, batch norm (2d and 1d), a residual block with a projection and one without, layer
/// norm, pooling, dense, each activation family: `scripts/check_torch_model.py` runs `python
/// model.py`, checks the model's class probabilities against `lab predict` (1e-5), and takes one
/// step from `lab export-step`'s weights and batch with the script's own optimizer: loss,
/// gradients, weights and running statistics after it equal the lab's within 1e-5.
#[test]
fn lab_export_torch_runs_under_pytorch_and_steps_as_the_lab_does() {
    let root = root();
    let extra = root.join("tools/torch-extra");
    let python = "/usr/bin/python3";
    let has_torch = Command::new(python)
        .args(["-c", "import torch"])
        .status()
        .is_ok_and(|s| s.success());
    if !has_torch || !extra.join("safetensors").exists() || !root.join("data/mnist-test.bin").exists() {
        eprintln!(
            "Debian's python3-torch, tools/torch-extra or data/ is missing: run scripts/setup.sh (skipping)"
        );
        return;
    }
    let (dir, config) = folder(
        "torch-run",
        r#"{"data": {"images": {"set": "mnist", "train_limit": 500, "test_limit": 20}},
            "model": {"kind": "layers", "layers": [
              {"type": "conv2d", "filters": 4, "kernel": 3, "stride": 1, "padding": 1},
              {"type": "batch_norm"}, {"type": "activation", "kind": "relu"},
              {"type": "residual", "projection": true, "layers": [
                {"type": "conv2d", "filters": 6, "kernel": 3, "stride": 2, "padding": 1},
                {"type": "layer_norm"}, {"type": "activation", "kind": "gelu"}]},
              {"type": "pool", "kind": "max", "size": 2, "stride": 2},
              {"type": "dense", "units": 12}, {"type": "batch_norm"}, {"type": "activation", "kind": "tanh"},
              {"type": "residual", "layers": [
                {"type": "dense", "units": 12}, {"type": "layer_norm"}, {"type": "activation", "kind": "sigmoid"}]},
              {"type": "dense", "units": 10}]},
            "optimizer": {"kind": "momentum", "momentum": 0.9}, "learning_rate": 0.05, "batch": 16, "seed": 4}"#,
    );
    let (c, d) = (config.to_str().unwrap(), dir.to_str().unwrap());
    let (model, step, predicted) = (
        dir.join("model.json"),
        dir.join("step.json"),
        dir.join("predicted.json"),
    );
    let m = model.to_str().unwrap();
    run(
        &root,
        &[
            "train",
            "--config",
            c,
            "--backend",
            "cpu",
            "--steps",
            "30",
            "--save-model",
            m,
        ],
    );
    run(&root, &["export-torch", "--model", m, "--out", d]);
    std::fs::write(
        &predicted,
        run(&root, &["predict", "--model", m, "--count", "20"]),
    )
    .unwrap();
    run(
        &root,
        &[
            "export-step",
            "--config",
            c,
            "--backend",
            "cpu",
            "--steps",
            "1",
            "--out",
            step.to_str().unwrap(),
        ],
    );
    let (passed, said) = said(
        Command::new(python)
            .current_dir(&root)
            .env("PYTHONPATH", extra.canonicalize().unwrap())
            .args(["scripts/check_torch_model.py", d, "data/mnist-test.bin"])
            .args([&predicted, &step]),
    );
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(passed, "{said}");
    assert!(said.contains("python model.py: exit 0"), "{said}");
    assert!(
        said.contains("after the step") && said.contains("running statistics"),
        "{said}"
    );
}
