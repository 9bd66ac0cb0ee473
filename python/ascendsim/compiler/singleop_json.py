"""ATC's single-operator JSON (`atc --singleop=list.json`), read as GE's SingleOpParser reads it.

The file is a list of operator entries:

    [{"op": "Add", "name": "add1"?, "compile_flag": 0?,
      "input_desc": [{"format": "ND", "type": "int32", "shape": [8, 16], "shape_range": [[1, -1]]?,
                      "name": "x1"?, "dynamic_input": "x"?, "is_const": false?, "const_value": [...]?,
                      "origin_format": "ND"?, "origin_shape": [...]?}],
      "output_desc": [...same keys...],
      "attr": [{"name": "alpha", "type": "float", "value": 1.0}]}]

GE's rules kept here: type and format names are case-insensitive; a JSON value of the wrong kind fails the whole
file with E10032 and nlohmann's message; an unknown dtype/format is E10027, an empty op type E10026, an empty
attribute name E10029, an attribute of an unknown type E10030 (ATC has no `list_data_type`); a -1 dim needs one
`shape_range` entry [min, max] (max -1 = unbounded), the unknown-rank shape is exactly [-2] (E13014); an entry
with "compile_flag": 1 produces no model. Types and formats ATC knows but ascendsim does not run are refused
with E10055. The file names are GE's GenerateFileName (docs/om-format.md §10.1).
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from . import om_format as F
from .errors import CompileError
from .ir import DType
from .om_attrs import Typed

# GE single_op_parser kDataTypeDict (lower-case keys); None: ATC knows it, ascendsim has no such tensors.
DTYPES: dict[str, DType | None] = {
    "bool": DType.BOOL, "int8": DType.INT8, "uint8": DType.UINT8, "int16": DType.INT16, "uint16": DType.UINT16,
    "int32": DType.INT32, "uint32": DType.UINT32, "int64": DType.INT64, "uint64": DType.UINT64,
    "float16": DType.FLOAT16, "half": DType.FLOAT16, "fp16": DType.FLOAT16, "float": DType.FLOAT,
    "float32": DType.FLOAT, "double": DType.DOUBLE, "complex32": None, "complex64": None, "complex128": None,
    "uint1": None, "bfloat16": None, "int4": None, "hifloat8": None, "float8_e5m2": None, "float8_e4m3fn": None,
}
# GE kFormatDict (lower-case keys) -> the aclFormat name of docs/om-format.md §4.3, None if ascendsim lacks it.
FORMATS: dict[str, str | None] = {name.lower(): name for name in F.FORMATS}
FORMATS.update({name: None for name in (
    "nc1c0hwpad", "nhwc1c0", "fsr_nchw", "fractal_deconv", "c1hwnc0", "fractal_deconv_transpose",
    "fractal_deconv_sp_stride_trans", "fractal_z_c04", "chwn", "deconv_sp_stride8_trans", "nc1khkwhwc0",
    "bn_weight", "filter_hwck", "lookup_lookups", "lookup_keys", "lookup_value", "lookup_output", "lookup_hits",
    "md", "c1hwncoc0", "dhwcn", "dhwnc", "fractal_z_3d_transpose", "cn", "nc", "fractal_zn_lstm", "fractal_z_g")})
# GE's SerialStringToDataType names for a `data_type` attribute given as a string.
DATA_TYPE_NAMES: dict[str, DType | None] = {f"DT_{t.name}": t for t in DType}
DATA_TYPE_NAMES.update({name: None for name in (
    "DT_BF16", "DT_COMPLEX32", "DT_COMPLEX64", "DT_COMPLEX128", "DT_QINT8", "DT_QINT16", "DT_QINT32",
    "DT_QUINT8", "DT_QUINT16", "DT_RESOURCE", "DT_STRING", "DT_STRING_REF", "DT_DUAL", "DT_VARIANT", "DT_INT4",
    "DT_UINT1", "DT_INT2", "DT_UINT2", "DT_HIFLOAT8", "DT_FLOAT8_E5M2", "DT_FLOAT8_E4M3FN")})
UNKNOWN_RANK = [-2]  # GE's UNKNOWN_RANK shape
MAX_FILE_NAME = 128  # GE kMaxFileNameLen
VALID_FILE_NAME = re.compile(r"[a-zA-Z0-9._-]+")


@dataclass
class TensorSpec:
    """One input or output of an entry."""

    name: str
    dtype: DType
    format: str  # aclFormat name
    shape: list[int]  # -1 dynamic dims, or [-2] (unknown rank)
    shape_range: list[tuple[int, int]] = field(default_factory=list)  # per dim (GE SetShapeRange); [] if static
    const: np.ndarray | None = None  # is_const inputs: the value

    @property
    def is_dynamic(self) -> bool:
        return any(d < 0 for d in self.shape)


@dataclass
class SingleOp:
    """One operator entry of the JSON list: what its single-operator model holds."""

    op_type: str
    name: str  # the node name: the entry's name, else the op type (GE CreateOpDesc)
    inputs: list[TensorSpec]
    outputs: list[TensorSpec]
    attrs: dict[str, Typed]
    file_name: str  # GE GenerateFileName, with ".om"


class _JsonError(Exception):
    """A JSON value of the wrong kind: nlohmann's exception text, reported as E10032 for the whole file."""


