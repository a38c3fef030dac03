"""A second, independent DMA executor for NEFF files, written from
docs/formats/neff.md alone, whose results the golden cases on real files
compare with accelcheck's executor (golden/README.md "neff", mode dma-state).

It reads the container (§1), resolves the member tree through its references
(§2.1), runs every DMA block of the one subgraph that has any, in the order
the engine programs trigger them (§3.2, §7.2), over NumPy byte buffers laid
out as §7.1 says, and returns every output variable's bytes and the state
buffer. Anything the notes leave open, or that the real files never do, is
refused with NotModelled rather than guessed.
"""
import gzip
import io
import json
import math
import struct
import tarfile

import numpy as np

HEADER_BYTES = 1024                          # §1.2
ENGINES = ("pe", "act", "pool", "dve", "sp")  # §2.6, and the run order of §7.2
PARTITIONS = 128                             # §2.13
PARTITION_STRIDE = 1 << 18                   # a state-buffer address is p << 18 | byte
PARTITION_BYTES = {"sunda": 196608, "cayman": 229376}  # §2.13, §7.1
SLOT_BYTES = 64                              # §3.1
PSEUDO_DMA_TRIGGER = 0xC1                    # §3.2
VARIABLE_TYPES = ("state-buffer", "input", "output", "file", "tmp-buf", "virtual",
                  "pointer", "dge-table")     # §2.7

# §2.12: element sizes by name. No source gives the encodings of the float8
# formats and float32r, so they can be copied but not cast (§7.4).
DTYPE_BYTES = {"float8e3": 1, "float8e4": 1, "float8e5": 1, "float16": 2, "bfloat16": 2,
               "float32": 4, "float32r": 4, "uint8": 1, "int8": 1, "uint16": 2, "int16": 2,
               "uint32": 4, "int32": 4, "uint64": 8, "int64": 8}
NUMPY_ELEMENT = {"float16": "<f2", "float32": "<f4", "uint8": "u1", "int8": "i1",
                 "uint16": "<u2", "int16": "<i2", "uint32": "<u4", "int32": "<i4",
                 "uint64": "<u8", "int64": "<i8"}


class NotModelled(Exception):
    """Something the format notes do not define, or this executor does not do."""


# --- §1: the container -------------------------------------------------------

def read_members(data):
    """§1: header, payload (gzip or plain tar, by its magic, §1.4), and the
    archive as the loader keeps it (§1.6): directories skipped, one leading
    "./" stripped, *wavegraph-bin.json dropped, a later name replacing an
    earlier one. Everything stays in memory."""
    if len(data) < HEADER_BYTES:
        raise NotModelled("shorter than the 1024-byte header (NEFF-1)")
    header_size, data_size = struct.unpack_from("<QQ", data, 8)
    if header_size != HEADER_BYTES:
        raise NotModelled(f"header_size {header_size}, not 1024 (NEFF-2)")
    if HEADER_BYTES + data_size > len(data):
        raise NotModelled(f"data_size {data_size} runs past the end of the file (NEFF-4)")
    payload = data[HEADER_BYTES:HEADER_BYTES + data_size]
    if payload[:3] == b"\x1f\x8b\x08":
        # GzipFile checks the CRC-32 and length trailer and skips the zero padding.
        payload = gzip.GzipFile(fileobj=io.BytesIO(payload)).read()
    members = {}
    with tarfile.open(fileobj=io.BytesIO(payload), mode="r:") as tar:
        for entry in tar.getmembers():
            if entry.isdir():
                continue
            if not entry.isfile():
                raise NotModelled(f"tar entry {entry.name!r} is no regular file (NEFF-17)")
            name = entry.name[2:] if entry.name.startswith("./") else entry.name
            if name.endswith("wavegraph-bin.json"):
                continue
            members[name] = tar.extractfile(entry).read()
    return members


