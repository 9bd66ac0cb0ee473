"""Reads and validates a `.om` file written by om_writer, applying the checks docs/om-format.md asks of every
loader (the C++ runtime applies the same ones): header magic/sizes, payload length, partition table bounds,
exact consumption of the payload, record bounds, string ids, tensor ids, event ids, task order. Used by
`atc --mode=1` (OM -> JSON) and by the tests, which round-trip every compiled model.
"""

from __future__ import annotations

import hashlib
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
    header = _header(raw)
    partitions = _partitions(raw, header)
    model, plans = _model_def(raw, partitions)
    tasks = _task_info(raw, partitions, plans)
    inout = _inout(raw, partitions)
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
     dynamic_index) = F.MODEL_DEF_HEADER.unpack_from(data)
    _check(magic == F.MODEL_DEF_MAGIC, f"MODEL_DEF magic {magic!r} is not {F.MODEL_DEF_MAGIC!r}")
    _check(major == F.FORMAT_MAJOR, f"MODEL_DEF format version {major}.{minor}; this reader reads {F.FORMAT_MAJOR}.x")
    _check(header_size >= F.MODEL_DEF_HEADER.size, f"bad MODEL_DEF header size {header_size}")
    _check(plan_count >= 1 and plan_offset + plan_count * F.PLAN.size <= size, "plan table out of bounds")
    _check(str_offset + str_size <= size and attr_offset + attr_size <= size, "string/attr section out of bounds")
    strings = data[str_offset:str_offset + str_size]
    _check(str_size > 0 and strings[0] == 0 and strings[-1] == 0, "the string table must start and end with NUL")
    blob = data[attr_offset:attr_offset + attr_size]
    _check(weight_size == partitions["WEIGHTS_DATA"][1], "weight size differs from the WEIGHTS_DATA partition")
    model = {"format_version": f"{major}.{minor}", "flags": flags, "plan_count": plan_count,
             "name": string_at(strings, name), "soc_version": string_at(strings, soc), "weight_size": weight_size,
             "input_count": input_count, "output_count": output_count,
             "dynamic_type": F.DynamicType(dynamic_type).name, "gear_dim_count": gear_dims,
             "precision_mode": F.Precision(precision).name.lower(),
             "dynamic_input_index": -1 if dynamic_index == F.NO_TENSOR else dynamic_index}
    plans = [_plan(data, plan_offset + i * F.PLAN.size, strings, blob, model) for i in range(plan_count)]
    return model, plans


def _array(data: bytes, offset: int, dtype: str, count: int, what: str) -> list[int]:
    _check(offset + np.dtype(dtype).itemsize * count <= len(data), f"{what} out of bounds")
    return np.frombuffer(data, dtype, count, offset).tolist()


