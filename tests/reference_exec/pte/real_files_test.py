#!/usr/bin/env python3
"""Real non-delegated .pte files run by `accelcheck run`, checked against an
independent NumPy interpreter of the same graph.

The interpreter reads the graph, the constants' places and the named data
from `accelcheck inspect` JSON and the weight bytes from the files, and
computes each operator with NumPy's own semantics (docs/formats/pte.md §7).
Usage: real_files_test.py ACCELCHECK CORPUS_DIR WORK_DIR. Exit 77 (skipped)
without the corpus or NumPy.
"""
import json
import os
import struct
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("SKIP: python3-numpy is not installed")
    sys.exit(77)

DTYPES = {0: np.uint8, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.int64,
          6: np.float32, 7: np.float64, 11: np.bool_}

# (file, named data, methods); every file here uses only operators the
# executor runs and no delegate.
CASES = [
    ("executorch__apple_add.pte", None, None),
    ("executorch__ModuleLinear-no-constant-segment.pte", None, None),
    ("executorch__module_linear.pte", "executorch__module_linear.ptd", None),
    ("executorch__2023_module_model.pte", None, None),
    ("executorch-rs__data_map_model.pte", "executorch-rs__data_map__default_external_constant.ptd", None),
    ("dnf__dnf_executorch_ecg.pte", None, None),
    ("numpy-runtime__const_methods.pte", None, None),
]

# The real files the executor cannot run, and what it must name as the
# reason (docs/formats/pte.md "Reference executor"): exit 1 (unsupported) or
# 3 (a limit).
REFUSED = [
    ("executorch__arduino_KeywordSpotting.pte", 1, "cortex_m::quantize_per_tensor.out"),
    ("cmsis-executorch__ethos_u_minimal_example.pte", 1, "EthosUBackend"),
    ("djl__openvino_tiny.pte", 1, "OpenvinoBackend"),
    ("executorch__stories260k_hybrid_llama_qnn.pte", 1, "QnnBackend"),
    ("numpy-runtime__dynamic.pte", 1, "XnnpackBackend"),
    ("numpy-runtime__quantized.pte", 1, "XnnpackBackend"),
    ("numpy-runtime__lstm.pte", 1, "etnp::lstm.out"),
    ("djl__med_output.pte", 3, "core.limit.max-tensor-bytes"),
]


def inspect(accelcheck, path):
    out = subprocess.run([accelcheck, "inspect", path], check=True, capture_output=True).stdout
    return json.loads(out)


def table_vector(data, table, field):
    """The bytes of vector field `field` of the flatbuffer table at `table`."""
    vtable = table - struct.unpack_from("<i", data, table)[0]
    vsize = struct.unpack_from("<H", data, vtable)[0]
    if 4 + 2 * field >= vsize:
        return b""
    slot = struct.unpack_from("<H", data, vtable + 4 + 2 * field)[0]
    if slot == 0:
        return b""
    at = table + slot
    vec = at + struct.unpack_from("<I", data, at)[0]
    n = struct.unpack_from("<I", data, vec)[0]
    return data[vec + 4:vec + 4 + n]


class NamedData:
    def __init__(self, accelcheck, path):
        self.entries = {}
        if path is None:
            return
        data = open(path, "rb").read()
        doc = inspect(accelcheck, path)
        base = doc["header"]["segment_base_offset"]
        flat = doc["flat_tensor"]
        segments = flat["segments"]
        if "named_data" in flat:
            for entry in flat["named_data"]:
                seg = segments[entry["segment_index"]]
                start = base + seg["offset"]
                self.entries[entry["key"]] = data[start:start + seg["size"]]
        else:  # the layout before 2025-06: tensors at offsets within segments
            for t in flat["tensors"]:
                seg = segments[t["segment_index"]]
                start = base + seg["offset"] + t["offset"]
                self.entries[t["fully_qualified_name"]] = data[start:base + seg["offset"] + seg["size"]]


class Program:
    def __init__(self, accelcheck, path, ptd):
        self.data = open(path, "rb").read()
        self.doc = inspect(accelcheck, path)
        self.named = NamedData(accelcheck, ptd)
        header = self.doc["header"]
        self.base = header.get("segment_base_offset", 0) if header.get("extended_header") else 0

    def segment(self, index, offset):
        seg = self.doc["program"]["segments"][index]
        start = self.base + seg["offset"] + offset
        return self.data[start:self.base + seg["offset"] + seg["size"]]

    def initial(self, t):
        """The bytes a tensor starts with, or None (docs/formats/pte.md §2.5)."""
        p = self.doc["program"]
        idx = t["data_buffer_idx"]
        extra = t.get("extra_tensor_info")
        if extra and extra.get("location") == 1 and not t.get("allocation_info"):
            return self.named.entries[extra["fully_qualified_name"]]
        if idx == 0:
            return None
        if t.get("allocation_info"):
            sub = p["mutable_data_segments"][0]
            return self.segment(sub["segment_index"], sub["offsets"][idx])
        cs = p.get("constant_segment")
        if cs and len(cs["offsets"]) > 1:
            return self.segment(cs["segment_index"], cs["offsets"][idx])
        return table_vector(self.data, p["constant_buffer"][idx]["@offset"], 0)


def tensor_of(t, raw):
    dtype = DTYPES[t["scalar_type"]]
    shape = tuple(t["sizes"])
    n = int(np.prod(shape, dtype=np.int64))
    if raw is None:
        return np.zeros(shape, dtype)
    return np.frombuffer(raw[:n * np.dtype(dtype).itemsize], dtype).reshape(shape).copy()


