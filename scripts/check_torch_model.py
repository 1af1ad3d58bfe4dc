#!/usr/bin/env python3
"""Runs a `lab export-torch` folder's model.py under PyTorch, as a student takes it to a notebook:

1. `python model.py` runs (its `__main__` prints the outputs for an all-zero input);
2. imported, its model (weights from model.safetensors) gives the class probabilities `lab
   predict` printed for the first N test images, within 1e-5;
3. from a `lab export-step` file of the same model (its weights before the step and its batch),
   PyTorch's forward, loss, backward and the script's own optimizer take the step: the loss, the
   gradients and the weights after it are the lab's within 1e-5 (relative to each tensor's
   largest value). Batch norm's running statistics after the step too.

Exits 1, saying where, on a difference.

    python3 scripts/check_torch_model.py DIR data/mnist-test.bin PREDICTIONS.json STEP.json
"""
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import torch

TOLERANCE = 1e-5


def images(path, count):
    raw = open(path, "rb").read()
    assert raw[:8] == b"LABIMG01", "not a lab image file"
    n, rows, cols = (int.from_bytes(raw[o:o + 4], "little") for o in (8, 12, 16))
    pixels = np.frombuffer(raw, dtype=np.uint8, offset=24 + n, count=n * rows * cols)
    return pixels.reshape(n, 1, rows, cols)[:count].astype(np.float32) / 255.0


def gap(got, want):
    """The largest difference, relative to the larger of 1 and the reference's largest value."""
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    return float(np.abs(got - want).max() / max(1.0, float(np.abs(want).max())))


def check(what, got, want, problems):
    g = gap(got, want)
    print(f"  {what}: largest difference {g:.2e}")
    if not g <= TOLERANCE:
        problems.append(f"{what}: {g:.2e} over {TOLERANCE:.0e}")


def main():
    folder, data, predicted, step_file = (os.path.abspath(a) for a in sys.argv[1:5])
    os.chdir(folder)  # model.py reads model.safetensors where it runs
    ran = subprocess.run([sys.executable, "model.py"], capture_output=True, text=True)
    print(f"python model.py: exit {ran.returncode}: {(ran.stdout + ran.stderr).strip()[-400:]}")
    problems = [] if ran.returncode == 0 else ["model.py does not run"]
    spec = importlib.util.spec_from_file_location("model", "model.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    torch.set_default_dtype(torch.float32)

    lab = json.load(open(predicted))
    want = np.array(lab["probabilities"], dtype=np.float64)
    m.model.eval()
    with torch.no_grad():
        probs = torch.softmax(m.model(torch.from_numpy(images(data, len(want)))), dim=1).numpy()
    print(f"{len(want)} images against lab predict:")
    check("class probabilities", probs, want, problems)

    step = json.load(open(step_file))
    params = list(m.model.parameters())
    if len(params) != len(step["parameters"]):
        problems.append(f"{len(params)} parameters in PyTorch, {len(step['parameters'])} in the step")
    else:
        with torch.no_grad():
            for p, t in zip(params, step["parameters"]):
                p.copy_(torch.tensor(t["values"], dtype=torch.float32).reshape(p.shape))
            # Batch norm's running statistics before the step, a (mean, variance) pair per channel.
            running = iter(step.get("running_before", []))
            for mod in m.model.modules():
                if isinstance(mod, torch.nn.modules.batchnorm._BatchNorm):
                    pairs = np.array([next(running) for _ in range(2 * mod.num_features)], dtype=np.float32)
                    mod.running_mean.copy_(torch.from_numpy(pairs[0::2]))
                    mod.running_var.copy_(torch.from_numpy(pairs[1::2]))
        batch = step["batch"]
        x = torch.tensor(batch["inputs"], dtype=torch.float32).reshape(-1, *step["model"]["input"])
        labels = torch.tensor(batch["labels"], dtype=torch.long)
        m.model.train()
        for group in m.optimizer.param_groups:
            group["lr"] = step["learning_rate"]
        m.optimizer.zero_grad()
        out = m.model(x)
        loss = m.loss_fn(out, labels)
        loss.backward()
        print(f"one step ({len(labels)} samples, learning rate {step['learning_rate']}) against lab export-step:")
        check("loss", loss.item(), step["loss"], problems)
        for p, t in zip(params, step["gradients"]):
            check(f"gradient of {t['name']}", p.grad.numpy().ravel(), t["values"], problems)
        m.optimizer.step()
        for p, t in zip(params, step["parameters_after"]):
            check(f"{t['name']} after the step", p.detach().numpy().ravel(), t["values"], problems)
        after = step.get("running_after", [])
        if after:
            stats = [s for mod in m.model.modules() if isinstance(mod, torch.nn.modules.batchnorm._BatchNorm)
                     for s in np.stack([mod.running_mean.numpy(), mod.running_var.numpy()], axis=1).ravel()]
            check("batch norm's running statistics after the step", stats, after, problems)
    for p in problems:
        print("PROBLEM:", p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
