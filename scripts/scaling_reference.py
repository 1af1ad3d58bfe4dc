"""The two loss-scaling recipes of the precision lab, recomputed with NumPy and ml_dtypes from
the gradients a run computed (read on stdin as JSON), for sims/tests/scaling_reference.rs:

- "delayed" (Micikevicius et al. 2022; Transformer Engine's DelayedScaling): per step, each
  tensor's unscaled values; its scale is 2^k, k the largest integer with amax * 2^k <= the
  format's largest, amax the largest |value| over the tensor's last `history` steps before this
  one, less `margin` (2^0 before any history). Stored: values * 2^k saturated at the largest,
  cast to the format, divided by 2^k. Prints each step's exponents and stored values (bits).
- "global" (PyTorch's GradScaler): per step, the gradients already times the step's scale (as
  backward computed them from the scaled loss); stored by a saturating cast; the step overflows when a stored value is non-finite or at the format's
  largest magnitude; the scale halves on overflow and doubles after `interval` steps without.
  Prints each step's scale and whether it overflowed.
"""
import json
import math
import sys

import ml_dtypes
import numpy as np

FORMATS = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}


def largest(name):
    return float(ml_dtypes.finfo(FORMATS[name]).max)


def saturating_cast(x, name):
    top = np.float32(largest(name))
    with np.errstate(over="ignore", invalid="ignore"):
        clipped = np.where(np.isnan(x), x, np.clip(x, -top, top)).astype(np.float32)
        return clipped.astype(FORMATS[name]).astype(np.float32)


def exponent(amax, top, margin):
    # The largest k with amax * 2^k <= top, by exact doubling and halving of Python floats.
    k = math.floor(math.log2(top / amax))
    while amax * 2.0**k > top:
        k -= 1
    while amax * 2.0 ** (k + 1) <= top:
        k += 1
    return max(-64, min(64, k - margin))


def delayed(job):
    history = [[] for _ in job["steps"][0]]
    exponents = [0] * len(history)
    out = []
    for step in job["steps"]:
        stored, used = [], list(exponents)
        for i, bits in enumerate(step):
            x = np.array(bits, dtype=np.uint32).view(np.float32)
            k = used[i]
            r = (saturating_cast(x * np.float32(2.0**k), job["format"]) * np.float32(2.0**-k)).astype(np.float32)
            stored.append([int(b) for b in r.view(np.uint32)])
            amax = float(np.max(np.abs(x)))
            if math.isfinite(amax) and amax > 0:
                history[i] = (history[i] + [amax])[-job["history"]:]
                exponents[i] = exponent(max(history[i]), largest(job["format"]), job["margin"])
        out.append({"exponents": used, "stored": stored})
    return out


def global_scale(job):
    scale, good, out = job["initial"], 0, []
    top = largest(job["format"])
    for bits in job["steps"]:
        g = np.array(bits, dtype=np.uint32).view(np.float32)
        stored = saturating_cast(g, job["format"])
        overflow = bool(np.any(~np.isfinite(stored)) or np.any(np.abs(stored) >= top))
        out.append({"scale": scale, "overflow": overflow})
        if overflow:
            scale, good = scale / 2, 0
        else:
            good += 1
            if good >= job["interval"]:
                scale, good = scale * 2, 0
    return out


job = json.load(sys.stdin)
json.dump(delayed(job) if job["mode"] == "delayed" else global_scale(job), sys.stdout)
