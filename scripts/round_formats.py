"""Rounds float32 values to the lab's reduced formats with an independent implementation:
NumPy's float16 and ml_dtypes' bfloat16, float8_e4m3fn and float8_e5m2 (round to nearest, ties
to even). Reads a JSON list of float32 bit patterns on stdin; prints, per format, the rounded
values as float32 bit patterns (null where the format has no value: E4M3 past its range).
Run by state/tests/fidelity.rs with tools/pyenv's Python."""
import json
import sys

import ml_dtypes
import numpy as np

bits = np.array(json.load(sys.stdin), dtype=np.uint32)
x = bits.view(np.float32)
formats = {
    "fp16": np.float16,
    "bf16": ml_dtypes.bfloat16,
    "e4m3": ml_dtypes.float8_e4m3fn,
    "e5m2": ml_dtypes.float8_e5m2,
}
out = {}
for name, dtype in formats.items():
    with np.errstate(over="ignore", invalid="ignore"):
        r = x.astype(dtype).astype(np.float32)
    out[name] = [None if np.isnan(v) else int(b) for v, b in zip(r, r.view(np.uint32))]
json.dump(out, sys.stdout)
