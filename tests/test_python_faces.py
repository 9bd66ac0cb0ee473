"""The two Python faces: `ascendcl` (C names, out-parameters returned before ret) and pyACL's `acl`.
Both must be the same function objects, follow the mechanical rule, and reject wrong types."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import acl
import ascendcl
from acl_helpers import run_python
from ascendcl import ACL_SUCCESS, aclDataTypeSize, aclGetRecentErrMsg, aclrtGetMemInfo, aclrtMalloc


def header_function_names() -> set[str]:
    import ascendsim

    names: set[str] = set()
    for header in Path(ascendsim.get_include(), "acl").glob("*.h"):
        text = re.sub(r"/\*.*?\*/", " ", header.read_text(), flags=re.DOTALL)
        names.update(re.findall(r"ACL_FUNC_VISIBILITY[^;(]*?\b(acl\w+)\s*\(", text))
    return names


def test_every_declared_function_is_callable_by_its_c_name() -> None:
    declared = header_function_names()
    assert len(declared) > 250
    missing = sorted(name for name in declared if not callable(getattr(ascendcl, name, None)))
    assert missing == []


def test_pyacl_functions_are_the_c_functions() -> None:
    assert acl.rt.malloc is ascendcl.aclrtMalloc
    assert acl.rt.synchronize_stream is ascendcl.aclrtSynchronizeStream
    assert acl.create_data_buffer is ascendcl.aclCreateDataBuffer
    for module in (acl, acl.rt, acl.mdl, acl.op):
        for name, value in vars(module).items():
            if callable(value) and not name.startswith("_") and not inspect.ismodule(value):
                assert inspect.isbuiltin(value) or inspect.isfunction(value), name


def test_out_parameter_rule(device: int) -> None:
    free, total, ret = aclrtGetMemInfo(ascendcl.ACL_HBM_MEM)
    assert ret == ACL_SUCCESS and 0 < free <= total
    pointer, ret = aclrtMalloc(100, ascendcl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == ACL_SUCCESS and isinstance(pointer, int) and pointer != 0
    assert ascendcl.aclrtFree(pointer) == ACL_SUCCESS           # no out-parameters: bare ret
    assert aclDataTypeSize(ascendcl.ACL_FLOAT16) == 2            # bare C result


def test_wrong_argument_types_raise_type_error() -> None:
    with pytest.raises(TypeError, match=r"aclrtMalloc\(\) argument 1 must be int, not float"):
        aclrtMalloc(1.5, 0)
    with pytest.raises(TypeError, match="takes 2 arguments"):
        aclrtMalloc(16)
    with pytest.raises(TypeError):
        ascendcl.aclrtFree(None)
    with pytest.raises(TypeError):
        acl.mdl.unload(None)
    with pytest.raises(TypeError, match="must be str"):
        ascendcl.aclInit(b"x")
    with pytest.raises(OverflowError):
        ascendcl.aclrtSetDevice(1 << 40)


def test_unsigned_parameters_wrap_like_pyacl() -> None:
    # pyACL parses size_t with "k": -1 wraps to SIZE_MAX (msame passes -1 as an index).
    assert aclDataTypeSize(-1) == 0   # ACL_DT_UNDEFINED is -1 and a valid int enum


def test_recent_error_names_function_and_value(device: int) -> None:
    pointer, ret = aclrtMalloc(0, 0)
    assert (pointer, ret) == (0, ascendcl.ACL_ERROR_INVALID_PARAM)
    assert "aclrtMalloc" in aclGetRecentErrMsg()


def test_constants_are_ints_and_in_both_places() -> None:
    assert acl.constants.ACL_ERROR_RT_CONTEXT_NULL == ascendcl.ACL_ERROR_RT_CONTEXT_NULL == 107002
    assert ascendcl.ACL_DYNAMIC_TENSOR_NAME == "ascend_mbatch_shape_data"
    assert "aclrtMalloc" in ascendcl.__all__ and "ACL_SUCCESS" in ascendcl.__all__
    assert not hasattr(acl, "ACL_SUCCESS")   # pyACL's own namespace stays as pyACL has it


def test_star_import_gives_c_namespace() -> None:
    namespace: dict[str, object] = {}
    exec("from ascendcl import *", namespace)  # noqa: S102 (the star import is what is tested)
    assert "aclrtMemcpyAsync" in namespace and "ACL_MEMCPY_HOST_TO_DEVICE" in namespace
    assert not any(name in namespace for name in ("rt", "mdl", "util"))


def test_objects_torn_down_at_interpreter_exit() -> None:
    # acllite frees streams, memory and models from __del__ during interpreter shutdown.
    result = run_python("""
import acl

class Resources:
    def __init__(self):
        acl.init()
        acl.rt.set_device(0)
        self.context, _ = acl.rt.create_context(0)
        self.stream, _ = acl.rt.create_stream()
        self.buffer, _ = acl.rt.malloc(1 << 20, 0)
    def __del__(self):
        acl.rt.free(self.buffer)
        acl.rt.destroy_stream(self.stream)
        acl.rt.destroy_context(self.context)
        acl.rt.reset_device(0)
        acl.finalize()
        print("released")

keep = Resources()
""")
    assert result.returncode == 0, result.stderr
    assert "released" in result.stdout
    assert "Error" not in result.stderr, result.stderr