def npy_data(blob, where):
    """§2.14: an .npy constant contributes its array data, C order, as stored."""
    stream = io.BytesIO(blob)
    version = np.lib.format.read_magic(stream)
    read_header = {(1, 0): np.lib.format.read_array_header_1_0,
                   (2, 0): np.lib.format.read_array_header_2_0}.get(version)
    if read_header is None:
        raise NotModelled(f"{where}: .npy version {version}")
    shape, fortran, dtype = read_header(stream)
    if fortran and len(shape) > 1:
        raise NotModelled(f"{where}: a Fortran-order .npy")
    if dtype.byteorder == ">" or dtype.hasobject:
        raise NotModelled(f"{where}: .npy dtype {dtype}")
    return blob[stream.tell():]


# --- §2: the member tree -----------------------------------------------------

class Neff:
    """The parts of a NEFF the DMA executor uses, every name resolved through
    the references of §2.1, never assumed."""

    def __init__(self, data):
        self.members = read_members(data)
        graph = self.json("neff.json")
        kelfs = {node["attrs"]["kelf"] for node in graph["nodes"] if node.get("op") == "tvm_op"
                 and node.get("attrs", {}).get("func_name") == "__kelf"}
        if len(kelfs) != 1:
            raise NotModelled(f"neff.json names {len(kelfs)} kelf files (NEFF-21, NEFF-22)")
        kelf = self.json(kelfs.pop())
        self.target = kelf["target"]
        if self.target not in PARTITION_BYTES:
            raise NotModelled(f"target {self.target!r}: no partition size known (§2.13)")
        subgraphs = [Subgraph(self, g["name"], self.json(g["definition"])) for g in kelf["graphs"]]
        with_dma = [sg for sg in subgraphs if any(sg.engines[e]["dma"] for e in ENGINES)]
        if len(with_dma) > 1:
            raise NotModelled("more than one subgraph has DMA blocks (§7.1, NEFF-56)")
        self.subgraph = with_dma[0] if with_dma else subgraphs[0]

    def json(self, name):
        if name not in self.members:
            raise NotModelled(f"member {name} is missing")
        return json.loads(self.members[name])


class Subgraph:
    """A subgraph: def.json (§2.6), each engine's JSON (§2.10) and program (§3).
    A missing engine is the loader's empty placeholder (§2.6)."""

    def __init__(self, neff, name, definition):
        self.neff, self.name, self.definition = neff, name, definition
        self.engines, self.programs = {}, {}
        for e in ENGINES:
            doc = definition.get(e)
            self.engines[e] = neff.json(self.member(doc)) if self.member(doc) in neff.members \
                else {"dma": []}
            instr = definition.get(f"{e}_instr")
            self.programs[e] = neff.members.get(self.member(instr), b"")

    def member(self, name):
        return f"{self.name}/{name}" if name else ""

    def schedule(self):
        """§7.2: engines in the order pe, act, pool, dve, sp; within one, the
        blocks its 0xC1 slots trigger, in program order (§3.2). Yields
        (engine, block)."""
        for e in ENGINES:
            blocks = self.engines[e]["dma"]
            for block in blocks:
                for key in ("instance_name", "function_start"):
                    if key in block:
                        raise NotModelled(f"{e}: a block with {key} (§2.10)")
            triggered = set()
            for queue, block_id in triggers(self.programs[e], e):
                found = [k for k, b in enumerate(blocks)
                         if b.get("queue") == queue and b["id"] == block_id]
                if len(found) != 1:
                    raise NotModelled(f"{e}: trigger ({queue}, {block_id}) names "
                                      f"{len(found)} blocks (NEFF-41, NEFF-47)")
                if found[0] in triggered:
                    raise NotModelled(f"{e}: block ({queue}, {block_id}) triggered twice (NEFF-48)")
                triggered.add(found[0])
                yield e, blocks[found[0]]
            if len(triggered) != len(blocks):
                raise NotModelled(f"{e}: {len(blocks) - len(triggered)} blocks are never "
                                  "triggered (NEFF-41)")


