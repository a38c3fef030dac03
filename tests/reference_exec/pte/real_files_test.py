#!/usr/bin/env python3
"""The real .pte files the executor cannot run: each is refused with the
reason docs/formats/pte.md "Reference executor" gives, never run halfway.
(The files it runs are golden cases: golden/pte/, against pte_numpy.py.)

Usage: real_files_test.py ACCELCHECK CORPUS_DIR WORK_DIR. Exit 77 (skipped)
without the corpus or NumPy.
"""
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("SKIP: python3-numpy is not installed")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pte_numpy import DTYPES, inspect  # noqa: E402

# The file, the exit code (1 unsupported, 3 a limit) and what the message
# must name.
REFUSED = [
    ("executorch__arduino_KeywordSpotting.pte", 1, "cortex_m::quantize_per_tensor.out"),
    ("cmsis-executorch__ethos_u_minimal_example.pte", 1, "EthosUBackend"),
    ("djl__openvino_tiny.pte", 1, "OpenvinoBackend"),
    ("executorch__stories260k_hybrid_llama_qnn.pte", 1, "QnnBackend"),
    ("numpy-runtime__dynamic.pte", 1, "XnnpackBackend"),
    ("numpy-runtime__quantized.pte", 1, "XnnpackBackend"),
    ("numpy-runtime__lstm.pte", 1, "etnp::lstm.out"),
    ("djl__med_output.pte", 3, "core.limit.max-tensor-bytes"),
    # Its bounds ask for 17 GiB of separate tensors and a 2.2 GiB arena.
    ("bimapp__proposed_model_full.pte", 3, "core.limit.max-tensor-bytes"),
]


def main():
    accelcheck, corpus, work = sys.argv[1:4]
    if not os.path.isdir(corpus):
        print(f"SKIP: no corpus at {corpus}")
        return 77
    os.makedirs(work, exist_ok=True)
    failures = 0
    for name, code, reason in REFUSED:
        path = os.path.join(corpus, name)
        plan = inspect(accelcheck, path)["program"]["execution_plan"][0]
        cmd = [accelcheck, "run", path, "--method", plan["name"], "-q"]
        for k, i in enumerate(plan["inputs"]):
            t = plan["values"][i]["val"]
            if t["scalar_type"] not in DTYPES:
                cmd = None
                break
            f = os.path.join(work, f"{name}.in{k}.npy")
            np.save(f, np.zeros(t["sizes"], DTYPES[t["scalar_type"]]))
            cmd += ["--input", f]
        if cmd is None:
            # An input of a dtype .npy cannot carry here (UINT16): the run
            # is refused as a usage error before it starts.
            print(f"ok {name}: an input dtype the executor does not take")
            continue
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != code or reason not in run.stderr:
            print(f"FAIL {name}: exit {run.returncode}, expected {code} naming {reason}: "
                  f"{run.stderr.strip()}")
            failures += 1
        else:
            print(f"ok {name}: refused, naming {reason}")
    print(f"{len(REFUSED)} files checked, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
