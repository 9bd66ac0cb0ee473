"""Reads and validates a `.om` file written by om_writer, applying the checks docs/om-format.md asks of every
loader (the C++ runtime applies the same ones; the checklist is §9 of that page): header magic/sizes, payload
length, partition table bounds, exact consumption of the payload, every count/offset/size inside its partition,
every enum in range, string ids, tensor ids and kinds, io indices, event ids, task order, TLV lengths. Any
violation raises OmFormatError naming the check; no other exception escapes `parse_om`, whatever the bytes
(the tests fuzz it). Used by `atc --mode=1` (OM -> JSON) and by the tests, which round-trip every model.
"""

from __future__ import annotations

import hashlib
import math
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import om_format as F
from .ir import DType
from .om_attrs import decode_attrs, string_at


class OmFormatError(ValueError):
    """The file is not a valid .om file; the message says which check failed."""


@dataclass
class OmFile:
    header: dict[str, Any]
    partitions: dict[str, tuple[int, int]]  # name -> (file offset, size)
    model: dict[str, Any]
    plans: list[dict[str, Any]]
    tasks: list[list[dict[str, int]]]
    inout: dict[str, Any]
    path: str = ""
    _raw: bytes = field(default=b"", repr=False)

    def weights(self) -> memoryview:
        offset, size = self.partitions["WEIGHTS_DATA"]
        return memoryview(self._raw)[offset:offset + size]

    def weight_array(self, plan: int, tensor_name: str) -> np.ndarray:
        tensor = next(t for t in self.plans[plan]["tensors"] if t["name"] == tensor_name)
        if tensor["kind"] != "WEIGHT":
            raise KeyError(f"{tensor_name!r} is a {tensor['kind']} tensor, not a weight")
        dtype = DType[tensor["dtype"]].numpy.newbyteorder("<")
        count = int(np.prod(tensor["dims"], dtype=np.int64))
        return np.frombuffer(self.weights(), dtype, count, tensor["offset"]).reshape(tensor["dims"])

    def to_json(self) -> dict[str, Any]:
        return {"header": self.header, "partitions": {k: {"offset": o, "size": s} for k, (o, s) in
                                                      self.partitions.items()},
                "model": self.model, "plans": self.plans, "tasks": self.tasks, "inout": self.inout}


def read_om(path: str | Path, *, verify_checksum: bool = True) -> OmFile:
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise OmFormatError(f"cannot read {path}: {error.strerror}") from None
    parsed = parse_om(raw, verify_checksum=verify_checksum)
    parsed.path = str(path)
    return parsed


def parse_om(raw: bytes, *, verify_checksum: bool = True) -> OmFile:
    try:
        return _parse(raw, verify_checksum)
    except OmFormatError:
        raise
    except (ValueError, struct.error, IndexError, OverflowError) as error:  # a check this reader lacks
        raise OmFormatError(f"malformed file: {error}") from None


def _parse(raw: bytes, verify_checksum: bool) -> OmFile:
    header = _header(raw)
    partitions = _partitions(raw, header)
    model, plans = _model_def(raw, partitions)
    tasks = _task_info(raw, partitions, plans)
    inout = _inout(raw, partitions, model)
    if len(inout["inputs"]) != model["input_count"] or len(inout["outputs"]) != model["output_count"]:
        raise OmFormatError("MODEL_INOUT_INFO and MODEL_DEF disagree on the number of inputs/outputs")
    if verify_checksum and header["is_checksum"] == 0:
        _check(hashlib.sha256(raw[F.MODEL_FILE_HEAD_LEN:]).hexdigest() == header["checksum"], "checksum mismatch")
    return OmFile(header, partitions, model, plans, tasks, inout, _raw=raw)


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise OmFormatError(message)