def triggers(program, engine):
    """§3.2: each 0xC1 slot's queue name (+0x0C, 32 bytes, NUL-terminated)
    and block id (u32 at +0x30)."""
    if len(program) % SLOT_BYTES:
        raise NotModelled(f"{engine}: program of {len(program)} bytes, not 64-byte slots (NEFF-40)")
    for at in range(0, len(program), SLOT_BYTES):
        slot = program[at:at + SLOT_BYTES]
        if slot[0] != PSEUDO_DMA_TRIGGER:
            continue
        use_raw_count, block_id = struct.unpack_from("<II", slot, 0x2C)
        if use_raw_count:
            raise NotModelled(f"{engine}: trigger slot at {at} with use_raw_count {use_raw_count}")
        yield slot[0x0C:0x2C].split(b"\0", 1)[0].decode("ascii"), block_id


# --- §7.1: memory -------------------------------------------------------------

class Memory:
    """§7.1: each variable a byte buffer; virtual variables windows onto one
    scratchpad; the state buffer 128 partitions of the target's size, where
    address a is partition a >> 18, byte a & 0x3FFFF."""

    def __init__(self, target, variables, reservations, inputs, constants):
        self.partition_bytes = PARTITION_BYTES[target]
        self.variables = variables
        self.sb = np.zeros(PARTITIONS * self.partition_bytes, dtype=np.uint8)
        self.reserved = np.zeros(self.sb.size, dtype=bool)
        for r in reservations:  # §2.9: bytes that exist but no DMA may touch
            if r.get("type") != "evtaccel":
                raise NotModelled(f"state-buffer reservation of type {r.get('type')!r} (NEFF-31)")
            if r["offset"] + r["size"] > self.partition_bytes \
                    or r["base_partition"] + r["partitions"] > PARTITIONS:
                raise NotModelled(f"a reservation outside the state buffer: {r}")
            for p in range(r["base_partition"], r["base_partition"] + r["partitions"]):
                start = p * self.partition_bytes + r["offset"]
                self.reserved[start:start + r["size"]] = True
        virtual_end = max([v["backing_variable_off"] + v["size"] for v in variables.values()
                           if v["type"] == "virtual"], default=0)
        self.scratchpad = np.zeros(virtual_end, dtype=np.uint8)
        self.buffers = {}
        for name, v in variables.items():
            kind = v["type"]
            if kind not in VARIABLE_TYPES:
                raise NotModelled(f"variable {name} of type {kind!r} (NEFF-25)")
            if kind == "input":
                self.buffers[name] = sized(inputs.pop(name, None), v["size"], f"input {name}")
            elif kind == "file":
                self.buffers[name] = sized(constants[name], v["size"], f"file {name}")
            elif kind in ("output", "tmp-buf"):
                self.buffers[name] = np.zeros(v["size"], dtype=np.uint8)
        if inputs:
            raise NotModelled(f"inputs that are no input variable: {sorted(inputs)}")

    def locate(self, name, addresses, writing):
        """The flat indices of a side's byte addresses, and the array they index;
        every access is checked as NEFF-39 and NEFF-31 ask."""
        v = self.variables.get(name)
        if v is None:
            raise NotModelled(f"variable {name} is not declared (NEFF-35)")
        kind = v["type"]
        if writing and kind in ("input", "file"):
            raise NotModelled(f"a write into {kind} variable {name} (NEFF-53)")
        if kind == "state-buffer":
            partition, byte = addresses >> 18, addresses & (PARTITION_STRIDE - 1)
            if partition.max() >= PARTITIONS or byte.max() >= self.partition_bytes:
                raise NotModelled("an access outside the state buffer (NEFF-39)")
            flat = partition * self.partition_bytes + byte
            if self.reserved[flat].any():
                raise NotModelled("an access to a reserved state-buffer byte (NEFF-31)")
            return self.sb, flat
        if kind in ("pointer", "dge-table"):
            raise NotModelled(f"{kind} variable {name} holds device addresses (§7.1)")
        if addresses.max() >= v["size"]:
            raise NotModelled(f"an access past the end of {name} (NEFF-39)")
        if kind == "virtual":
            return self.scratchpad, addresses + v["backing_variable_off"]
        return self.buffers[name], addresses

    def read(self, name, addresses):
        array, flat = self.locate(name, addresses, writing=False)
        return array[flat]

    def write(self, name, addresses, data):
        array, flat = self.locate(name, addresses, writing=True)
        array[flat] = data


