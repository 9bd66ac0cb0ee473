"""Helpers of the single-operator tests: tensors in device memory with their descriptions, attributes from a
dict, and one function that runs a CANN operator through either Python face (`ascendcl` C names or pyACL's
`acl.op`), compiling it first (aclopCompile) so that execution finds it, as GE requires."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Self

import numpy as np

import acl
import ascendcl as c
from ascendcl import ACL_SUCCESS

DTYPES: dict[Any, int] = {
    np.float32: c.ACL_FLOAT, np.float16: c.ACL_FLOAT16, np.int8: c.ACL_INT8, np.int32: c.ACL_INT32,
    np.uint8: c.ACL_UINT8, np.int16: c.ACL_INT16, np.uint16: c.ACL_UINT16, np.uint32: c.ACL_UINT32,
    np.int64: c.ACL_INT64, np.uint64: c.ACL_UINT64, np.float64: c.ACL_DOUBLE, np.bool_: c.ACL_BOOL,
}
NUMPY = {v: k for k, v in DTYPES.items()}


def acl_dtype(dtype: Any) -> int:
    return DTYPES[np.dtype(dtype).type]


def check(ret: int) -> None:
    assert ret == ACL_SUCCESS, f"ret {ret}: {c.aclGetRecentErrMsg()}"


@dataclass
class Const:
    """An input whose values are constant: aclSetTensorConst (the values are also in device memory)."""
    array: np.ndarray


@dataclass
class Host:
    """An input placed in host memory (ACL_MEMTYPE_HOST): its values are read at the call."""
    array: np.ndarray


@dataclass
class Out:
    """An output: dtype and dims of its description (-1 dims only for compilation and shape inference)."""
    dtype: Any
    dims: list[int]
    fmt: int = c.ACL_FORMAT_ND


@dataclass
class Tensor:
    desc: int
    buffer: int
    ptr: int
    nbytes: int
    host: bool = False
    keep: list[Any] = field(default_factory=list)

    def read(self, dtype: Any, dims: Iterable[int]) -> np.ndarray:
        out = np.empty(list(dims), dtype=dtype)
        if out.nbytes:
            check(c.aclrtMemcpy(out.ctypes.data, out.nbytes, self.ptr, out.nbytes, c.ACL_MEMCPY_DEVICE_TO_HOST))
        return out

    def free(self) -> None:
        check(c.aclDestroyDataBuffer(self.buffer))
        c.aclDestroyTensorDesc(self.desc)
        if self.ptr and not self.host:
            check(c.aclrtFree(self.ptr))


def device_tensor(array: np.ndarray | None, dtype: Any, dims: list[int], fmt: int = c.ACL_FORMAT_ND) -> Tensor:
    """A description of `dims` and a device buffer holding `array` (uninitialised when None; no buffer memory for
    dynamic dims)."""
    desc = acl.create_tensor_desc(acl_dtype(dtype), dims, fmt)
    assert desc
    nbytes = array.nbytes if array is not None else int(np.prod([max(d, 0) for d in dims])) * np.dtype(dtype).itemsize
    ptr = 0
    if nbytes:
        ptr, ret = c.aclrtMalloc(nbytes, c.ACL_MEM_MALLOC_HUGE_FIRST)
        check(ret)
        if array is not None and array.nbytes:
            check(c.aclrtMemcpy(ptr, nbytes, array.ctypes.data, array.nbytes, c.ACL_MEMCPY_HOST_TO_DEVICE))
    return Tensor(desc, c.aclCreateDataBuffer(ptr, nbytes), ptr, nbytes)


def input_tensor(value: np.ndarray | Const | Host, fmt: int = c.ACL_FORMAT_ND) -> Tensor:
    if isinstance(value, Host):
        array = np.ascontiguousarray(value.array)
        desc = acl.create_tensor_desc(acl_dtype(array.dtype), list(array.shape), fmt)
        check(c.aclSetTensorPlaceMent(desc, c.ACL_MEMTYPE_HOST))
        return Tensor(desc, c.aclCreateDataBuffer(array.ctypes.data, array.nbytes), array.ctypes.data, array.nbytes,
                      host=True, keep=[array])
    array = np.ascontiguousarray(value.array if isinstance(value, Const) else value)
    t = device_tensor(array, array.dtype, list(array.shape), fmt)
    if isinstance(value, Const):
        check(c.aclSetTensorConst(t.desc, array.ctypes.data, array.nbytes))
    return t


def make_attr(attrs: dict[str, Any]) -> int:
    """An aclopAttr from a dict: bool, int, float, str, lists of them, lists of int lists; ("dtype", v) sets a
    data type."""
    attr = c.aclopCreateAttr()
    for name, v in attrs.items():
        if isinstance(v, tuple) and v[0] == "dtype":
            ret = c.aclopSetAttrDataType(attr, name, v[1])
        elif isinstance(v, bool):
            ret = c.aclopSetAttrBool(attr, name, int(v))
        elif isinstance(v, int):
            ret = c.aclopSetAttrInt(attr, name, v)
        elif isinstance(v, float):
            ret = c.aclopSetAttrFloat(attr, name, v)
        elif isinstance(v, str):
            ret = c.aclopSetAttrString(attr, name, v)
        elif v and isinstance(v[0], list):
            ret = acl.op.set_attr_list_list_int(attr, name, v)
        elif v and isinstance(v[0], float):
            ret = acl.op.set_attr_list_float(attr, name, v)
        else:
            ret = acl.op.set_attr_list_int(attr, name, list(v))
        check(ret)
    return attr


def compile_op(op_type: str, ins: list[Tensor], outs: list[Tensor], attr: int) -> int:
    return c.aclopCompile(op_type, len(ins), [t.desc for t in ins], len(outs), [t.desc for t in outs], attr,
                          c.ACL_ENGINE_SYS, c.ACL_COMPILE_SYS, None)


def execute(op_type: str, ins: list[Tensor], outs: list[Tensor], attr: int, stream: int, *, face: str = "c",
            v2: bool = True) -> int:
    """One execution through a face: "c" (ascendcl aclopExecute(V2)) or "acl" (acl.op.execute(_v2))."""
    in_d, in_b = [t.desc for t in ins], [t.buffer for t in ins]
    out_d, out_b = [t.desc for t in outs], [t.buffer for t in outs]
    if face == "acl":
        run = acl.op.execute_v2 if v2 else acl.op.execute
        return run(op_type, in_d, in_b, out_d, out_b, attr, stream)
    run = c.aclopExecuteV2 if v2 else c.aclopExecute
    return run(op_type, len(ins), in_d, in_b, len(outs), out_d, out_b, attr, stream)


def desc_dims(desc: int) -> list[int]:
    count = c.aclGetTensorDescNumDims(desc)
    return [c.aclGetTensorDescDimV2(desc, i)[0] for i in range(count)]


def run_op(op_type: str, inputs: list[np.ndarray | Const | Host], outputs: list[Out], attrs: dict[str, Any] | None,
           stream: int, *, face: str = "c", v2: bool = True, fmt: int = c.ACL_FORMAT_ND) -> list[np.ndarray]:
    """Compiles and runs `op_type`; returns the outputs, shaped as their descriptions say after the call."""
    ins = [input_tensor(v, fmt) for v in inputs]
    outs = [device_tensor(None, o.dtype, o.dims, o.fmt) for o in outputs]
    attr = make_attr(attrs or {})
    try:
        check(compile_op(op_type, ins, outs, attr))
        check(execute(op_type, ins, outs, attr, stream, face=face, v2=v2))
        check(c.aclrtSynchronizeStream(stream))
        return [t.read(o.dtype, desc_dims(t.desc)) for t, o in zip(outs, outputs, strict=True)]
    finally:
        c.aclopDestroyAttr(attr)
        for t in ins + outs:
            t.free()


class OpTensors:
    """Input and output tensors of one call, freed on exit: `ins`, `outs`, their descs and buffers."""

    def __init__(self, inputs: list[np.ndarray | Const | Host], outputs: list[Out], fmt: int = c.ACL_FORMAT_ND) -> None:
        self.ins = [input_tensor(v, fmt) for v in inputs]
        self.outs = [device_tensor(None, o.dtype, o.dims, o.fmt) for o in outputs]

    def descs(self) -> tuple[list[int], list[int]]:
        return [t.desc for t in self.ins], [t.desc for t in self.outs]

    def buffers(self) -> tuple[list[int], list[int]]:
        return [t.buffer for t in self.ins], [t.buffer for t in self.outs]

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        for t in self.ins + self.outs:
            t.free()


def single_op_models(ops: list[dict[str, Any]], out_dir: Any) -> list[Any]:
    """Writes ATC's single-op JSON list `ops` and compiles it with `atc --singleop` into `out_dir`; returns the
    .om files."""
    import json
    from pathlib import Path

    from ascendsim.compiler.atc import main

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    spec = out.parent / f"{out.name}.json"
    spec.write_text(json.dumps(ops))
    assert main([f"--singleop={spec}", f"--output={out}", "--soc_version=Ascend910B"]) == 0
    return sorted(out.glob("*.om"))


def tensor_json(shape: list[int], dtype: str = "float32", fmt: str = "ND", **extra: Any) -> dict[str, Any]:
    """One input_desc / output_desc entry of ATC's single-op JSON."""
    return {"format": fmt, "shape": shape, "type": dtype, **extra}
