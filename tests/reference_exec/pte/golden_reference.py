#!/usr/bin/env python3
"""Writes the expected outputs of the golden .pte cases whose source is
"numpy" (golden/README.md "pte"): each case's corpus program run by the
NumPy interpreter of pte_numpy.py on the case's inputs, saved as
OUT/pte/<case>/output_<i>.npy for `accelcheck golden --reference-dir OUT`.

The inputs are resolved from the case as the runner resolves them
({"values": ...} and {"generate": ...}, SplitMix64 re-implemented here).
Usage: golden_reference.py ACCELCHECK GOLDEN_DIR CORPUS_DIR OUT. Exit 77
(skipped) without NumPy or the corpus, 1 when a case cannot be computed.
"""
import json
import math
import os
import shutil
import sys

try:
    import numpy as np
except ImportError:
    print("SKIP: python3-numpy is not installed")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pte_numpy import Program, run_plan  # noqa: E402

MASK = (1 << 64) - 1
NUMPY_DTYPES = {"bool": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32,
                "int64": np.int64, "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32,
                "uint64": np.uint64, "float16": np.float16, "float32": np.float32,
                "float64": np.float64}


def splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def generate(spec):
    """golden/README.md "Arrays": uniform values from SplitMix64."""
    dtype = NUMPY_DTYPES[spec["dtype"]]
    count = math.prod(spec["shape"])
    low, high = float(spec["low"]), float(spec["high"])
    floating = np.issubdtype(dtype, np.floating)
    state, values = spec["seed"], []
    for _ in range(count):
        state, draw = splitmix64(state)
        if floating:
            values.append(low + (high - low) * math.ldexp(draw >> 11, -53))
        else:
            span = math.floor(high) - math.ceil(low) + 1
            values.append(math.ceil(low) + (draw % span if span >= 1 else 0))
    return np.array(values, dtype=np.float64).astype(dtype).reshape(spec["shape"])


def resolve(spec):
    if "values" in spec:
        v = spec["values"]
        return np.array(v["data"], dtype=NUMPY_DTYPES[v["dtype"]]).reshape(v["shape"])
    if "generate" in spec:
        return generate(spec["generate"])
    raise ValueError(f"an input this script does not resolve: {json.dumps(spec)}")


def as_array(value):
    """An output as the executor gives it: scalars as 0-d arrays, a string as
    its bytes."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, bool):
        return np.array(value, dtype=np.bool_)
    if isinstance(value, int):
        return np.array(value, dtype=np.int64)
    if isinstance(value, float):
        return np.array(value, dtype=np.float64)
    if isinstance(value, str):
        return np.frombuffer(value.encode(), dtype=np.uint8)
    raise ValueError(f"output {value!r} is no array")


def write_case(accelcheck, case_dir, case, corpus, out):
    model = case["model"]
    files = [os.path.join(corpus, model["corpus"])]
    files += [os.path.join(corpus, c) for c in case.get("companions", [])]
    program = Program(accelcheck, files[0], files[1] if len(files) > 1 else None)
    plans = program.doc["program"]["execution_plan"]
    method = model.get("method", plans[0]["name"])
    plan = next(p for p in plans if p["name"] == method)
    inputs = [resolve(case["inputs"][f"input_{k}"]) for k in range(len(plan["inputs"]))]
    outputs = run_plan(program, plan, inputs)
    os.makedirs(case_dir, exist_ok=True)
    for k, value in enumerate(outputs):
        np.save(os.path.join(case_dir, f"output_{k}.npy"), as_array(value))
    return len(outputs)


def main():
    accelcheck, golden, corpus, out = sys.argv[1:5]
    if not os.path.isdir(corpus):
        print(f"SKIP: no corpus at {corpus}")
        return 77
    shutil.rmtree(os.path.join(out, "pte"), ignore_errors=True)
    failures = 0
    root = os.path.join(golden, "pte")
    for name in sorted(os.listdir(root)):
        with open(os.path.join(root, name, "case.json")) as f:
            case = json.load(f)
        if case["source"] != "numpy" or "corpus" not in case["model"]:
            continue
        try:
            count = write_case(accelcheck, os.path.join(out, "pte", name), case, corpus, out)
            print(f"ok pte/{name}: {count} outputs")
        except Exception as e:  # one case's failure must not hide the others
            print(f"FAIL pte/{name}: {type(e).__name__}: {e}")
            failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