def _cstr(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("utf-8", "replace")


def _header(raw: bytes) -> dict[str, Any]:
    _check(len(raw) >= F.MODEL_FILE_HEAD_LEN, f"file of {len(raw)} bytes is shorter than the 256-byte header")
    (magic, headsize, version, checksum, length, is_encrypt, is_checksum, modeltype, genmode, name, _ops, user,
     om_ir_version, model_num, platform, platform_type, _pad, model_length, _need_check, is_unknow,
     _reserved) = F.HEADER.unpack_from(raw)
    _check(magic == F.MODEL_FILE_MAGIC, f"bad magic 0x{magic:08X} (expected 0x{F.MODEL_FILE_MAGIC:08X})")
    _check(headsize == F.MODEL_FILE_HEAD_LEN, f"bad headsize {headsize}")
    payload = model_length or length
    _check(payload == len(raw) - F.MODEL_FILE_HEAD_LEN,
           f"payload length {payload} does not match the file size {len(raw)} - 256")
    _check(model_length != 0, "only the 64-bit partition table (model_length != 0) is supported")
    _check(is_encrypt == 0, "encrypted models are not supported")
    _check(is_checksum in (0, F.CHECKSUM_UNCHECK), f"is_checksum {is_checksum} is neither 0 (CHECK) nor 1 (UNCHECK)")
    _check(model_num in (0, 1), f"model_num {model_num}: only one model per file is supported")
    return {"magic": f"0x{magic:08X}", "headsize": headsize, "version": f"0x{version:08X}", "length": length,
            "is_encrypt": is_encrypt, "is_checksum": is_checksum, "modeltype": modeltype, "genmode": genmode,
            "name": _cstr(name), "userdefineinfo": _cstr(user), "om_ir_version": om_ir_version,
            "model_num": model_num, "platform_version": _cstr(platform), "platform_type": platform_type,
            "model_length": model_length, "is_unknow_model": is_unknow, "checksum": checksum[:32].hex()}


def _partitions(raw: bytes, header: dict[str, Any]) -> dict[str, tuple[int, int]]:
    base = F.MODEL_FILE_HEAD_LEN
    _check(len(raw) >= base + F.TABLE_HEAD.size, "file ends inside the partition table")
    (count,) = F.TABLE_HEAD.unpack_from(raw, base)
    table_end = base + F.TABLE_HEAD.size + F.TABLE_ENTRY.size * count
    _check(count == len(F.PARTITION_ORDER) and table_end <= len(raw), f"bad partition count {count}")
    result: dict[str, tuple[int, int]] = {}
    cursor = 0
    for i in range(count):
        kind, offset, size = F.TABLE_ENTRY.unpack_from(raw, base + F.TABLE_HEAD.size + i * F.TABLE_ENTRY.size)
        _check(kind == F.PARTITION_ORDER[i], f"partition {i} has type {kind}, expected {F.PARTITION_ORDER[i]}")
        _check(offset == cursor, f"partition {F.Partition(kind).name} offset {offset} != expected {cursor}")
        _check(table_end + offset + size <= len(raw), f"partition {F.Partition(kind).name} runs past the file end")
        result[F.Partition(kind).name] = (table_end + offset, size)
        cursor += size
    _check(table_end + cursor == len(raw), "the partitions do not consume the payload exactly")
    return result


def _model_def(raw: bytes, partitions: dict[str, tuple[int, int]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    start, size = partitions["MODEL_DEF"]
    data = raw[start:start + size]
    _check(size >= F.MODEL_DEF_HEADER.size, "MODEL_DEF is shorter than its header")
    (magic, major, minor, header_size, flags, plan_count, plan_offset, str_offset, str_size, attr_offset,
     attr_size, weight_size, name, soc, input_count, output_count, dynamic_type, gear_dims, precision,
     dynamic_index, sub_count, sub_offset) = F.MODEL_DEF_HEADER.unpack_from(data)
    _check(magic == F.MODEL_DEF_MAGIC, f"MODEL_DEF magic {magic!r} is not {F.MODEL_DEF_MAGIC!r}")
    _check(major == F.FORMAT_MAJOR, f"MODEL_DEF format version {major}.{minor}; this reader reads {F.FORMAT_MAJOR}.x")
    _check(F.MODEL_DEF_HEADER.size <= header_size <= size, f"bad MODEL_DEF header size {header_size}")
    _check(1 <= plan_count <= F.MAX_PLANS and _inside(plan_offset, plan_count * F.PLAN.size, size),
           f"plan_count {plan_count} or plan table out of bounds")
    _check(_inside(str_offset, str_size, size) and _inside(attr_offset, attr_size, size),
           "string/attr section out of bounds")
    strings = data[str_offset:str_offset + str_size]
    _check(str_size > 0 and strings[0] == 0 and strings[-1] == 0, "the string table must start and end with NUL")
    blob = data[attr_offset:attr_offset + attr_size]
    _check(weight_size == partitions["WEIGHTS_DATA"][1], "weight size differs from the WEIGHTS_DATA partition")
    _check(dynamic_type in F.DynamicType._value2member_map_, f"dynamic_type {dynamic_type} unknown (0..3)")
    _check(precision in F.Precision._value2member_map_, f"precision_mode {precision} unknown (0..3)")
    kind = F.DynamicType(dynamic_type)
    expected_dims = {F.DynamicType.FIXED: 0, F.DynamicType.DYNAMIC_BATCH: 1, F.DynamicType.DYNAMIC_IMAGE: 2}
    _check(gear_dims == expected_dims[kind] if kind in expected_dims else 1 <= gear_dims <= F.MAX_RANK * input_count,
           f"gear_dim_count {gear_dims} does not fit dynamic_type {kind.name}")
    fixed = kind == F.DynamicType.FIXED
    _check(flags & ~(F.FLAG_DYNAMIC_GEARS | F.FLAG_SINGLE_OP | F.FLAG_DYNAMIC_SHAPE | F.FLAG_CONTROL_FLOW) == 0
           and bool(flags & F.FLAG_DYNAMIC_GEARS) != fixed,
           f"flags 0x{flags:x}: unknown bits or dynamic flag not matching dynamic_type")
    single_op = bool(flags & F.FLAG_SINGLE_OP)
    dynamic_shape = bool(flags & F.FLAG_DYNAMIC_SHAPE)
    _check(not dynamic_shape or (minor >= 4 and fixed and not single_op),
           f"dynamic-shape flag in a format {major}.{minor} {kind.name} model (needs format 1.4, FIXED, not single-op)")
    _check(not single_op or (minor >= 2 and fixed), f"single-operator flag in a format {major}.{minor} "
                                                    f"{kind.name} model (needs format 1.2 and FIXED)")
    _check(plan_count == 1 if fixed else plan_count >= 2, f"plan_count {plan_count} for dynamic_type {kind.name}")
    control_flow = bool(flags & F.FLAG_CONTROL_FLOW)
    _check(control_flow == (sub_count > 0) and (not control_flow or (minor >= 5 and dynamic_shape)),
           f"control-flow flag {int(control_flow)} with {sub_count} subgraphs in a format {major}.{minor} model "
           "(needs format 1.5, a dynamic-shape model and at least one subgraph)")
    _check(sub_count <= F.MAX_SUBGRAPHS and _inside(sub_offset, sub_count * F.SUBGRAPH.size, size),
           f"subgraph_count {sub_count} or subgraph table out of bounds")
    _check(dynamic_index == F.NO_TENSOR if fixed else dynamic_index == input_count - 1,
           f"dynamic_input_index {dynamic_index} for {input_count} inputs and dynamic_type {kind.name}")
    model = {"format_version": f"{major}.{minor}", "flags": flags, "plan_count": plan_count,
             "name": _string(strings, name), "soc_version": _string(strings, soc), "weight_size": weight_size,
             "input_count": input_count, "output_count": output_count, "dynamic_type": kind.name,
             "gear_dim_count": gear_dims, "precision_mode": F.Precision(precision).name.lower(),
             "dynamic_input_index": -1 if dynamic_index == F.NO_TENSOR else dynamic_index, "single_op": single_op,
             "dynamic_shape": dynamic_shape, "subgraph_count": sub_count}
    plans = [_plan(data, plan_offset + i * F.PLAN.size, strings, blob, model) for i in range(plan_count)]
    model["subgraphs"] = [_subgraph(data, sub_offset + i * F.SUBGRAPH.size, strings, blob, model, index=i)
                          for i in range(sub_count)]
    return model, plans


def _subgraph(data: bytes, offset: int, strings: bytes, blob: bytes, model: dict[str, Any], *,
              index: int) -> dict[str, Any]:
    """A SUBGRAPH record (§12): a plan whose inputs and outputs are its own; every If/Loop node of the model
    names subgraphs after the graph it is in (no cycles)."""
    *_, input_count, output_count = F.SUBGRAPH.unpack_from(data, offset)
    scope = dict(model, input_count=input_count, output_count=output_count)
    plan = _plan(data, offset, strings, blob, scope)
    for node in plan["nodes"]:
        for attr in ("then_branch", "else_branch", "body"):
            if node["op_type"] in ("If", "Loop") and attr in node["attrs"]:
                target = node["attrs"][attr]
                _check(isinstance(target, int) and index < target < model["subgraph_count"],
                       f"subgraph {index}: node {node['name']!r} names subgraph {target}, not a later one")
    return dict(plan, input_count=input_count, output_count=output_count)


def _string(strings: bytes, string_id: int) -> str:
    try:
        return string_at(strings, string_id)
    except ValueError as error:
        raise OmFormatError(str(error)) from None


def _inside(offset: int, size: int, limit: int) -> bool:
    """[offset, offset + size) lies in [0, limit) -- Python ints: no overflow (a C++ loader computes in u64)."""
    return offset >= 0 and size >= 0 and offset + size <= limit


def _array(data: bytes, offset: int, dtype: str, count: int, what: str) -> list[int]:
    _check(offset % 4 == 0 and _inside(offset, np.dtype(dtype).itemsize * count, len(data)),
           f"{what} out of bounds or misaligned")
    return np.frombuffer(data, dtype, count, offset).tolist()


def _plan(data: bytes, offset: int, strings: bytes, blob: bytes, model: dict[str, Any]) -> dict[str, Any]:
    (arena, tensor_count, tensor_offset, node_count, node_offset, stream_count, event_count, in_offset, out_offset,
     gear_offset) = F.PLAN.unpack_from(data, offset)
    _check(_inside(tensor_offset, tensor_count * F.TENSOR.size, len(data)), "tensor_count/tensor table out of bounds")
    _check(_inside(node_offset, node_count * F.NODE.size, len(data)), "node_count/node table out of bounds")
    _check(1 <= stream_count <= max(node_count, 1), f"stream_count {stream_count} not in 1..{max(node_count, 1)}")
    _check(event_count <= node_count * node_count, f"event_count {event_count} exceeds the node pairs")
    tensors = [_tensor(data, tensor_offset + i * F.TENSOR.size, i, strings, arena=arena, model=model)
               for i in range(tensor_count)]
    produced = [0] * tensor_count
    nodes = []
    for i in range(node_count):
        (name, op, domain, stream, n_in, n_out, io_offset, a_offset, a_count, flags, _r1, _r2) = F.NODE.unpack_from(
            data, node_offset + i * F.NODE.size)
        io = _array(data, io_offset, "<u4", n_in + n_out, f"node {i} tensor ids")
        _check(all(t < tensor_count for t in io[n_in:]) and all(t < tensor_count or t == F.NO_TENSOR
                                                                 for t in io[:n_in]), f"node {i}: bad tensor id")
        for t in io[n_in:]:
            _check(tensors[t]["kind"] in ("FEATURE_MAP", "OUTPUT"),
                   f"node {i}: output tensor {t} is a {tensors[t]['kind']} tensor; it cannot be written")
            produced[t] += 1
        _check(stream < stream_count, f"node {i}: stream {stream} >= stream count {stream_count}")
        _check(flags & ~_NODE_FLAGS == 0, f"node {i}: unknown flags 0x{flags:x}")
        _check(_inside(a_offset, a_count * F.ATTR.size, len(blob)), f"node {i}: attributes out of bounds")
        try:
            attrs = decode_attrs(blob, strings, a_offset, a_count, single_op=model["single_op"])
        except ValueError as error:
            raise OmFormatError(f"node {i}: attribute: {error}") from None
        nodes.append({"name": _string(strings, name), "op_type": _string(strings, op),
                      "domain": _string(strings, domain), "stream": stream,
                      "inputs": [-1 if t == F.NO_TENSOR else t for t in io[:n_in]], "outputs": io[n_in:],
                      "attrs": _jsonable(attrs), "flags": [f.name for f in F.NodeFlag if flags & f]})
    for t, tensor in enumerate(tensors):
        if tensor["kind"] == "OUTPUT":
            _check(produced[t] == 1, f"OUTPUT tensor {t} is written by {produced[t]} nodes, not exactly one")
    if model["single_op"]:
        _single_op_plan(tensors, nodes)
    inputs = _array(data, in_offset, "<u4", model["input_count"], "input ids")
    outputs = _array(data, out_offset, "<u4", model["output_count"], "output ids")
    for role, ids in (("INPUT", inputs), ("OUTPUT", outputs)):
        for k, t in enumerate(ids):
            if role == "INPUT" and k == model["dynamic_input_index"]:
                _check(t == F.NO_TENSOR, f"input {k} (ascend_mbatch_shape_data) must have no tensor")
                continue
            _check(t < tensor_count and tensors[t]["kind"] == role and tensors[t]["io_index"] == k,
                   f"model {role.lower()} {k}: tensor id {t} is not the {role} tensor with io_index {k}")
    gear: list[int] = []
    if model["gear_dim_count"]:
        gear = _array(data, gear_offset, "<i8", model["gear_dim_count"], "gear values")
        _check(gear_offset != 0 and all(v > 0 for v in gear), f"gear values {gear} missing or not positive")
    return {"feature_map_size": arena, "stream_count": stream_count, "event_count": event_count, "gear": gear,
            "inputs": [-1 if t == F.NO_TENSOR else t for t in inputs], "outputs": outputs,
            "tensors": tensors, "nodes": nodes}


_NODE_FLAGS = int(F.NodeFlag.ROUND_OUTPUTS_FP16 | F.NodeFlag.ROUND_INPUTS_FP16 | F.NodeFlag.VIEW
                  | F.NodeFlag.SHAPE_DEPENDENT)


def _single_op_plan(tensors: list[dict[str, Any]], nodes: list[dict[str, Any]]) -> None:
    """docs/om-format.md §10.6: one node in the "cann" domain, every input a tensor, no feature map."""
    _check(len(nodes) == 1 and nodes[0]["domain"] == F.CANN_DOMAIN,
           f"single-operator model with {len(nodes)} nodes or a domain other than {F.CANN_DOMAIN!r}")
    _check(-1 not in nodes[0]["inputs"], "single-operator model: a node input without a tensor")
    _check(all(t["kind"] != "FEATURE_MAP" for t in tensors), "single-operator model with a FEATURE_MAP tensor")


def _tensor(data: bytes, offset: int, i: int, strings: bytes, *, arena: int, model: dict[str, Any]) -> dict[str, Any]:
    name, dtype, fmt, kind, rank, io_index, t_offset, t_size, *dims = F.TENSOR.unpack_from(data, offset)
    _check(rank <= F.MAX_RANK, f"tensor {i}: rank {rank} > {F.MAX_RANK}")
    _check(dtype in DType._value2member_map_, f"tensor {i}: unknown dtype {dtype}")
    _check(fmt in F.FORMAT_NAMES, f"tensor {i}: unknown format {fmt}")
    _check(kind in F.TensorKind._value2member_map_, f"tensor {i}: unknown kind {kind} (0..3)")
    shape = dims[:rank]
    # single-operator inputs/outputs may have -1 dims or be the unknown-rank shape [-2] (docs/om-format.md §10.3);
    # every tensor but a weight of a dynamic-shape model may have -1 dims (§11)
    dynamic_ok = (model["single_op"] and kind in (F.TensorKind.INPUT, F.TensorKind.OUTPUT)) or \
        (model["dynamic_shape"] and kind != F.TensorKind.WEIGHT)
    shape_ok = all(d >= 0 for d in shape) or (dynamic_ok and (all(d >= -1 for d in shape) or shape == [-2]))
    _check(shape_ok and not any(dims[rank:]), f"tensor {i}: dims {dims} negative or unused non-zero")
    expected = 0 if any(d < 0 for d in shape) else math.prod(shape) * DType(dtype).itemsize
    _check(t_size == expected, f"tensor {i}: size {t_size} != dims {shape} x itemsize")
    kind_name = F.TensorKind(kind).name
    if kind in (F.TensorKind.FEATURE_MAP, F.TensorKind.WEIGHT):
        limit = arena if kind == F.TensorKind.FEATURE_MAP else model["weight_size"]
        if kind == F.TensorKind.FEATURE_MAP and model["dynamic_shape"]:  # allocated per execution
            _check(t_offset == 0, f"tensor {i} (FEATURE_MAP) of a dynamic-shape model has offset {t_offset}")
            limit = t_size
        _check(t_offset % 512 == 0 and t_offset + t_size <= limit,
               f"tensor {i} ({kind_name}): [{t_offset}, +{t_size}) not aligned or outside its region")
        _check(io_index == F.NO_TENSOR, f"tensor {i} ({kind_name}): io_index {io_index} must be NONE")
    else:
        count = model["input_count"] if kind == F.TensorKind.INPUT else model["output_count"]
        _check(io_index < count and io_index != model["dynamic_input_index"] and t_offset == 0,
               f"tensor {i} ({kind_name}): io_index {io_index} not a model {kind_name.lower()} or offset not 0")
    return {"name": _string(strings, name), "dtype": DType(dtype).name, "format": F.FORMAT_NAMES[fmt],
            "kind": kind_name, "dims": shape, "offset": t_offset, "size": t_size,
            "io_index": -1 if io_index == F.NO_TENSOR else io_index}


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return {"dtype": DType.of_numpy(value.dtype).name, "dims": list(value.shape), "data": value.tolist()}
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value


def _task_info(raw: bytes, partitions: dict[str, tuple[int, int]], plans: list[dict[str, Any]]) -> list[list[dict[str, int]]]:
    start, size = partitions["TASK_INFO"]
    data = raw[start:start + size]
    _check(size >= F.TASK_HEADER.size, "TASK_INFO is shorter than its header")
    magic, major, _minor, header_size, plan_count = F.TASK_HEADER.unpack_from(data)
    _check(magic == F.TASK_INFO_MAGIC and major == F.FORMAT_MAJOR, "bad TASK_INFO magic or version")
    _check(plan_count == len(plans), "TASK_INFO and MODEL_DEF disagree on the number of plans")
    _check(header_size >= F.TASK_HEADER.size and _inside(header_size, plan_count * F.TASK_DIR.size, size),
           f"TASK_INFO header_size {header_size} or task directory out of bounds")
    result = []
    for p, plan in enumerate(plans):
        count, offset = F.TASK_DIR.unpack_from(data, header_size + p * F.TASK_DIR.size)
        _check(offset % 8 == 0 and _inside(offset, count * F.TASK.size, size), f"plan {p}: task list out of bounds")
        tasks, next_node, recorded = [], 0, set()
        for i in range(count):
            kind, stream, arg, node = F.TASK.unpack_from(data, offset + i * F.TASK.size)
            _check(kind in F.TaskType._value2member_map_, f"plan {p} task {i}: unknown type {kind}")
            _check(stream < plan["stream_count"], f"plan {p} task {i}: bad stream {stream}")
            if kind == F.TaskType.KERNEL:
                _check(arg == next_node == node, f"plan {p} task {i}: kernels must follow node order")
                _check(plan["nodes"][arg]["stream"] == stream, f"plan {p} task {i}: stream differs from the node's")
                next_node += 1
            else:
                _check(arg < plan["event_count"], f"plan {p} task {i}: event id {arg} >= {plan['event_count']}")
                # a record follows its node's kernel, a wait precedes its node's kernel, on that node's stream
                anchor = next_node - 1 if kind == F.TaskType.EVENT_RECORD else next_node
                _check(node == anchor and node < len(plan["nodes"]) and plan["nodes"][node]["stream"] == stream,
                       f"plan {p} task {i}: event task for node {node} out of place or on the wrong stream")
                if kind == F.TaskType.EVENT_RECORD:
                    recorded.add(arg)
                else:
                    _check(arg in recorded, f"plan {p} task {i}: waits for event {arg} before it is recorded")
            tasks.append({"type": F.TaskType(kind).name, "stream": stream, "arg": arg, "node": node})
        _check(next_node == len(plan["nodes"]), f"plan {p}: {next_node} kernels for {len(plan['nodes'])} nodes")
        result.append(tasks)
    return result


def _inout(raw: bytes, partitions: dict[str, tuple[int, int]], model: dict[str, Any]) -> dict[str, Any]:
    start, size = partitions["MODEL_INOUT_INFO"]
    data = raw[start:start + size]
    result: dict[str, Any] = {"inputs": [], "outputs": []}
    cursor = 0
    while cursor < size:
        _check(cursor + F.TLV.size <= size, "truncated TLV header in MODEL_INOUT_INFO")
        kind, length = F.TLV.unpack_from(data, cursor)
        value = data[cursor + F.TLV.size:cursor + F.TLV.size + length]
        _check(len(value) == length, "TLV value runs past MODEL_INOUT_INFO")
        cursor += F.TLV.size + length
        if kind not in F.ModelDescType._value2member_map_:
            continue  # unknown TLV types are skipped (forward compatibility), as GE does
        _check(length >= 4 or kind == F.ModelDescType.MODEL_DYNAMIC_OUTPUT_SHAPE, f"TLV type {kind}: value too short")
        if kind == F.ModelDescType.MODEL_INPUT_DESC:
            result["inputs"] = _descs(value)
        elif kind == F.ModelDescType.MODEL_OUTPUT_DESC:
            result["outputs"] = _descs(value)
        elif kind == F.ModelDescType.MODEL_DYNAMIC_BATCH:
            (n,) = struct.unpack_from("<I", value)
            result["dynamic_batch"] = _array(value, 4, "<i8", n, "dynamic batch")
        elif kind in (F.ModelDescType.MODEL_DYNAMIC_HW, F.ModelDescType.MODEL_DYNAMIC_DIMS):
            key = "dynamic_hw" if kind == F.ModelDescType.MODEL_DYNAMIC_HW else "dynamic_dims"
            result[key] = _vec_int_int(value)
        elif kind in (F.ModelDescType.MODEL_DYNAMIC_OUTPUT_SHAPE, F.ModelDescType.MODEL_DESIGNATE_SHAPE_ORDER):
            key = "dynamic_output_shape" if kind == F.ModelDescType.MODEL_DYNAMIC_OUTPUT_SHAPE else "shape_order"
            result[key] = _vec_str(value) if value else []
        elif kind == F.ModelDescType.MODEL_AIPP_INFO:
            result["aipp"] = _aipp_info(value, model)
        else:
            _aipp_image_dims(value, result.get("aipp"), model["plan_count"])
    return result


def _aipp_image_dims(value: bytes, records: list[dict[str, Any]] | None, plans: int) -> None:
    """MODEL_AIPP_IMAGE_DIMS (format 1.3): each MODEL_AIPP_INFO record's image dims per plan."""
    _check(records is not None, "MODEL_AIPP_IMAGE_DIMS before MODEL_AIPP_INFO")
    assert records is not None
    count, plan_count = struct.unpack_from("<II", value) if len(value) >= 8 else (-1, -1)
    _check(count == len(records) and plan_count == plans and len(value) == 8 + 32 * count * plans,
           "MODEL_AIPP_IMAGE_DIMS does not match MODEL_AIPP_INFO")
    dims = _array(value, 8, "<i8", 4 * count * plans, "AIPP image dims")
    for k, record in enumerate(records):
        record["src_dims"] = [dims[(k * plans + i) * 4:(k * plans + i + 1) * 4] for i in range(plans)]


def _descs(value: bytes) -> list[dict[str, Any]]:
    (count,) = struct.unpack_from("<I", value)
    _check(count * F.TENSOR_DESC_BASE.size <= len(value), f"tensor description count {count} out of bounds")
    cursor, descs = 4, []
    for _ in range(count):
        _check(cursor + F.TENSOR_DESC_BASE.size <= len(value), "truncated tensor description")
        size, fmt, dt, name_len, dims_len, v2_len, range_len = F.TENSOR_DESC_BASE.unpack_from(value, cursor)
        cursor += F.TENSOR_DESC_BASE.size
        _check(_inside(cursor, name_len + dims_len + v2_len + range_len, len(value)), "tensor description out of bounds")
        _check(dims_len % 8 == 0 and v2_len % 8 == 0 and range_len % 16 == 0 and dims_len <= 8 * F.MAX_RANK
               and v2_len <= 8 * F.MAX_RANK, "tensor description: dims/dimsV2/shape range lengths invalid")
        _check(dt in DType._value2member_map_ and fmt in F.FORMAT_NAMES,
               f"tensor description: dtype {dt} or format {fmt} unknown")
        name = _utf8(value[cursor:cursor + name_len], "tensor description name")
        cursor += name_len
        dims = np.frombuffer(value, "<i8", dims_len // 8, cursor).tolist()
        cursor += dims_len
        dims_v2 = np.frombuffer(value, "<i8", v2_len // 8, cursor).tolist()
        cursor += v2_len
        ranges = np.frombuffer(value, "<i8", range_len // 8, cursor).tolist()
        cursor += range_len
        descs.append({"name": name, "size": size, "format": F.FORMAT_NAMES[fmt], "dtype": DType(dt).name,
                      "dims": dims, "dims_v2": dims_v2, "shape_range": [ranges[i:i + 2] for i in range(0, len(ranges), 2)]})
    return descs


def _utf8(raw: bytes, what: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise OmFormatError(f"{what} is not valid UTF-8") from None


def _vec_int_int(value: bytes) -> list[list[int]]:
    (n,) = struct.unpack_from("<I", value)
    parts = _array(value, 4, "<u4", n, "gear sizes")
    cursor, rows = 4 + 4 * n, []
    for part in parts:
        _check(_inside(cursor, 8 * part, len(value)), "gear values out of bounds")
        rows.append(np.frombuffer(value, "<i8", part, cursor).tolist())
        cursor += 8 * part
    return rows


def _vec_str(value: bytes) -> list[str]:
    (n,) = struct.unpack_from("<I", value)
    lengths = _array(value, 4, "<u4", n, "string lengths")
    cursor, items = 4 + 4 * n, []
    for length in lengths:
        _check(_inside(cursor, length, len(value)), "string out of bounds")
        items.append(_utf8(value[cursor:cursor + length], "input name"))
        cursor += length
    return items


_AIPP_FIELDS = ("input_index", "aipp_type", "input_format", "src_image_size_w", "src_image_size_h", "crop",
                "resize", "padding", "csc_switch", "rbuv_swap_switch", "ax_swap_switch", "single_line_mode", None,
                "load_start_pos_w", "load_start_pos_h", "crop_size_w", "crop_size_h", "resize_output_w",
                "resize_output_h", "left_padding_size", "right_padding_size", "top_padding_size",
                "bottom_padding_size", *(f"matrix_r{r}c{c}" for r in range(3) for c in range(3)),
                *(f"output_bias_{i}" for i in range(3)), *(f"input_bias_{i}" for i in range(3)),
                *(f"mean_chn_{i}" for i in range(4)), *(f"min_chn_{i}" for i in range(4)),
                *(f"var_reci_chn_{i}" for i in range(4)), "padding_value", "src_format", "src_dtype", "out_format",
                "out_dtype", "out_rank")


def _aipp_info(value: bytes, model: dict[str, Any]) -> list[dict[str, Any]]:
    _check(len(value) >= 8, "truncated MODEL_AIPP_INFO")
    count, plan_count = struct.unpack_from("<II", value)
    _check(plan_count == model["plan_count"] and count <= model["input_count"],
           f"MODEL_AIPP_INFO: {count} records for {plan_count} plans")
    cursor, records = 8, []
    for _ in range(count):
        _check(cursor + F.AIPP_INFO.size <= len(value), "MODEL_AIPP_INFO record out of bounds")
        fields = F.AIPP_INFO.unpack_from(value, cursor)
        record = {k: v for k, v in zip(_AIPP_FIELDS, fields) if k is not None}
        cursor += F.AIPP_INFO.size
        rank = record["out_rank"]
        _check(rank <= F.MAX_RANK and record["input_index"] < model["input_count"],
               f"MODEL_AIPP_INFO: out_rank {rank} or input_index {record['input_index']} out of range")
        dims = _array(value, cursor, "<i8", plan_count * rank, "AIPP output dims")
        cursor += 8 * plan_count * rank
        _check(record["aipp_type"] == F.AIPP_STATIC, f"unknown AIPP type {record['aipp_type']}")
        for key in ("src_format", "out_format"):
            _check(record[key] in F.FORMAT_NAMES, f"MODEL_AIPP_INFO: unknown {key} {record[key]}")
            record[key] = F.FORMAT_NAMES[record[key]]
        for key in ("src_dtype", "out_dtype"):
            _check(record[key] in DType._value2member_map_, f"MODEL_AIPP_INFO: unknown {key} {record[key]}")
            record[key] = DType(record[key]).name
        record["out_dims"] = [dims[i * rank:(i + 1) * rank] for i in range(plan_count)]
        records.append(record)
    _check(cursor == len(value), "MODEL_AIPP_INFO has trailing bytes")
    return records