def sized(blob, size, what):
    if blob is None:
        raise NotModelled(f"{what}: no bytes given")
    data = np.frombuffer(bytes(blob), dtype=np.uint8).copy()
    if data.size != size:
        raise NotModelled(f"{what}: {data.size} bytes for a variable of {size}")
    return data


# --- §2.13, §7.3: access patterns -------------------------------------------

def addresses(off, sizes, steps, where):
    """§2.13: the byte addresses one side visits, dimension 0 fastest:
    off + b * steps[0] + sum(i[k] * steps[k]). §7.3 refuses what the executor
    does not model: steps[0] other than 1 and negative steps. A state-buffer
    step of 2^24 is 64 partitions, like any multiple of 2^18."""
    if not 1 <= len(sizes) <= 4 or len(sizes) != len(steps):
        raise NotModelled(f"{where}: sizes {sizes} and steps {steps} (NEFF-36)")
    if steps[0] != 1 or any(s < 0 for s in steps) or any(n < 1 for n in sizes) or off < 0:
        raise NotModelled(f"{where}: off {off}, sizes {sizes}, steps {steps} (§7.3)")
    result = np.array(off, dtype=np.int64)
    for k, (n, step) in enumerate(zip(sizes, steps)):
        axis = np.arange(n, dtype=np.int64) * step
        result = np.add.outer(axis, result) if k else result + axis  # slower axes go first
    return result.reshape(-1)


def side(desc, prefix):
    """One side of a descriptor (§2.11): its variable, byte addresses and dtype."""
    dtype = desc.get(f"{prefix}_dtype", "uint8")  # §2.11: absent means uint8
    if dtype not in DTYPE_BYTES:
        raise NotModelled(f"dtype {dtype!r} (§2.12)")
    sizes = desc[f"{prefix}_sizes"]
    if sizes[0] % DTYPE_BYTES[dtype]:
        raise NotModelled(f"{prefix}_sizes[0] {sizes[0]} is no whole number of {dtype} (NEFF-36)")
    where = f"{prefix} {desc[prefix]}"
    return desc[prefix], addresses(desc[f"{prefix}_off"], sizes, desc[f"{prefix}_steps"],
                                   where), dtype


# --- §7.4: operations ----------------------------------------------------------

