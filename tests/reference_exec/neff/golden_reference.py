#!/usr/bin/env python3
"""Writes the expected outputs of the golden NEFF cases whose source is
"numpy" (golden/README.md "neff"): each case's corpus file run by the
NumPy DMA executor of neff_numpy.py on the case's inputs, every expected
{"reference": FILE} saved as OUT/neff/<case>/FILE for
`accelcheck golden --reference-dir OUT`.

The real files cannot be copied into the project, so their expected outputs
are computed here at test time, by an implementation written from
docs/formats/neff.md independently of the tool's executor. The inputs are
resolved as the runner resolves them (tests/support/golden_arrays.py).
The worked examples of docs/formats/neff.md §7.5 are checked first.
Usage: golden_reference.py ACCELCHECK GOLDEN_DIR CORPUS_DIR OUT (ACCELCHECK
is not used: the script reads the files itself). Exit 77 (skipped) without
NumPy or the corpus, 1 when a case cannot be computed.
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
import neff_numpy  # noqa: E402


def write_case(case_dir, case, corpus):
    """Runs one case and saves each expected {"reference": FILE} by its name."""
    with open(os.path.join(corpus, case["model"]["corpus"]), "rb") as f:
        data = f.read()
    inputs = {name: resolve(spec) for name, spec in case.get("inputs", {}).items()}
    outputs = neff_numpy.run(data, inputs)
    references = {name: spec["reference"] for name, spec in case["expected"].items()
                  if isinstance(spec, dict) and "reference" in spec}
    missing = sorted(set(references) - set(outputs))
    if missing:
        raise ValueError(f"the run gives no output named {', '.join(missing)}")
    os.makedirs(case_dir, exist_ok=True)
    for name, file in references.items():
        np.save(os.path.join(case_dir, file), outputs[name])
    return len(references)


def main():
    _, golden, corpus, out = sys.argv[1:5]
    root = os.path.join(corpus, "neff")
    if not os.path.isdir(root):
        print(f"SKIP: no NEFF corpus at {root}")
        return 77
    try:
        neff_numpy.check_worked_examples()
    except AssertionError as e:
        print(f"FAIL neff_numpy disagrees with a worked example of docs/formats/neff.md §7.5: {e}")
        return 1
    return write_cases(golden, "neff", out, lambda case_dir, case: write_case(case_dir, case, corpus),
                       "arrays")


if __name__ == "__main__":
    sys.exit(main())