def _plan(data: bytes, offset: int, strings: bytes, blob: bytes, model: dict[str, Any]) -> dict[str, Any]:
    (arena, tensor_count, tensor_offset, node_count, node_offset, stream_count, event_count, in_offset, out_offset,
     gear_offset) = F.PLAN.unpack_from(data, offset)
    _check(tensor_offset + tensor_count * F.TENSOR.size <= len(data), "tensor table out of bounds")
    _check(node_offset + node_count * F.NODE.size <= len(data), "node table out of bounds")
    weight_size = model["weight_size"]
    tensors = []
    for i in range(tensor_count):
        name, dtype, fmt, kind, rank, io_index, t_offset, t_size, *dims = F.TENSOR.unpack_from(
            data, tensor_offset + i * F.TENSOR.size)
        _check(rank <= F.MAX_RANK, f"tensor {i}: rank {rank} > {F.MAX_RANK}")
        _check(dtype in DType._value2member_map_, f"tensor {i}: unknown dtype {dtype}")
        _check(fmt in F.FORMAT_NAMES, f"tensor {i}: unknown format {fmt}")
        shape = dims[:rank]
        expected = int(np.prod(shape, dtype=np.int64)) * DType(dtype).itemsize
        _check(t_size == expected, f"tensor {i}: size {t_size} != dims {shape} x itemsize")
        kind_name = F.TensorKind(kind).name
        limit = arena if kind == F.TensorKind.FEATURE_MAP else weight_size if kind == F.TensorKind.WEIGHT else None
        if limit is not None:
            _check(t_offset % 512 == 0 and t_offset + t_size <= limit,
                   f"tensor {i} ({kind_name}): [{t_offset}, +{t_size}) not aligned or outside its region")
        tensors.append({"name": string_at(strings, name), "dtype": DType(dtype).name, "format": F.FORMAT_NAMES[fmt],
                        "kind": kind_name, "dims": shape, "offset": t_offset, "size": t_size,
                        "io_index": -1 if io_index == F.NO_TENSOR else io_index})
    nodes = []
    for i in range(node_count):
        (name, op, domain, stream, n_in, n_out, io_offset, a_offset, a_count, flags, _r1, _r2) = F.NODE.unpack_from(
            data, node_offset + i * F.NODE.size)
        io = _array(data, io_offset, "<u4", n_in + n_out, f"node {i} tensor ids")
        _check(all(t < tensor_count for t in io[n_in:]) and all(t < tensor_count or t == F.NO_TENSOR
                                                                 for t in io[:n_in]), f"node {i}: bad tensor id")
        _check(stream < stream_count, f"node {i}: stream {stream} >= stream count {stream_count}")
        _check(a_offset + a_count * 24 <= len(blob), f"node {i}: attributes out of bounds")
        nodes.append({"name": string_at(strings, name), "op_type": string_at(strings, op),
                      "domain": string_at(strings, domain), "stream": stream,
                      "inputs": [-1 if t == F.NO_TENSOR else t for t in io[:n_in]], "outputs": io[n_in:],
                      "attrs": _jsonable(decode_attrs(blob, strings, a_offset, a_count)),
                      "flags": [f.name for f in F.NodeFlag if flags & f]})
    inputs = _array(data, in_offset, "<u4", model["input_count"], "input ids")
    outputs = _array(data, out_offset, "<u4", model["output_count"], "output ids")
    gear = _array(data, gear_offset, "<i8", model["gear_dim_count"], "gear values") if gear_offset else []
    return {"feature_map_size": arena, "stream_count": stream_count, "event_count": event_count, "gear": gear,
            "inputs": [-1 if t == F.NO_TENSOR else t for t in inputs], "outputs": outputs,
            "tensors": tensors, "nodes": nodes}


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
    result = []
    for p, plan in enumerate(plans):
        count, offset = F.TASK_DIR.unpack_from(data, header_size + p * F.TASK_DIR.size)
        _check(offset + count * F.TASK.size <= size, f"plan {p}: task list out of bounds")
        tasks, next_node, recorded = [], 0, set()
        for i in range(count):
            kind, stream, arg, node = F.TASK.unpack_from(data, offset + i * F.TASK.size)
            _check(kind in F.TaskType._value2member_map_, f"plan {p} task {i}: unknown type {kind}")
            _check(stream < plan["stream_count"], f"plan {p} task {i}: bad stream {stream}")
            if kind == F.TaskType.KERNEL:
                _check(arg == next_node, f"plan {p} task {i}: kernels must follow node order")
                _check(plan["nodes"][arg]["stream"] == stream, f"plan {p} task {i}: stream differs from the node's")
                next_node += 1
            else:
                _check(arg < plan["event_count"], f"plan {p} task {i}: event id {arg} >= {plan['event_count']}")
                if kind == F.TaskType.EVENT_RECORD:
                    recorded.add(arg)
                else:
                    _check(arg in recorded, f"plan {p} task {i}: waits for event {arg} before it is recorded")
            tasks.append({"type": F.TaskType(kind).name, "stream": stream, "arg": arg, "node": node})
        _check(next_node == len(plan["nodes"]), f"plan {p}: {next_node} kernels for {len(plan['nodes'])} nodes")
        result.append(tasks)
    return result


