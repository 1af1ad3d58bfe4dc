#!/usr/bin/env python3
"""Checks a `lab export-torch` folder without PyTorch: reads model.safetensors with the
safetensors package, runs the layers of model_layers.json in NumPy on the first N images of a
lab image file (data/mnist-test.bin), and compares the class probabilities with what
`lab predict` printed for the same model (JSON on a file). Exits 1 on a difference over 1e-4.

    python3 scripts/check_torch_export.py DIR data/mnist-test.bin PREDICTIONS.json
"""
import json
import sys

import numpy as np
from safetensors.numpy import load_file


def images(path, count):
    raw = open(path, "rb").read()
    assert raw[:8] == b"LABIMG01", "not a lab image file"
    n, rows, cols = (int.from_bytes(raw[o:o + 4], "little") for o in (8, 12, 16))
    pixels = np.frombuffer(raw, dtype=np.uint8, offset=24 + n, count=n * rows * cols)
    return pixels.reshape(n, 1, rows, cols)[:count].astype(np.float32) / 255.0


def conv2d(x, w, b, stride, padding):
    n, c, h, wd = x.shape
    f, _, k, _ = w.shape
    x = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    oh, ow = (h + 2 * padding - k) // stride + 1, (wd + 2 * padding - k) // stride + 1
    out = np.zeros((n, f, oh, ow), dtype=np.float64)
    for i in range(k):
        for j in range(k):
            patch = x[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
            out += np.einsum("nchw,fc->nfhw", patch, w[:, :, i, j])
    return out + b[None, :, None, None]


def pool(x, kind, size, stride):
    n, c, h, w = x.shape
    oh, ow = (h - size) // stride + 1, (w - size) // stride + 1
    windows = np.stack([x[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride] for i in range(size) for j in range(size)])
    return windows.max(axis=0) if kind == "max" else windows.mean(axis=0)


ACTIVATIONS = {
    "linear": lambda x: x,
    "relu": lambda x: np.maximum(x, 0),
    "tanh": np.tanh,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "leaky_relu": lambda x: np.where(x > 0, x, 0.01 * x),
    "gelu": lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3))),
}


def forward(spec, weights, x):
    x = x.astype(np.float64)
    for i, layer in enumerate(spec["layers"]):
        t = layer["type"]
        if t == "dense":
            x = x.reshape(len(x), -1) @ weights[f"{i}.weight"].T + weights[f"{i}.bias"]
        elif t == "conv2d":
            x = conv2d(x, weights[f"{i}.weight"], weights[f"{i}.bias"], layer["stride"], layer["padding"])
        elif t == "pool":
            x = pool(x, layer["kind"], layer["size"], layer["stride"])
        elif t == "activation":
            x = ACTIVATIONS[layer["kind"]](x)
        elif t == "flatten":
            x = x.reshape(len(x), -1)
        elif t == "dropout":
            pass  # identity when predicting
        else:
            raise SystemExit(f"layer {i}: unknown type {t}")
    return x


def main():
    folder, data, predicted = sys.argv[1:4]
    spec = json.load(open(f"{folder}/model_layers.json"))
    weights = load_file(f"{folder}/model.safetensors")
    lab = json.load(open(predicted))
    want = np.array(lab["probabilities"], dtype=np.float64)
    logits = forward(spec, weights, images(data, len(want)))
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs = e / e.sum(axis=1, keepdims=True)
    gap = np.abs(probs - want).max()
    print(f"{len(want)} images, {len(weights)} tensors: largest difference from lab predict {gap:.2e}")
    sys.exit(0 if gap <= 1e-4 else 1)


if __name__ == "__main__":
    main()
