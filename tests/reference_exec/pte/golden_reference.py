#!/usr/bin/env python3
"""Writes the expected outputs of the golden .pte cases whose source is
"numpy" (golden/README.md "pte"): each case's corpus program run by the
NumPy interpreter of pte_numpy.py on the case's inputs, saved as
OUT/pte/<case>/output_<i>.npy for `accelcheck golden --reference-dir OUT`.

The inputs are resolved from the case as the runner resolves them
({"values": ...} and {"generate": ...}, tests/support/golden_arrays.py).
Usage: golden_reference.py ACCELCHECK GOLDEN_DIR CORPUS_DIR OUT. Exit 77
(skipped) without NumPy or the corpus, 1 when a case cannot be computed.
"""
import os
import sys

try:
    import numpy as np
except ImportError:
    print("SKIP: python3-numpy is not installed")
    sys.exit(77)

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "support"))
from golden_arrays import resolve, write_cases  # noqa: E402
from pte_numpy import Program, run_plan  # noqa: E402

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
    return write_cases(golden, "pte", out,
                       lambda case_dir, case: write_case(accelcheck, case_dir, case, corpus, out),
                       "outputs")


if __name__ == "__main__":
    sys.exit(main())
