"""ONNX TensorProto element types <-> ir.DType (AscendCL numbering), shared by importer and exporter."""

from __future__ import annotations

from onnx import TensorProto

from .errors import CompileError
from .ir import DType

_TO_IR = {
    TensorProto.FLOAT: DType.FLOAT, TensorProto.FLOAT16: DType.FLOAT16, TensorProto.INT8: DType.INT8,
    TensorProto.INT32: DType.INT32, TensorProto.UINT8: DType.UINT8, TensorProto.INT16: DType.INT16,
    TensorProto.UINT16: DType.UINT16, TensorProto.UINT32: DType.UINT32, TensorProto.INT64: DType.INT64,
    TensorProto.UINT64: DType.UINT64, TensorProto.DOUBLE: DType.DOUBLE, TensorProto.BOOL: DType.BOOL,
}
_TO_ONNX = {v: k for k, v in _TO_IR.items()}


def dtype_from_onnx(elem_type: int, where: str) -> DType:
    """The ir.DType of an ONNX element type; `where` names the tensor/attribute for the error."""
    if elem_type not in _TO_IR:
        name = TensorProto.DataType.Name(elem_type) if elem_type in TensorProto.DataType.values() else elem_type
        supported = ", ".join(TensorProto.DataType.Name(t) for t in _TO_IR)
        raise CompileError(f"{where}: element type {name} is not supported; supported: {supported}")
    return _TO_IR[elem_type]


def dtype_to_onnx(dtype: DType) -> int:
    return _TO_ONNX[DType(dtype)]