def _inout(raw: bytes, partitions: dict[str, tuple[int, int]]) -> dict[str, Any]:
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
            result[key] = _vec_str(value)
        elif kind == F.ModelDescType.MODEL_AIPP_INFO:
            result["aipp"] = _aipp_info(value)
        # unknown TLV types are skipped (forward compatibility), as GE does
    return result


def _descs(value: bytes) -> list[dict[str, Any]]:
    (count,) = struct.unpack_from("<I", value)
    cursor, descs = 4, []
    for _ in range(count):
        _check(cursor + F.TENSOR_DESC_BASE.size <= len(value), "truncated tensor description")
        size, fmt, dt, name_len, dims_len, v2_len, range_len = F.TENSOR_DESC_BASE.unpack_from(value, cursor)
        cursor += F.TENSOR_DESC_BASE.size
        _check(cursor + name_len + dims_len + v2_len + range_len <= len(value), "tensor description out of bounds")
        name = value[cursor:cursor + name_len].decode("utf-8")
        cursor += name_len
        dims = _array(value, cursor, "<i8", dims_len // 8, "dims")
        cursor += dims_len
        dims_v2 = _array(value, cursor, "<i8", v2_len // 8, "dimsV2")
        cursor += v2_len
        ranges = _array(value, cursor, "<i8", range_len // 8, "shape range")
        cursor += range_len
        descs.append({"name": name, "size": size, "format": F.FORMAT_NAMES.get(fmt, fmt), "dtype": DType(dt).name,
                      "dims": dims, "dims_v2": dims_v2, "shape_range": [ranges[i:i + 2] for i in range(0, len(ranges), 2)]})
    return descs


def _vec_int_int(value: bytes) -> list[list[int]]:
    (n,) = struct.unpack_from("<I", value)
    parts = _array(value, 4, "<u4", n, "gear sizes")
    cursor, rows = 4 + 4 * n, []
    for part in parts:
        rows.append(_array(value, cursor, "<i8", part, "gear values"))
        cursor += 8 * part
    return rows


def _vec_str(value: bytes) -> list[str]:
    (n,) = struct.unpack_from("<I", value)
    lengths = _array(value, 4, "<u4", n, "string lengths")
    cursor, items = 4 + 4 * n, []
    for length in lengths:
        items.append(value[cursor:cursor + length].decode("utf-8"))
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


def _aipp_info(value: bytes) -> list[dict[str, Any]]:
    _check(len(value) >= 8, "truncated MODEL_AIPP_INFO")
    count, plan_count = struct.unpack_from("<II", value)
    cursor, records = 8, []
    for _ in range(count):
        _check(cursor + F.AIPP_INFO.size <= len(value), "MODEL_AIPP_INFO record out of bounds")
        fields = F.AIPP_INFO.unpack_from(value, cursor)
        record = {k: v for k, v in zip(_AIPP_FIELDS, fields) if k is not None}
        cursor += F.AIPP_INFO.size
        rank = record["out_rank"]
        dims = _array(value, cursor, "<i8", plan_count * rank, "AIPP output dims")
        cursor += 8 * plan_count * rank
        _check(record["aipp_type"] == F.AIPP_STATIC, f"unknown AIPP type {record['aipp_type']}")
        for key in ("src_format", "out_format"):
            record[key] = F.FORMAT_NAMES.get(record[key], record[key])
        for key in ("src_dtype", "out_dtype"):
            record[key] = DType(record[key]).name
        record["out_dims"] = [dims[i * rank:(i + 1) * rank] for i in range(plan_count)]
        records.append(record)
    _check(cursor == len(value), "MODEL_AIPP_INFO has trailing bytes")
    return records