def run_plan(program, plan, inputs):
    values = []
    for v in plan["values"]:
        kind, val = v["type"], v.get("val")
        if kind == "Tensor":
            values.append(tensor_of(val, program.initial(val)))
        elif kind == "IntList":
            values.append(("intlist", val["items"] if isinstance(val, dict) else val))
        elif kind in ("Int", "Double", "Bool", "String"):
            values.append(val)
        else:
            values.append(None)
    for i, x in zip(plan["inputs"], inputs):
        values[i] = x
    ops = plan["operators"]
    for chain in plan["chains"]:
        for ins in chain["instructions"]:
            op = ops[ins["op_index"]]
            name = op["name"] + ("." + op["overload"] if op["overload"] else "")
            args = ins["args"]
            a = [values[k] for k in args]
            out_index = args[-1]
            values[out_index] = apply(name, a, values)
    return [values[i] for i in plan["outputs"]]


def ints(arg, values):
    return [values[k] for k in arg[1]] if isinstance(arg, tuple) else None


def apply(name, a, values):
    out = a[-1]
    cast = lambda r: np.asarray(r).astype(out.dtype).reshape(np.asarray(r).shape)
    if name == "aten::add.out":
        return cast(a[0] + a[2] * a[1])
    if name == "aten::sub.out":
        return cast(a[0] - a[2] * a[1])
    if name == "aten::mul.out":
        return cast(a[0] * a[1])
    if name == "aten::mul.Scalar_out":
        return cast(a[0] * np.float32(a[1]))
    if name == "aten::mm.out":
        return cast(a[0] @ a[1])
    if name == "aten::addmm.out":
        return cast(a[3] * a[0] + a[4] * (a[1] @ a[2]))
    if name == "aten::permute_copy.out":
        return np.transpose(a[0], ints(a[1], values)).copy()
    if name == "aten::view_copy.out":
        return a[0].reshape(ints(a[1], values)).copy()
    if name == "aten::expand_copy.out":
        size = ints(a[1], values)
        lead = len(size) - a[0].ndim
        size = [a[0].shape[d - lead] if s == -1 else s for d, s in enumerate(size)]
        return np.broadcast_to(a[0], size).copy()
    if name in ("aten::alias_copy.out", "aten::clone.out"):
        return a[0].copy()
    if name == "aten::tanh.out":
        return cast(np.tanh(a[0]))
    if name == "aten::neg.out":
        return cast(-a[0])
    if name == "aten::pow.Tensor_Scalar_out":
        return cast(a[0] ** a[1])
    if name == "aten::full_like.out":
        return np.full(a[0].shape, a[1], out.dtype)
    if name in ("aten::sum.IntList_out", "aten::mean.out"):
        dims = ints(a[1], values)
        axis = tuple(dims) if dims else None
        f = np.sum if name == "aten::sum.IntList_out" else np.mean
        return cast(f(a[0].astype(np.float64), axis=axis, keepdims=a[2]))
    if name == "aten::eq.Scalar_out":
        return cast(a[0] == a[1])
    if name == "aten::where.self_out":
        return cast(np.where(a[0], a[1], a[2]))
    if name in ("dim_order_ops::_to_dim_order_copy.out", "dim_order_ops::_clone_dim_order.out"):
        return a[0].astype(out.dtype)
    raise NotImplementedError(name)


def main():
    accelcheck, corpus, work = sys.argv[1:4]
    if not os.path.isdir(corpus):
        print(f"SKIP: no corpus at {corpus}")
        return 77
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(20261125)
    failures = 0
    checked = 0
    for name, ptd, _ in CASES:
        path = os.path.join(corpus, name)
        ptd_path = os.path.join(corpus, ptd) if ptd else None
        program = Program(accelcheck, path, ptd_path)
        for plan in program.doc["program"]["execution_plan"]:
            inputs, cmd = [], [accelcheck, "run", path, "--method", plan["name"], "-q"]
            if ptd_path:
                cmd += ["--data", ptd_path]
            for k, i in enumerate(plan["inputs"]):
                t = plan["values"][i]["val"]
                x = rng.standard_normal(t["sizes"]).astype(DTYPES[t["scalar_type"]])
                f = os.path.join(work, f"{name}.{plan['name']}.in{k}.npy")
                np.save(f, x)
                inputs.append(x)
                cmd += ["--input", f]
            out_dir = os.path.join(work, f"{name}.{plan['name']}.out")
            cmd += ["--output-dir", out_dir]
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode != 0:
                print(f"FAIL {name} {plan['name']}: exit {run.returncode}: {run.stderr.strip()}")
                failures += 1
                continue
            summary = json.loads(run.stdout)
            expected = run_plan(program, plan, inputs)
            for k, want in enumerate(expected):
                got_entry = summary["outputs"][k]
                if "file" in got_entry:
                    got = np.load(got_entry["file"])
                    want = np.asarray(want)
                    ok = got.shape == want.shape and np.allclose(
                        got.astype(np.float64), want.astype(np.float64), rtol=1e-5, atol=1e-6)
                else:
                    got = got_entry.get("value")
                    ok = got == want or (isinstance(want, dict) and got == want.get("string_val"))
                checked += 1
                if not ok:
                    print(f"FAIL {name} {plan['name']} output {k}: got {got}, expected {want}")
                    failures += 1
            print(f"ok {name} {plan['name']}: {len(expected)} outputs")
    for name, code, reason in REFUSED:
        path = os.path.join(corpus, name)
        program = Program(accelcheck, path, None)
        plan = program.doc["program"]["execution_plan"][0]
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
            print(f"FAIL {name}: exit {run.returncode}, expected {code} naming {reason}: {run.stderr.strip()}")
            failures += 1
        else:
            print(f"ok {name}: refused, naming {reason}")
    print(f"{checked} outputs checked, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