def to_float64(raw, dtype):
    """A byte stream of `dtype` as exact float64 values (every value of the
    source types fits, but 64-bit integers beyond 2^53)."""
    if dtype == "bfloat16":  # the upper half of a float32
        return (raw.view("<u2").astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if dtype not in NUMPY_ELEMENT:
        raise NotModelled(f"a cast from {dtype}: no source gives its encoding (§7.4)")
    values = raw.view(NUMPY_ELEMENT[dtype])
    if dtype in ("int64", "uint64") and np.any(np.abs(values.astype(np.float64)) >= 2.0 ** 53):
        raise NotModelled(f"a cast of a {dtype} beyond 2^53 (not exact in float64)")
    values = values.astype(np.float64)
    if np.isnan(values).any():
        raise NotModelled("a cast of a NaN: no source gives NaN payload rules (§7.4)")
    return values


def round_to_bfloat16(values):
    """§7.4: round to nearest, ties to even, overflow to infinity, with
    bfloat16's 8 significant bits and float32's exponent range (subnormals
    in steps of 2^-133). Returns the bfloat16 bit patterns."""
    normal = np.abs(values) >= 2.0 ** -126
    mantissa, exponent = np.frexp(values)  # values = mantissa * 2^exponent, 0.5 <= |m| < 1
    rounded = np.where(normal, np.ldexp(np.rint(np.ldexp(mantissa, 8)), exponent - 8),
                       np.ldexp(np.rint(np.ldexp(values, 133)), -133))
    largest = (2 - 2.0 ** -7) * 2.0 ** 127
    rounded = np.where(np.abs(rounded) > largest, np.copysign(np.inf, values), rounded)
    return (rounded.astype(np.float32).view(np.uint32) >> 16).astype("<u2")  # exact


def cast(raw, source, target):
    """§7.4 cast: values converted exactly where representable, otherwise
    rounded once to nearest with ties to even (NumPy's float64 to float32 and
    float16 conversions round directly), overflow to infinity. Casts to
    integers and to the formats without a known encoding are refused."""
    values = to_float64(raw, source)
    with np.errstate(over="ignore"):
        if target == "float32":
            out = values.astype("<f4")
        elif target == "float16":
            out = values.astype("<f2")
        elif target == "bfloat16":
            out = round_to_bfloat16(values)
        else:
            raise NotModelled(f"a cast to {target}: no conversion rule is given (§7.4)")
    return out.view(np.uint8).reshape(-1)


def transpose(raw, desc):
    """§7.4 transpose, the executor's reading: the source stream is a run of
    tiles, each a row-major [W, Z, Y, X] array of transpose_element_size-byte
    elements, and WZXY writes each out as [W, Z, X, Y]: output
    [w][z][x][y] = input [w][z][y][x]."""
    op = desc.get("transpose_op")
    if op != "WZXY":
        raise NotModelled(f"transpose_op {op!r}: only WZXY is read (§7.4)")
    shape, size = desc["transpose_shape"], desc["transpose_element_size"]
    tile = math.prod(shape) * size
    if len(shape) != 4 or tile <= 0 or raw.size % tile:
        raise NotModelled(f"transpose_shape {shape} of {size}-byte elements for a stream "
                          f"of {raw.size} bytes")
    return raw.reshape(-1, *shape, size).transpose(0, 1, 2, 4, 3, 5).reshape(-1)


def run_descriptor(memory, desc):
    """One descriptor: read the whole source stream, transform it, write it
    (§7.3: element i read becomes element i written)."""
    if "from_arr" in desc:
        raise NotModelled("a CCE descriptor (from_arr, §2.11)")
    source, read_at, from_dtype = side(desc, "from")
    target, write_at, to_dtype = side(desc, "to")
    count = read_at.size // DTYPE_BYTES[from_dtype]
    if count != write_at.size // DTYPE_BYTES[to_dtype]:
        raise NotModelled("the two sides visit different numbers of elements (NEFF-37)")
    raw = memory.read(source, read_at)
    op = desc.get("op")
    if "transpose_op" in desc or op == "transpose":
        if op not in (None, "", "transpose") or from_dtype != to_dtype \
                or desc.get("transpose_element_size") != DTYPE_BYTES[from_dtype]:
            raise NotModelled(f"a transpose with op {op!r}, {from_dtype} to {to_dtype}, "
                              f"element size {desc.get('transpose_element_size')}")
        data = transpose(raw, desc)
    elif op in (None, "copy"):
        if from_dtype != to_dtype:
            raise NotModelled(f"a copy from {from_dtype} to {to_dtype} (NEFF-52)")
        data = raw
    elif op == "cast":
        data = cast(raw, from_dtype, to_dtype)
    else:
        raise NotModelled(f"op {op!r}: the notes give no arithmetic for it (§7.4)")
    memory.write(target, write_at, data)


# --- the run -------------------------------------------------------------------

def constants_of(subgraph):
    """§2.7, §2.14: each file variable's bytes, from an .npy member's data or a
    raw member."""
    result = {}
    for name, v in subgraph.definition["var"].items():
        if v["type"] != "file":
            continue
        member = subgraph.member(v["file_name"])
        if member not in subgraph.neff.members:
            raise NotModelled(f"file variable {name}: member {member} is missing (NEFF-28)")
        blob = subgraph.neff.members[member]
        result[name] = npy_data(blob, member) if v["file_name"].endswith(".npy") else blob
    return result


def run(data, inputs):
    """Runs the DMA blocks of a NEFF (its bytes) on `inputs` ({name: raw
    bytes or array}, one per input variable, each exactly its size) and returns
    {output name: uint8 bytes} plus "SB", the state buffer as uint8
    [128, partition bytes] (element [p, b] is address p << 18 | b)."""
    neff = Neff(data)
    sg = neff.subgraph
    variables = sg.definition["var"]
    memory = Memory(neff.target, variables,
                    sg.definition.get("runtime_statebuffer_reservation", []),
                    {k: as_bytes(v) for k, v in inputs.items()}, constants_of(sg))
    for _, block in sg.schedule():
        for desc in block["desc"]:
            run_descriptor(memory, desc)
    outputs = {name: memory.buffers[name] for name, v in variables.items() if v["type"] == "output"}
    outputs["SB"] = memory.sb.reshape(PARTITIONS, memory.partition_bytes)
    return outputs


def as_bytes(value):
    """An input as the runner passes it: the array's raw little-endian bytes."""
    if isinstance(value, np.ndarray):
        return value.astype(value.dtype.newbyteorder("<"), copy=False).tobytes()
    return bytes(value)


# --- §7.5: the worked examples, as a check of this file -----------------------

def check_worked_examples():
    """docs/formats/neff.md §7.5, computed by hand there; raises AssertionError
    when this executor disagrees."""
    def machine(variables, inputs=None, constants=None):
        declared = {"SB": {"type": "state-buffer", "var_id": 0}, **variables}
        return Memory("sunda", declared, [], dict(inputs or {}), constants or {})

    def sb_row(memory, partition, start, end):
        return bytes(memory.sb[partition * memory.partition_bytes + start:
                               partition * memory.partition_bytes + end])

    m = machine({"a": {"type": "input", "size": 64}}, {"a": bytes(range(64))})
    run_descriptor(m, {"from": "a", "from_off": 4, "from_sizes": [8, 3], "from_steps": [1, 16],
                       "from_dtype": "float32", "to": "SB", "to_off": 524388, "to_sizes": [8, 3],
                       "to_steps": [1, 262144], "to_dtype": "float32"})
    assert sb_row(m, 3, 100, 108) == bytes(range(0x14, 0x1C)), "§7.5 copy"
    assert sb_row(m, 2, 100, 108) == bytes(range(4, 12)), "§7.5 copy"
    assert sb_row(m, 4, 100, 108) == bytes(range(36, 44)), "§7.5 copy"

    m = machine({"c": {"type": "file", "size": 4}}, constants={"c": bytes.fromhex("ff02807f")})
    run_descriptor(m, {"op": "cast", "from": "c", "from_off": 0, "from_sizes": [2, 2],
                       "from_steps": [1, 2], "from_dtype": "int8", "to": "SB", "to_off": 0,
                       "to_sizes": [4, 2], "to_steps": [1, 262144], "to_dtype": "float16"})
    assert sb_row(m, 0, 0, 4) == bytes.fromhex("00bc0040"), "§7.5 cast"
    assert sb_row(m, 1, 0, 4) == bytes.fromhex("00d8f057"), "§7.5 cast"

    assert bytes(cast(np.frombuffer(bytes.fromhex("cdcccc3d"), np.uint8), "float32", "float16")) \
        == bytes.fromhex("662e"), "§7.5 float32 0.1 to float16"

    e = bytes([0x00, 0x01, 0x10, 0x11, 0x20, 0x21, 0x30, 0x31])  # e00 e01 e10 e11
    m = machine({"t": {"type": "virtual", "size": 8, "backing_variable_off": 0}})
    m.scratchpad[:] = np.frombuffer(e, np.uint8)
    run_descriptor(m, {"from": "t", "from_off": 0, "from_sizes": [4, 2, 1, 1],
                       "from_steps": [1, 4, 4, 8], "from_dtype": "float16", "to": "SB",
                       "to_off": 0, "to_sizes": [4, 2, 1, 1], "to_steps": [1, 262144, 33554432, 4],
                       "to_dtype": "float16", "transpose_op": "WZXY",
                       "transpose_shape": [1, 1, 2, 2], "transpose_element_size": 2})
    assert sb_row(m, 0, 0, 4) == bytes([0x00, 0x01, 0x20, 0x21]), "§7.5 transpose"
    assert sb_row(m, 1, 0, 4) == bytes([0x10, 0x11, 0x30, 0x31]), "§7.5 transpose"


if __name__ == "__main__":
    check_worked_examples()
    print("the worked examples of docs/formats/neff.md §7.5 agree")