def parse_single_op_list(path: str) -> list[SingleOp]:
    """Every entry of the file, validated; raises CompileError with ATC's code and message otherwise."""
    if not path or not Path(path).is_file():
        raise CompileError(f"E10023: Value {path} for parameter --singleop is invalid.")
    real_path = os.path.realpath(path)
    try:
        raw = Path(real_path).read_bytes()
    except OSError:
        raise CompileError(f"E10024: Failed to open file {path} specified by --singleop.") from None
    try:
        document = json.loads(raw.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        where = f"line {error.lineno}, column {error.colno}" if isinstance(error, json.JSONDecodeError) else \
            f"byte {error.start + 1}"
        message = error.msg if isinstance(error, json.JSONDecodeError) else "invalid UTF-8 byte"
        reason = f"[json.exception.parse_error.101] parse error at {where}: syntax error while parsing value - {message}"
        raise CompileError(f"E10025: File {real_path} specified by --singleop is not a valid JSON file. "
                           f"Reason: {reason}.") from None
    try:
        entries = _as_list(document, lambda entry: entry)
        ops: list[SingleOp] = []
        for entry in entries:
            if isinstance(entry, dict) and "compile_flag" in entry and _as_int(entry["compile_flag"]) == 1:
                continue  # GE: the flag entry only sets compile_flag for the entries after it
            ops.append(_single_op(entry, len(ops)))
        return ops
    except _JsonError as error:
        raise CompileError(f"E10032: Parse json file {path} failed. Reason: {error}.") from None


# ---- JSON values, converted as nlohmann::json::get<T> does ----------------------------------------------------

def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "string", list: "array", dict: "object"}[type(value)]


def _type_error(expected: str, value: Any) -> _JsonError:
    return _JsonError(f"[json.exception.type_error.302] type must be {expected}, but is {_kind(value)}")


def _at(obj: dict[str, Any], key: str) -> Any:
    if key not in obj:
        raise _JsonError(f"[json.exception.out_of_range.403] key '{key}' not found")
    return obj[key]


def _as_str(value: Any) -> str:
    if not isinstance(value, str):
        raise _type_error("string", value)
    return value


def _as_bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _type_error("boolean", value)
    return value


def _as_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _type_error("number", value)
    return int(value)  # nlohmann converts a float to an integer type by truncation


