"""An independent NumPy interpreter of .pte execution plans: what the golden
cases on real files and the executor's real-file test compare against.

It reads the graph, the constants' places and the named data from
`accelcheck inspect` JSON and the weight bytes from the files, and computes
each operator with NumPy's own semantics (docs/formats/pte.md §7), sharing
no code with the executor under test.
"""
import json
import struct
import subprocess

import numpy as np

DTYPES = {0: np.uint8, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.int64,
          6: np.float32, 7: np.float64, 11: np.bool_}


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
