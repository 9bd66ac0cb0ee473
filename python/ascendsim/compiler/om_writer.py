"""Writes a compiled model as a `.om` file (layout in om_format.py, contract in docs/om-format.md).

The small partitions (MODEL_DEF, TASK_INFO, MODEL_INOUT_INFO) are built in memory; the weights are streamed
array by array straight from the graph's constants into the file, so 100 MB of weights are never copied
into one buffer. The SHA-256 of the payload is computed while writing and stored in the header, which is
written last. The file is written under a temporary name in the target directory and renamed when complete,
so a failure never leaves a partial `.om` behind.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import struct
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import numpy as np

from . import om_format as F
from .aipp import AippInfo
from .ir import DType, Graph, Value
from .memory import VIEW_OPS, MemoryPlan, WeightPlan
from .om_attrs import AttrBlob, StringTable
from .streams import StreamPlan


@dataclass
class OmPlan:
    """One executable plan: the whole model for static shapes, or one gear of a dynamic model."""

    graph: Graph
    streams: StreamPlan
    memory: MemoryPlan
    node_flags: dict[str, int] = field(default_factory=dict)
    gear: tuple[int, ...] = ()


@dataclass
class OmModel:
    name: str
    soc_version: str
    plans: list[OmPlan]
    weights: WeightPlan  # over the constants of every plan (shared by name)
    precision: F.Precision = F.Precision.FORCE_FP16
    dynamic_type: F.DynamicType = F.DynamicType.FIXED
    dynamic_inputs: list[str] = field(default_factory=list)  # inputs whose dims vary (designate order)
    aipp: list[AippInfo] = field(default_factory=list)  # static AIPP per input (out_dims: one per plan)
    # A single-operator model (docs/om-format.md §10): io tensors may have -1 dims or the shape [-2]; their
    # shape ranges (per dim, by value name) go to MODEL_INOUT_INFO.
    single_op: bool = False
    shape_ranges: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    # A dynamic-shape model (format 1.4, docs/om-format.md §11): symbolic dims are written as -1, feature maps
    # have no offset (the runtime allocates them per execution); an input named in shape_ranges with an empty
    # list has unknown rank (-2).
    dynamic_shape: bool = False
    # (format 1.5, docs/om-format.md §12) the If/Loop subgraphs of a dynamic-shape model, in index order
    subgraphs: list[OmPlan] = field(default_factory=list)

    @property
    def minor(self) -> int:
        if self.subgraphs:
            return F.FORMAT_MINOR
        return F.DYNAMIC_FORMAT_MINOR if self.dynamic_shape else F.STATIC_FORMAT_MINOR


def write_om(path: str | os.PathLike[str], model: OmModel) -> int:
    """Writes `model` to `path` atomically; returns the file size in bytes."""
    target = Path(path)
    parts = {
        F.Partition.MODEL_DEF: _model_def(model),
        F.Partition.TASK_INFO: _task_info(model),
        F.Partition.MODEL_INOUT_INFO: _inout_info(model),
    }
    table_size = F.TABLE_HEAD.size + F.TABLE_ENTRY.size * len(F.PARTITION_ORDER)
    weights_start = F.MODEL_FILE_HEAD_LEN + table_size + len(parts[F.Partition.MODEL_DEF])
    parts[F.Partition.MODEL_DEF] += b"\0" * F.pad_to(weights_start, F.PARTITION_ALIGN)
    sizes = {p: len(parts[p]) if p in parts else model.weights.size for p in F.PARTITION_ORDER}
    table = F.TABLE_HEAD.pack(len(F.PARTITION_ORDER))
    offset = 0
    for p in F.PARTITION_ORDER:
        table += F.TABLE_ENTRY.pack(p, offset, sizes[p])
        offset += sizes[p]
    payload_length = table_size + offset
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            digest = hashlib.sha256()
            out.write(b"\0" * F.MODEL_FILE_HEAD_LEN)
            for chunk in (table, parts[F.Partition.MODEL_DEF]):
                _emit(out, digest, chunk)
            _write_weights(out, digest, model.weights)
            for p in (F.Partition.TASK_INFO, F.Partition.MODEL_INOUT_INFO):
                _emit(out, digest, parts[p])
            out.seek(0)
            out.write(_header(model, payload_length, digest.digest()))
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return F.MODEL_FILE_HEAD_LEN + payload_length


def _emit(out: BinaryIO, digest: hashlib._Hash, data: bytes | memoryview) -> None:
    out.write(data)
    digest.update(data)


def _write_weights(out: BinaryIO, digest: hashlib._Hash, weights: WeightPlan) -> None:
    written = 0
    for value in weights.order:
        offset = weights.offsets[value.name]
        if offset > written:
            _emit(out, digest, b"\0" * (offset - written))
        array = np.ascontiguousarray(value.data)
        if array.dtype.byteorder == ">":
            array = array.astype(array.dtype.newbyteorder("<"))
        raw = memoryview(array).cast("B") if array.size else memoryview(b"")
        _emit(out, digest, raw)
        written = offset + raw.nbytes
    if weights.size > written:
        _emit(out, digest, b"\0" * (weights.size - written))


def _header(model: OmModel, payload_length: int, checksum: bytes) -> bytes:
    return F.HEADER.pack(
        F.MODEL_FILE_MAGIC, F.MODEL_FILE_HEAD_LEN, F.MODEL_VERSION, checksum.ljust(64, b"\0"),
        payload_length if payload_length < 1 << 32 else 0, 0, 0, F.MODEL_TYPE_STANDARD, 0,
        _fixed(model.name, 32), 0, _fixed("ascendsim", 32), 0, 1, _fixed(model.soc_version, 20), 0, b"",
        payload_length, 0, int(model.dynamic_shape), b"")


def _fixed(text: str, size: int) -> bytes:
    """NUL-padded, truncated so that a terminating NUL always remains."""
    return text.encode("utf-8")[: size - 1].ljust(size, b"\0")


# ---- MODEL_DEF -------------------------------------------------------------------------------------------


class _Section:
    """A growing byte buffer whose appends are 8-aligned."""

    def __init__(self, start: bytes) -> None:
        self.data = bytearray(start)

    def add(self, payload: bytes) -> int:
        self.data += b"\0" * F.pad_to(len(self.data), 8)
        offset = len(self.data)
        self.data += payload
        return offset


def _model_def(model: OmModel) -> bytes:
    strings = StringTable()
    name_id, soc_id = strings.add(model.name), strings.add(model.soc_version)
    blob = AttrBlob(strings)
    head_size = F.MODEL_DEF_HEADER.size + F.PLAN.size * len(model.plans)
    section = _Section(b"\0" * head_size)
    plan_records = [_plan(plan, model, section, strings, blob) for plan in model.plans]
    sub_records = [_plan(plan, model, section, strings, blob, subgraph=True) for plan in model.subgraphs]
    sub_offset = section.add(b"".join(sub_records)) if sub_records else 0
    attr_offset = section.add(bytes(blob.data))
    string_offset = section.add(strings.data())
    inputs, outputs = _io_names(model)
    dynamic_index = inputs.index(F.DYNAMIC_INPUT_NAME) if F.DYNAMIC_INPUT_NAME in inputs else F.NO_TENSOR
    header = F.MODEL_DEF_HEADER.pack(
        F.MODEL_DEF_MAGIC, F.FORMAT_MAJOR, model.minor, F.MODEL_DEF_HEADER.size,
        (F.FLAG_DYNAMIC_GEARS if model.dynamic_type != F.DynamicType.FIXED else 0)
        | (F.FLAG_SINGLE_OP if model.single_op else 0) | (F.FLAG_DYNAMIC_SHAPE if model.dynamic_shape else 0)
        | (F.FLAG_CONTROL_FLOW if model.subgraphs else 0),
        len(model.plans),
        F.MODEL_DEF_HEADER.size, string_offset, len(strings.data()), attr_offset, len(blob.data),
        model.weights.size, name_id, soc_id, len(inputs), len(outputs),
        int(model.dynamic_type), len(model.plans[0].gear), int(model.precision), dynamic_index,
        len(model.subgraphs), sub_offset)
    data = section.data
    data[: len(header)] = header
    for i, record in enumerate(plan_records):
        start = F.MODEL_DEF_HEADER.size + i * F.PLAN.size
        data[start:start + F.PLAN.size] = record
    return bytes(data)


def _io_names(model: OmModel) -> tuple[list[str], list[str]]:
    graph = model.plans[0].graph
    inputs = [v.name for v in graph.inputs]
    if model.dynamic_type != F.DynamicType.FIXED:
        inputs.append(F.DYNAMIC_INPUT_NAME)
    return inputs, [v.name for v in graph.outputs]


def _plan(plan: OmPlan, model: OmModel, section: _Section, strings: StringTable, blob: AttrBlob, *,
          subgraph: bool = False) -> bytes:
    """A PLAN record (a SUBGRAPH record, with the subgraph's own input and output counts, for a subgraph)."""
    graph = plan.graph
    ids: dict[int, int] = {}
    tensors: list[bytes] = []

    def tensor_id(value: Value) -> int:
        if id(value) not in ids:
            ids[id(value)] = len(tensors)
            tensors.append(_tensor(value, graph, plan.memory, model, strings))
        return ids[id(value)]

    for value in graph.inputs + graph.outputs:
        tensor_id(value)
    nodes = []
    for node in graph.nodes:
        io = [tensor_id(v) if v is not None else F.NO_TENSOR for v in node.inputs]
        io += [tensor_id(v) for v in node.outputs]
        io_offset = section.add(np.asarray(io, dtype="<u4").tobytes())
        attr_offset, attr_count = blob.add_attrs(node.attrs, f"node {node.name!r} ({node.op_type})")
        flags = plan.node_flags.get(node.name, 0)
        # A planned alias; in a dynamic-shape model (no offsets) every view op, whose output may alias (§11).
        planned_alias = bool(node.outputs) and node.outputs[0].name in plan.memory.aliases
        if planned_alias or (model.dynamic_shape and node.op_type in VIEW_OPS and not node.domain):
            flags |= F.NodeFlag.VIEW
        if model.dynamic_shape and not all(v.is_static for v in node.outputs):
            flags |= F.NodeFlag.SHAPE_DEPENDENT
        nodes.append(F.NODE.pack(strings.add(node.name), strings.add(node.op_type), strings.add(node.domain),
                                 node.stream, len(node.inputs), len(node.outputs), io_offset, attr_offset,
                                 attr_count, int(flags), 0, 0))
    tensor_offset = section.add(b"".join(tensors))
    node_offset = section.add(b"".join(nodes))
    input_ids = [ids[id(v)] for v in graph.inputs]
    if model.dynamic_type != F.DynamicType.FIXED and not subgraph:
        input_ids.append(F.NO_TENSOR)
    in_offset = section.add(np.asarray(input_ids, dtype="<u4").tobytes())
    out_offset = section.add(np.asarray([ids[id(v)] for v in graph.outputs], dtype="<u4").tobytes())
    gear_offset = section.add(np.asarray(plan.gear, dtype="<i8").tobytes()) if plan.gear else 0
    if subgraph:
        return F.SUBGRAPH.pack(0, len(tensors), tensor_offset, len(nodes), node_offset, 1, 0, in_offset, out_offset,
                               0, len(graph.inputs), len(graph.outputs))
    return F.PLAN.pack(plan.memory.arena_size, len(tensors), tensor_offset, len(nodes), node_offset,
                       plan.streams.stream_count, plan.streams.event_count, in_offset, out_offset, gear_offset)


def _dims(value: Value, model: OmModel) -> list[int]:
    """The shape as written: a symbolic dim of a dynamic-shape model is -1."""
    if value.dtype is None or value.shape is None or not (value.is_static or model.dynamic_shape):
        raise ValueError(f"tensor {value.name!r} has no static shape and dtype ({value.shape}, {value.dtype})")
    return [-1 if isinstance(d, str) else int(d) for d in value.shape]


def _tensor(value: Value, graph: Graph, memory: MemoryPlan, model: OmModel, strings: StringTable) -> bytes:
    shape = _dims(value, model)
    dynamic = any(d < 0 for d in shape)
    if dynamic and not model.dynamic_shape and not (model.single_op and (value in graph.inputs or value in graph.outputs)):
        raise ValueError(f"tensor {value.name!r} has dims {shape}; only single-operator inputs/outputs are dynamic")
    if len(shape) > F.MAX_RANK:
        raise ValueError(f"tensor {value.name!r} has rank {len(shape)}; a .om tensor has at most {F.MAX_RANK}")
    io_index = F.NO_TENSOR
    if value in graph.outputs:
        kind, offset, io_index = F.TensorKind.OUTPUT, 0, graph.outputs.index(value)
    elif value in graph.inputs:
        kind, offset, io_index = F.TensorKind.INPUT, 0, graph.inputs.index(value)
    elif value.is_constant:
        kind, offset = F.TensorKind.WEIGHT, model.weights.offsets[value.name]
    else:
        kind, offset = F.TensorKind.FEATURE_MAP, memory.offsets[value.name] if not model.dynamic_shape else 0
    dims = shape + [0] * (F.MAX_RANK - len(shape))
    return F.TENSOR.pack(strings.add(value.name), int(value.dtype), F.format_id(value.format), kind, len(shape),
                         io_index, offset, 0 if dynamic else value.nbytes, *dims)


# ---- TASK_INFO -------------------------------------------------------------------------------------------


def _task_info(model: OmModel) -> bytes:
    section = _Section(b"\0" * (F.TASK_HEADER.size + F.TASK_DIR.size * len(model.plans)))
    directory = []
    for plan in model.plans:
        waits: dict[int, list[bytes]] = {}
        records: dict[int, list[bytes]] = {}
        for e in plan.streams.events:
            waits.setdefault(e.wait_node, []).append(
                F.TASK.pack(F.TaskType.EVENT_WAIT, e.wait_stream, e.event_id, e.wait_node))
            records.setdefault(e.record_node, []).append(
                F.TASK.pack(F.TaskType.EVENT_RECORD, e.record_stream, e.event_id, e.record_node))
        tasks = []
        for i, node in enumerate(plan.graph.nodes):
            tasks += waits.get(i, [])
            tasks.append(F.TASK.pack(F.TaskType.KERNEL, node.stream, i, i))
            tasks += records.get(i, [])
        directory.append(F.TASK_DIR.pack(len(tasks), section.add(b"".join(tasks))))
    head = F.TASK_HEADER.pack(F.TASK_INFO_MAGIC, F.FORMAT_MAJOR, model.minor, F.TASK_HEADER.size,
                              len(model.plans)) + b"".join(directory)
    section.data[: len(head)] = head
    return bytes(section.data)


# ---- MODEL_INOUT_INFO ------------------------------------------------------------------------------------


def _inout_info(model: OmModel) -> bytes:
    graphs = [p.graph for p in model.plans]
    images = {a.input_index: a.src_dims for a in model.aipp}
    inputs = [_io_desc([g.inputs[i] for g in graphs], model, images.get(i)) for i in range(len(graphs[0].inputs))]
    if model.dynamic_type != F.DynamicType.FIXED:
        count = len(model.plans[0].gear)
        dtype = DType(F.DYNAMIC_INPUT_DTYPE)
        inputs.append(_desc(F.DYNAMIC_INPUT_NAME, dtype.itemsize * count, F.FORMATS["ND"], dtype, dims=[count],
                            dims_v2=[count], ranges=[]))
    outputs = [_io_desc([g.outputs[i] for g in graphs], model) for i in range(len(graphs[0].outputs))]
    blocks = [_tlv(F.ModelDescType.MODEL_INPUT_DESC, struct.pack("<I", len(inputs)) + b"".join(inputs)),
              _tlv(F.ModelDescType.MODEL_OUTPUT_DESC, struct.pack("<I", len(outputs)) + b"".join(outputs))]
    gears = [p.gear for p in model.plans]
    if model.dynamic_type == F.DynamicType.DYNAMIC_BATCH:
        blocks.append(_tlv(F.ModelDescType.MODEL_DYNAMIC_BATCH, _vec_int([g[0] for g in gears])))
    elif model.dynamic_type == F.DynamicType.DYNAMIC_IMAGE:
        blocks.append(_tlv(F.ModelDescType.MODEL_DYNAMIC_HW, _vec_int_int(gears)))
    elif model.dynamic_type == F.DynamicType.DYNAMIC_DIMS:
        blocks.append(_tlv(F.ModelDescType.MODEL_DYNAMIC_DIMS, _vec_int_int(gears)))
        blocks.append(_tlv(F.ModelDescType.MODEL_DESIGNATE_SHAPE_ORDER, _vec_str(model.dynamic_inputs)))
    if model.aipp:
        blocks.append(_tlv(F.ModelDescType.MODEL_AIPP_INFO, _aipp_info(model.aipp, len(model.plans))))
        blocks.append(_tlv(F.ModelDescType.MODEL_AIPP_IMAGE_DIMS, _aipp_image_dims(model.aipp, len(model.plans))))
    return b"".join(blocks)


def _aipp_info(infos: list[AippInfo], plan_count: int) -> bytes:
    out = struct.pack("<II", len(infos), plan_count)
    for a in infos:
        if len(a.out_dims) != plan_count:
            raise ValueError(f"AIPP of input {a.input_index}: {len(a.out_dims)} output shapes for {plan_count} plans")
        out += F.AIPP_INFO.pack(
            a.input_index, F.AIPP_STATIC, a.format_id, a.src_w, a.src_h, a.crop, False, a.padding, a.csc, a.rbuv_swap,
            a.ax_swap, False, 0, a.load_start_w, a.load_start_h, a.crop_w, a.crop_h, 0, 0, *a.pads, *a.matrix,
            *a.output_bias, *a.input_bias, *a.mean, *a.min, *a.var_reci, a.padding_value, F.FORMATS["NHWC"],
            int(DType.UINT8), F.FORMATS[a.out_format], int(a.out_dtype), 4)
        out += np.asarray(a.out_dims, "<i8").reshape(plan_count, 4).tobytes()
    return out


def _aipp_image_dims(infos: list[AippInfo], plan_count: int) -> bytes:
    """Per record (MODEL_AIPP_INFO's order) and plan the image dims aclmdlGetInputDims and aclAippInfo's
    srcDims report (a separate TLV so that loaders of format < 1.3 skip it)."""
    if any(len(a.src_dims) != plan_count for a in infos):
        raise ValueError(f"AIPP image dims missing for some of the {plan_count} plans")
    return struct.pack("<II", len(infos), plan_count) + np.asarray([a.src_dims for a in infos], "<i8").tobytes()


def _io_desc(per_plan: list[Value], model: OmModel, image_dims: list[tuple[int, ...]] | None = None) -> bytes:
    """One input/output over every plan: dims that differ between gears are reported as -1, the size and
    dimsV2 are those of the largest gear, the shape range is (min, max) per dim. A single-operator model's
    dims are its JSON shape (-1, [-2]: size 0) and its ranges those of the JSON (docs/om-format.md §10.5).
    A static-AIPP input's dims (and ranges) are those of the image (`image_dims` per plan, GE's
    [N, H, W, C] of aclmdlGetInputDims); dimsV2 and the size stay the raw tensor's (aclmdlGetInputDimsV2)."""
    if model.single_op or model.dynamic_shape:
        value = per_plan[0]
        assert value.dtype is not None
        dims = _dims(value, model)
        ranges = model.shape_ranges.get(value.name, [])
        if model.dynamic_shape and value.name in model.shape_ranges and not ranges:
            dims = [-2]  # unknown rank
        size = 0 if any(d < 0 for d in dims) else value.nbytes
        if model.dynamic_shape and ranges and all(high > 0 for _, high in ranges):  # bounded: the largest shape
            size = math.prod(high for _, high in ranges) * value.dtype.itemsize
        return _desc(value.name, size, F.format_id(value.format), value.dtype, dims=dims, dims_v2=dims,
                     ranges=ranges)
    raw = [[int(d) for d in v.shape] for v in per_plan]  # type: ignore[union-attr, arg-type]
    shapes = [list(d) for d in image_dims] if image_dims else raw
    largest = max(range(len(per_plan)), key=lambda i: per_plan[i].nbytes)
    dims = [d if all(s[k] == d for s in shapes) else -1 for k, d in enumerate(shapes[0])]
    ranges = [(min(s[k] for s in shapes), max(s[k] for s in shapes)) for k in range(len(dims))] \
        if len(per_plan) > 1 else []
    value = per_plan[largest]
    return _desc(value.name, value.nbytes, F.format_id(value.format), value.dtype,
                 dims=dims, dims_v2=raw[largest], ranges=ranges)  # type: ignore[arg-type]


def _desc(name: str, size: int, fmt: int, dtype: DType, *, dims: list[int], dims_v2: list[int],
          ranges: list[tuple[int, int]]) -> bytes:
    raw = name.encode("utf-8")
    return (F.TENSOR_DESC_BASE.pack(size, fmt, int(dtype), len(raw), 8 * len(dims), 8 * len(dims_v2),
                                    16 * len(ranges))
            + raw + np.asarray(dims, "<i8").tobytes() + np.asarray(dims_v2, "<i8").tobytes()
            + np.asarray(ranges, "<i8").reshape(-1).tobytes())


def _tlv(kind: F.ModelDescType, value: bytes) -> bytes:
    return F.TLV.pack(kind, len(value)) + value


def _vec_int(values: list[int]) -> bytes:
    return struct.pack("<I", len(values)) + np.asarray(values, "<i8").tobytes()


def _vec_int_int(rows: list[tuple[int, ...]]) -> bytes:
    return (struct.pack("<I", len(rows)) + np.asarray([len(r) for r in rows], "<u4").tobytes()
            + b"".join(np.asarray(r, "<i8").tobytes() for r in rows))


def _vec_str(items: list[str]) -> bytes:
    raw = [s.encode("utf-8") for s in items]
    return struct.pack("<I", len(raw)) + np.asarray([len(r) for r in raw], "<u4").tobytes() + b"".join(raw)