def _as_float(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _type_error("number", value)
    return float(np.float32(value))  # ATC stores a C float


def _as_list(value: Any, item: Callable[[Any], Any]) -> list[Any]:
    if not isinstance(value, list):
        raise _type_error("array", value)
    return [item(v) for v in value]


def _int_list(value: Any) -> list[int]:
    return _as_list(value, _as_int)


# ---- one entry ------------------------------------------------------------------------------------------------

@dataclass
class _RawTensor:
    dtype: DType | None  # None: a name ATC knows that ascendsim lacks (E10055)
    dtype_name: str
    format: str | None
    format_name: str
    dtype_known: bool
    format_known: bool
    valid: bool  # GE is_valid: type, format and origin_format names all known
    shape: list[int]
    ranges: list[list[int]]
    name: str
    dynamic_input: str
    is_const: bool
    const_value: list[Any] | None


def _raw_tensor(obj: Any) -> _RawTensor:
    if not isinstance(obj, dict):
        raise _JsonError(f"[json.exception.type_error.304] cannot use at() with {_kind(obj)}")
    shape = _int_list(_at(obj, "shape"))
    ranges = _as_list(obj["shape_range"], _int_list) if "shape_range" in obj else []
    if "origin_shape" in obj:
        _int_list(obj["origin_shape"])
    format_name = _as_str(_at(obj, "format")).lower()
    dtype_name = _as_str(_at(obj, "type")).lower()
    valid = format_name in FORMATS and dtype_name in DTYPES
    if "origin_format" in obj:
        valid = valid and _as_str(obj["origin_format"]).lower() in FORMATS
    name = _as_str(obj["name"]) if "name" in obj else ""
    dynamic_input = _as_str(obj["dynamic_input"]) if "dynamic_input" in obj else ""
    is_const = _as_bool(obj["is_const"]) if "is_const" in obj else False
    const_value = obj.get("const_value") if isinstance(obj.get("const_value"), list) else None
    return _RawTensor(DTYPES.get(dtype_name), dtype_name, FORMATS.get(format_name), format_name,
                      dtype_name in DTYPES, format_name in FORMATS, valid, shape, ranges, name, dynamic_input,
                      is_const, const_value)


def _single_op(entry: Any, index: int) -> SingleOp:
    obj = entry if isinstance(entry, dict) else {}
    op_type = _as_str(obj["op"]) if "op" in obj else ""
    name = _as_str(obj["name"]) if "name" in obj else ""
    inputs = _as_list(obj["input_desc"], _raw_tensor) if "input_desc" in obj else []
    outputs = _as_list(obj["output_desc"], _raw_tensor) if "output_desc" in obj else []
    attrs = _as_list(obj["attr"], _raw_attr) if "attr" in obj else []
    if "compile_flag" in obj:
        _as_int(obj["compile_flag"])
    _name_dynamic_inputs(inputs)
    _validate(op_type, inputs, outputs, attrs)
    node_name = name or op_type
    return SingleOp(
        op_type, node_name,
        [_tensor(t, node_name, op_type, "input", i) for i, t in enumerate(inputs)],
        [_tensor(t, node_name, op_type, "output", i) for i, t in enumerate(outputs)],
        {attr_name: value for attr_name, _type, value in attrs if value is not None},
        _file_name(name, index, op_type, inputs, outputs))


def _name_dynamic_inputs(inputs: list[_RawTensor]) -> None:
    """GE UpdateDynamicTensorName: the k-th input of dynamic input "x" is named "x<k>"."""
    counts: dict[str, int] = {}
    for tensor in inputs:
        if tensor.dynamic_input:
            k = counts.get(tensor.dynamic_input, 0)
            counts[tensor.dynamic_input] = k + 1
            tensor.name = f"{tensor.dynamic_input}{k}"


def _validate(op_type: str, inputs: list[_RawTensor], outputs: list[_RawTensor],
              attrs: list[tuple[str, str, Typed | None]]) -> None:
    """GE SingleOpParser::Validate, in its order."""
    if not op_type:
        raise CompileError("E10026: The Op name is empty in the file specified by --singleop.")

    def invalid(what: str, role: str, index: int) -> CompileError:
        return CompileError(f"E10027: Attribute {what} of {role} tensor {index} for Op {op_type} is invalid when "
                            "--singleop is specified.")

    for i, t in enumerate(inputs):
        if not t.dtype_known and t.format_known:
            raise invalid("datatype", "input", i)
        if t.dtype_known and not t.format_known:
            raise invalid("format", "input", i)
        if not t.valid:
            raise invalid("dataType or format", "input", i)
    for i, t in enumerate(outputs):
        for what, known in (("datatype", t.dtype_known), ("format", t.format_known),
                            ("dataType or format", t.valid)):
            if not known:
                raise invalid(what, "output", i)
    for attr_name, _type, value in attrs:
        if not attr_name:
            raise CompileError(f"E10029: Attribute name of Op {op_type} is empty in the file specified by "
                               "--singleop.")
        if value is None:
            raise CompileError(f"E10030: There is an invalid value for attribute name {attr_name} of Op {op_type} "
                               "in the file specified by --singleop.")


def _unsupported(reason: str) -> CompileError:
    return CompileError(f"E10055: The operation is not supported. Reason: {reason}.")


def _shape_error(node: str, parameter: str, value: str, reason: str) -> CompileError:
    return CompileError(f"E13014: Value {value} of parameter {parameter} for Op {node} is invalid. Reason: {reason}.")


def _tensor(raw: _RawTensor, node: str, op_type: str, role: str, index: int) -> TensorSpec:
    where = f"{role} tensor {index} of Op {op_type}"
    if raw.dtype is None:
        raise _unsupported(f"data type {raw.dtype_name} of {where} is not supported by ascendsim (supported: "
                           f"{', '.join(k for k, v in DTYPES.items() if v is not None)})")
    if raw.format is None:
        raise _unsupported(f"format {raw.format_name.upper()} of {where} is not supported by ascendsim (supported: "
                           f"{', '.join(F.FORMATS)})")
    shape_text = "[" + ",".join(str(d) for d in raw.shape) + "]"
    if len(raw.shape) > F.MAX_RANK:
        raise _shape_error(node, "shape", shape_text, f"The rank of the {role} tensor exceeds {F.MAX_RANK}")
    name = raw.name or f"__{role}{index}"
    spec = TensorSpec(name, raw.dtype, raw.format, raw.shape, _shape_range(raw, node, shape_text))
    if role == "input" and raw.is_const:
        spec.const = _const_value(raw, node, shape_text)
    return spec


def _shape_range(raw: _RawTensor, node: str, shape_text: str) -> list[tuple[int, int]]:
    """GE SetShapeRange: one (min, max) per dim for a shape with -1 dims; none for static or unknown rank."""
    if -2 in raw.shape:
        if raw.shape != UNKNOWN_RANK:
            raise _shape_error(node, "shape", shape_text, "The tensor has unknown rank, so its shape must be set "
                                                          "to {-2}")
        if raw.ranges:
            raise _shape_error(node, "shape range size", str(len(raw.ranges)),
                               "The tensor has dynamic dimensions, but the shape range is not empty")
        return []
    if any(d < -2 for d in raw.shape):
        raise _shape_error(node, "shape", shape_text, "A dimension must be -1 (dynamic) or at least 0")
    mismatch = ("The number of dimensions with a configured shape range is inconsistent with the actual number of "
                "dynamic dimensions")
    dynamic = [k for k, d in enumerate(raw.shape) if d == -1]
    if len(raw.ranges) != len(dynamic):
        raise _shape_error(node, "shape range num", str(len(raw.ranges)), mismatch)
    result = [(d, d) for d in raw.shape]
    for number, (k, pair) in enumerate(zip(dynamic, raw.ranges)):
        if len(pair) != 2:
            raise _shape_error(node, f"shape range {number} size", str(len(pair)),
                               f"The format of shape range {number} is invalid. The expected number of shape ranges "
                               f"is 2, but actual number is {len(pair)}")
        low, high = pair
        if low < 0 or (high != -1 and high < low):
            raise _shape_error(node, f"shape range {number}", f"[{low},{high}]",
                               "The range must be [min, max] with 0 <= min <= max, or max -1 (unbounded)")
        result[k] = (low, high)
    return result if dynamic else []


def _const_value(raw: _RawTensor, node: str, shape_text: str) -> np.ndarray:
    if raw.const_value is None or any(d < 0 for d in raw.shape):
        raise _shape_error(node, "const_value", "(missing)" if raw.const_value is None else shape_text,
                           "A constant input (is_const) needs a static shape and a const_value list")
    count = math.prod(raw.shape)
    if len(raw.const_value) != count:
        raise _shape_error(node, "const_value", f"{len(raw.const_value)} elements",
                           f"The shape {shape_text} needs {count} elements")
    assert raw.dtype is not None
    convert = _as_bool if raw.dtype == DType.BOOL else _as_float if raw.dtype.numpy.kind == "f" else _as_int
    values = [convert(v) for v in raw.const_value]
    if raw.dtype.numpy.kind in "iu":  # C++ narrowing, as nlohmann's get<uint8_t> etc.
        return np.asarray(values, dtype=np.int64).astype(raw.dtype.numpy).reshape(raw.shape)
    return np.asarray(values, dtype=raw.dtype.numpy).reshape(raw.shape)


# ---- attributes -----------------------------------------------------------------------------------------------

def _data_type(value: Any) -> int | None:
    if isinstance(value, str):
        known = DATA_TYPE_NAMES.get(value, -1)
        if known is None:
            raise _unsupported(f"data type {value} is not supported by ascendsim")
        return None if known == -1 else int(known)  # an unknown name: DT_UNDEFINED -> E10030
    number = _as_int(value)
    if number not in DType._value2member_map_:
        raise _unsupported(f"data type {number} is not supported by ascendsim")
    return number


_ATTR_TYPES: dict[str, tuple[F.AttrType, F.AttrAux, Callable[[Any], Any]]] = {
    "bool": (F.AttrType.INT, F.AttrAux.BOOL, _as_bool),
    "int": (F.AttrType.INT, F.AttrAux.INT, _as_int),
    "float": (F.AttrType.FLOAT, F.AttrAux.INT, _as_float),
    "string": (F.AttrType.STRING, F.AttrAux.INT, _as_str),
    "list_bool": (F.AttrType.INTS, F.AttrAux.BOOL, lambda v: _as_list(v, _as_bool)),
    "list_int": (F.AttrType.INTS, F.AttrAux.INT, _int_list),
    "list_float": (F.AttrType.FLOATS, F.AttrAux.INT, lambda v: _as_list(v, _as_float)),
    "list_string": (F.AttrType.STRINGS, F.AttrAux.INT, lambda v: _as_list(v, _as_str)),
    "list_list_int": (F.AttrType.INT_LISTS, F.AttrAux.INT, lambda v: _as_list(v, _int_list)),
    "data_type": (F.AttrType.INT, F.AttrAux.DATA_TYPE, _data_type),
}


def _raw_attr(obj: Any) -> tuple[str, str, Typed | None]:
    """(name, type, value); value None when GE leaves it empty (an unknown type: E10030 in Validate)."""
    if not isinstance(obj, dict):
        raise _JsonError(f"[json.exception.type_error.304] cannot use at() with {_kind(obj)}")
    name = _as_str(_at(obj, "name"))
    type_name = _as_str(_at(obj, "type"))
    if type_name not in _ATTR_TYPES:
        return name, type_name, None
    kind, aux, convert = _ATTR_TYPES[type_name]
    value = convert(_at(obj, "value"))
    return name, type_name, None if value is None else Typed(kind, value, aux)


# ---- file names -----------------------------------------------------------------------------------------------

def _file_name(name: str, index: int, op_type: str, inputs: list[_RawTensor], outputs: list[_RawTensor]) -> str:
    """GE GenerateFileName: the entry's name when it is a valid file name, else index, op type and every
    tensor's dtype, format and dims (as numbers), each cut to 128 characters."""
    if name[:MAX_FILE_NAME] not in (".", "..") and VALID_FILE_NAME.fullmatch(name[:MAX_FILE_NAME]):
        return name[:MAX_FILE_NAME] + ".om"
    parts = [str(index), op_type]
    for t in [*inputs, *outputs]:
        assert t.dtype is not None and t.format is not None
        parts += [str(int(t.dtype)), str(F.FORMATS[t.format]), *(str(d) for d in t.shape)]
    return "_".join(parts)[:MAX_FILE_NAME] + ".om"
