"""The input arrays of golden cases as the runner resolves them
(golden/README.md "Arrays"), and the loop over a format's cases, for the
test scripts that compute expected outputs outside the tool
(tests/reference_exec/*/golden_reference.py).

{"values": ...} is written out in the case; {"generate": ...} draws uniform
values from SplitMix64. SplitMix64's state after k draws is seed + k * gamma
(mod 2^64), so the draws of a whole array are computed at once with wrapping
uint64 arithmetic: the same numbers as a draw-by-draw loop, fast enough for
the multi-megabyte inputs of real files.
"""
import json
import math
import os
import shutil

import numpy as np

NUMPY_DTYPES = {"bool": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32,
                "int64": np.int64, "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32,
                "uint64": np.uint64, "float16": np.float16, "float32": np.float32,
                "float64": np.float64}

GAMMA = 0x9E3779B97F4A7C15


def splitmix64(seed, count):
    """The first `count` SplitMix64 outputs for `seed`, as uint64."""
    with np.errstate(over="ignore"):
        k = np.arange(1, count + 1, dtype=np.uint64)
        z = np.uint64(seed & ((1 << 64) - 1)) + k * np.uint64(GAMMA)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def generate(spec):
    """golden/README.md "Arrays": a float is L + (H - L) * (draw >> 11) / 2^53
    in float64, an integer ceil(L) + draw mod (floor(H) - ceil(L) + 1); either
    is then converted to the dtype."""
    dtype = NUMPY_DTYPES[spec["dtype"]]
    count = math.prod(spec["shape"])
    low, high = float(spec["low"]), float(spec["high"])
    draws = splitmix64(spec["seed"], count)
    if np.issubdtype(dtype, np.floating):
        unit = (draws >> np.uint64(11)).astype(np.float64) * 2.0 ** -53  # exact
        values = low + (high - low) * unit
    else:
        first, span = math.ceil(low), math.floor(high) - math.ceil(low) + 1
        if span < 1:
            values = np.full(count, first, dtype=np.float64)
        elif span < 2 ** 53 and abs(first) < 2 ** 53:
            values = first + (draws % np.uint64(span)).astype(np.float64)  # exact
        else:  # keep wide ranges exact in Python integers
            values = np.array([first + int(d) % span for d in draws], dtype=object)
    return values.astype(dtype).reshape(spec["shape"])


def resolve(spec):
    """A case's input ARRAY: {"values": ...} or {"generate": ...}."""
    if "values" in spec:
        v = spec["values"]
        return np.array(v["data"], dtype=NUMPY_DTYPES[v["dtype"]]).reshape(v["shape"])
    if "generate" in spec:
        return generate(spec["generate"])
    raise ValueError(f"an input this script does not resolve: {json.dumps(spec)}")


def write_cases(golden, fmt, out, write_case, what):
    """Calls write_case(case_dir, case) for every case of golden/<fmt> whose
    source is "numpy" and whose model is a corpus file, into OUT/<fmt>/<case>
    (emptied first); prints a line a case, and returns the exit code: 1 when
    a case failed, which does not stop the others."""
    shutil.rmtree(os.path.join(out, fmt), ignore_errors=True)
    failures = 0
    root = os.path.join(golden, fmt)
    for name in sorted(os.listdir(root)):
        with open(os.path.join(root, name, "case.json")) as f:
            case = json.load(f)
        if case["source"] != "numpy" or "corpus" not in case["model"]:
            continue
        try:
            count = write_case(os.path.join(out, fmt, name), case)
            print(f"ok {fmt}/{name}: {count} {what}")
        except Exception as e:  # one case's failure must not hide the others
            print(f"FAIL {fmt}/{name}: {type(e).__name__}: {e}")
            failures += 1
    return 1 if failures else 0
