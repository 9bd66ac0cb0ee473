"""Operator attributes (aclopCreateAttr, aclopSetAttr*, aclopDestroyAttr) and the single-operator settings
(aclSetCompileopt, aclGetCompileoptSize, aclGetCompileopt, aclopSetCompileFlag, aclopSetMaxOpQueueNum):
both Python faces, a C program against the installed headers (every NULL argument, which Python cannot
pass as a string), and the values as the kernels receive them (a C++ check built from the sources)."""

from __future__ import annotations

import ctypes
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import acl
import ascendcl
from acl_helpers import TESTS, Compiler, run_python
from ascendcl import (
    ACL_ERROR_API_NOT_SUPPORT,
    ACL_ERROR_FAILURE,
    ACL_ERROR_FEATURE_UNSUPPORTED,
    ACL_ERROR_INTERNAL_ERROR,
    ACL_ERROR_INVALID_PARAM,
    ACL_SUCCESS,
    aclGetRecentErrMsg,
    aclopCreateAttr,
    aclopDestroyAttr,
)

ROOT = TESTS.parent


@pytest.fixture
def attr() -> Iterator[int]:
    handle = aclopCreateAttr()
    assert isinstance(handle, int) and handle != 0
    yield handle
    aclopDestroyAttr(handle)


def address(array: np.ndarray) -> int:
    return array.ctypes.data


# ---- storage and the kernels' view -----------------------------------------------------------------------

def build_check(tmp_path: Path, *flags: str) -> Path:
    """tests/c/op_attr_check.cpp with the sources it checks (the internals are not exported)."""
    program = tmp_path / "op_attr_check"
    sources = [TESTS / "c" / "op_attr_check.cpp", ROOT / "csrc" / "api" / "acl_op_attr.cpp",
               ROOT / "csrc" / "op" / "op_attr.cpp", ROOT / "csrc" / "core" / "error.cpp",
               ROOT / "csrc" / "core" / "live_objects.cpp", ROOT / "csrc" / "core" / "log.cpp",
               ROOT / "csrc" / "core" / "log_file.cpp"]
    command = ["g++", "-std=c++17", "-O1", "-g", "-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Werror", *flags,
               f"-I{ROOT / 'include'}", f"-I{ROOT / 'csrc'}", *map(str, sources), "-o", str(program), "-lpthread"]
    built = subprocess.run(command, capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stderr
    return program


def test_values_reach_the_kernels_as_decoded_attributes(tmp_path: Path) -> None:
    result = subprocess.run([str(build_check(tmp_path))], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0 and result.stdout.strip() == "OK", result.stdout + result.stderr


def test_concurrent_use_under_tsan(tmp_path: Path) -> None:
    probe = subprocess.run(["g++", "-fsanitize=thread", "-x", "c++", "-", "-o", str(tmp_path / "probe")],
                           input="int main() { return 0; }", capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        pytest.skip("the compiler cannot build with -fsanitize=thread")
    program = build_check(tmp_path, "-fsanitize=thread")
    result = subprocess.run([str(program)], capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0 and result.stdout.strip() == "OK", result.stdout + result.stderr


@pytest.mark.parametrize(("soc", "jit_default"), [("Ascend910B1", "disable"), ("Ascend910B4", "disable"),
                                                   ("Ascend310P3", "enable"), ("Ascend910A", "enable")])
def test_c_program(compiler: Compiler, soc: str, jit_default: str) -> None:
    program = compiler.build(TESTS / "c" / "op_attr_flow.c")
    result = compiler.run(program, jit_default, env={"ASCENDSIM_SOC_NAME": soc})
    assert result.returncode == 0 and result.stdout.startswith("ok"), result.stdout + result.stderr


# ---- the C names -----------------------------------------------------------------------------------------

def test_create_and_destroy(attr: int) -> None:
    other = aclopCreateAttr()
    assert other not in (0, attr)
    assert aclopDestroyAttr(other) is None
    assert aclopDestroyAttr(other) is None  # twice: refused with a message, never a crash
    assert "is not live (destroyed twice or never created)" in aclGetRecentErrMsg()
    assert aclopDestroyAttr(0) is None
    assert aclGetRecentErrMsg() == ""


def test_scalar_setters(attr: int) -> None:
    assert ascendcl.aclopSetAttrBool(attr, "keep_dims", 1) == ACL_SUCCESS
    assert ascendcl.aclopSetAttrInt(attr, "axis", -(2**63)) == ACL_SUCCESS
    assert ascendcl.aclopSetAttrFloat(attr, "alpha", 0.5) == ACL_SUCCESS
    assert ascendcl.aclopSetAttrString(attr, "padding", "SAME") == ACL_SUCCESS
    assert ascendcl.aclopSetAttrString(attr, "empty", "") == ACL_SUCCESS
    assert ascendcl.aclopSetAttrDataType(attr, "dst_type", ascendcl.ACL_FLOAT16) == ACL_SUCCESS
    assert ascendcl.aclopSetAttrDataType(attr, "dst_type", ascendcl.ACL_DT_UNDEFINED) == ACL_SUCCESS
    assert ascendcl.aclopSetAttrInt(attr, "axis", 1) == ACL_SUCCESS  # overwritten
    with pytest.raises(OverflowError):
        ascendcl.aclopSetAttrInt(attr, "axis", 2**63)
    with pytest.raises(TypeError):
        ascendcl.aclopSetAttrInt(attr, None, 1)  # a NULL name needs C: see test_c_program


def test_list_setters(attr: int) -> None:
    ints = np.array([1, -2, 3], dtype=np.int64)
    assert ascendcl.aclopSetAttrListInt(attr, "axes", 3, address(ints)) == ACL_SUCCESS
    assert ascendcl.aclopSetAttrListBool(attr, "flags", 2, address(np.array([1, 0], dtype=np.uint8))) == ACL_SUCCESS
    floats = np.array([0.5, 1.5], dtype=np.float32)
    assert ascendcl.aclopSetAttrListFloat(attr, "scales", 2, address(floats)) == ACL_SUCCESS
    types = np.array([ascendcl.ACL_FLOAT, ascendcl.ACL_INT32], dtype=np.int32)
    assert ascendcl.aclopSetAttrListDataType(attr, "types", 2, address(types)) == ACL_SUCCESS
    strings = (ctypes.c_char_p * 2)(b"NCHW", b"ND")
    assert ascendcl.aclopSetAttrListString(attr, "formats", 2, ctypes.addressof(strings)) == ACL_SUCCESS
    rows = [np.array([1, 2], dtype=np.int64), np.array([3], dtype=np.int64)]
    counts = np.array([2, 1], dtype=np.int32)
    pointers = np.array([address(row) for row in rows], dtype=np.uint64)
    assert ascendcl.aclopSetAttrListListInt(attr, "pads", 2, address(counts), address(pointers)) == ACL_SUCCESS
    for setter in (ascendcl.aclopSetAttrListInt, ascendcl.aclopSetAttrListBool, ascendcl.aclopSetAttrListFloat,
                   ascendcl.aclopSetAttrListDataType, ascendcl.aclopSetAttrListString):
        assert setter(attr, "empty", 0, 0) == ACL_SUCCESS
        assert setter(attr, "null", 2, 0) == ACL_ERROR_INVALID_PARAM
        assert "'values' is NULL" in aclGetRecentErrMsg()
    assert ascendcl.aclopSetAttrListInt(attr, "negative", -1, 0) == ACL_SUCCESS  # CANN: an empty list
    assert ascendcl.aclopSetAttrListListInt(attr, "pads", 1, 0, address(pointers)) == ACL_ERROR_INVALID_PARAM
    assert "'numValues' is NULL" in aclGetRecentErrMsg()
    null_row = np.array([address(rows[0]), 0], dtype=np.uint64)
    assert ascendcl.aclopSetAttrListListInt(attr, "pads", 2, address(counts), address(null_row)) == \
        ACL_ERROR_INVALID_PARAM
    assert "values[1] is NULL" in aclGetRecentErrMsg()
    null_string = (ctypes.c_char_p * 2)(b"NCHW", None)
    assert ascendcl.aclopSetAttrListString(attr, "formats", 2, ctypes.addressof(null_string)) == \
        ACL_ERROR_INVALID_PARAM
    assert "values[1] is NULL" in aclGetRecentErrMsg()


SETTERS = {
    "aclopSetAttrBool": (1,), "aclopSetAttrInt": (1,), "aclopSetAttrFloat": (1.0,), "aclopSetAttrString": ("v",),
    "aclopSetAttrDataType": (0,), "aclopSetAttrListBool": (0, 0), "aclopSetAttrListInt": (0, 0),
    "aclopSetAttrListFloat": (0, 0), "aclopSetAttrListString": (0, 0), "aclopSetAttrListDataType": (0, 0),
    "aclopSetAttrListListInt": (0, 1, 0),
}


@pytest.mark.parametrize("name", sorted(SETTERS))
def test_setters_refuse_null_and_dead_handles(name: str) -> None:
    setter = getattr(ascendcl, name)
    assert setter(0, "x", *SETTERS[name]) == ACL_ERROR_INVALID_PARAM
    assert f"{name}: argument 'attr' is NULL" in aclGetRecentErrMsg()
    dead = aclopCreateAttr()
    aclopDestroyAttr(dead)
    assert setter(dead, "x", *SETTERS[name]) == ACL_ERROR_INVALID_PARAM
    assert "is not live" in aclGetRecentErrMsg()


def test_setters_are_thread_safe(attr: int) -> None:
    results: list[int] = []

    def work(index: int) -> None:
        values = np.arange(8, dtype=np.int64)
        for i in range(300):
            results.append(ascendcl.aclopSetAttrInt(attr, f"shared{i % 7}", index))
            results.append(ascendcl.aclopSetAttrListInt(attr, f"shared{i % 5}", 8, address(values)))
            results.append(acl.op.set_attr_list_string(attr, f"own{index}", ["a", "b"]))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [ACL_SUCCESS] * (4 * 300 * 3)


# ---- pyACL's acl.op --------------------------------------------------------------------------------------

def test_pyacl_scalar_functions_are_the_c_functions() -> None:
    assert acl.op.create_attr is ascendcl.aclopCreateAttr
    assert acl.op.destroy_attr is ascendcl.aclopDestroyAttr
    assert acl.op.set_attr_bool is ascendcl.aclopSetAttrBool
    assert acl.op.set_attr_int is ascendcl.aclopSetAttrInt
    assert acl.op.set_attr_float is ascendcl.aclopSetAttrFloat
    assert acl.op.set_attr_string is ascendcl.aclopSetAttrString
    assert acl.op.set_max_op_queue_num is ascendcl.aclopSetMaxOpQueueNum


def test_pyacl_attr_lifecycle() -> None:
    attr = acl.op.create_attr("ignored")  # pyACL ignores arguments of argument-less functions
    assert isinstance(attr, int) and attr != 0
    assert acl.op.set_attr_bool(attr, "transpose_a", True) == ACL_SUCCESS
    assert acl.op.set_attr_bool(attr, "transpose_b", 256) == ACL_SUCCESS  # "B": wraps like pyACL
    assert acl.op.set_attr_int(attr, "axis", -1) == ACL_SUCCESS
    assert acl.op.set_attr_float(attr, "epsilon", 1) == ACL_SUCCESS
    assert acl.op.set_attr_string(attr, "data_format", "NHWC") == ACL_SUCCESS
    assert acl.op.destroy_attr(attr) is None
    assert acl.op.set_attr_int(attr, "axis", 1) == ACL_ERROR_INVALID_PARAM


def test_pyacl_list_setters(attr: int) -> None:
    assert acl.op.set_attr_list_bool(attr, "flags", [True, False, 1]) == ACL_SUCCESS
    assert acl.op.set_attr_list_int(attr, "axes", [0, -1, 2**62]) == ACL_SUCCESS
    assert acl.op.set_attr_list_float(attr, "scales", [0.5, 2]) == ACL_SUCCESS
    assert acl.op.set_attr_list_string(attr, "formats", ["NCHW", ""]) == ACL_SUCCESS
    assert acl.op.set_attr_list_list_int(attr, "pads", [[1, 1], [2, 2, 2]]) == ACL_SUCCESS
    for setter in (acl.op.set_attr_list_bool, acl.op.set_attr_list_int, acl.op.set_attr_list_float,
                   acl.op.set_attr_list_string, acl.op.set_attr_list_list_int):
        assert setter(attr, "empty", []) == ACL_SUCCESS
        assert setter(0, "empty", []) == ACL_ERROR_INVALID_PARAM
    # An empty inner list has no storage: it goes down as NULL, which C refuses (as with pyACL).
    assert acl.op.set_attr_list_list_int(attr, "pads", [[1], []]) == ACL_ERROR_INVALID_PARAM
    assert "values[1] is NULL" in aclGetRecentErrMsg()


def test_pyacl_list_setters_take_numpy_arrays_with_a_warning(attr: int) -> None:
    with pytest.warns(Warning, match="argument 3 only support the format of list in the future"):
        assert acl.op.set_attr_list_int(attr, "axes", np.array([1, 2], dtype=np.int64)) == ACL_SUCCESS
    with pytest.warns(Warning, match="only support the format of list"):
        assert acl.op.set_attr_list_float(attr, "scales", np.array([0.5], dtype=np.float32)) == ACL_SUCCESS
    with pytest.warns(Warning, match="only support the format of list"):
        assert acl.op.set_attr_list_bool(attr, "flags", np.array([True])) == ACL_SUCCESS
    with pytest.warns(Warning, match="only support the format of list"):
        assert acl.op.set_attr_list_list_int(attr, "pads", [np.array([1, 2]), [3]]) == ACL_SUCCESS


def test_pyacl_list_setters_reject_other_types(attr: int) -> None:
    with pytest.warns(Warning), pytest.raises(TypeError, match="must be list or numpy array, not tuple"):
        acl.op.set_attr_list_int(attr, "axes", (1, 2))
    with pytest.raises(TypeError, match="must be int, not str"):
        acl.op.set_attr_list_int(attr, "axes", [1, "2"])
    with pytest.raises(TypeError, match="must be str, not int"):
        acl.op.set_attr_list_string(attr, "formats", ["NCHW", 1])
    with pytest.raises(TypeError, match="must be list, not tuple"):
        acl.op.set_attr_list_string(attr, "formats", ("NCHW",))
    with pytest.raises(TypeError, match="must be list, not tuple"):
        acl.op.set_attr_list_list_int(attr, "pads", ([1],))
    with pytest.raises(TypeError, match="must be list, not tuple"):
        acl.op.set_attr_list_data_type(attr, "types", (0,))
    with pytest.raises(TypeError, match="takes 3 arguments"):
        acl.op.set_attr_list_int(attr, [1])


def test_pyacl_data_type_setters_return_the_attr_and_ret(attr: int) -> None:
    assert acl.op.set_attr_data_type(attr, "dst_type", ascendcl.ACL_INT32) == (attr, ACL_SUCCESS)
    assert acl.op.set_attr_list_data_type(attr, "types", [0, 1, -1]) == (attr, ACL_SUCCESS)
    assert acl.op.set_attr_list_data_type(attr, "types", []) == (attr, ACL_SUCCESS)
    assert acl.op.set_attr_data_type(0, "dst_type", 0) == (0, ACL_ERROR_INVALID_PARAM)
    assert acl.op.set_attr_list_data_type(0, "types", [0]) == (0, ACL_ERROR_INVALID_PARAM)


def test_max_op_queue_num() -> None:
    assert acl.op.set_max_op_queue_num(0) == ACL_ERROR_INVALID_PARAM
    assert "aclopSetMaxOpQueueNum: maxOpNum must be positive, it is 0" in aclGetRecentErrMsg()
    assert acl.op.set_max_op_queue_num(-1) == ACL_SUCCESS  # "K": wraps to UINT64_MAX like pyACL
    assert acl.op.set_max_op_queue_num(20000) == ACL_SUCCESS


# ---- compile options (C names only: pyACL has no compile-option functions) -------------------------------

def test_compile_options() -> None:
    assert ascendcl.aclSetCompileopt(ascendcl.ACL_PRECISION_MODE, "allow_fp32_to_fp16") == ACL_SUCCESS
    assert ascendcl.aclGetCompileoptSize(ascendcl.ACL_PRECISION_MODE) == len("allow_fp32_to_fp16") + 1
    assert ascendcl.aclGetCompileopt(ascendcl.ACL_PRECISION_MODE, 64) == ("", ACL_ERROR_API_NOT_SUPPORT)
    assert "ACL_PRECISION_MODE (0) cannot be read back" in aclGetRecentErrMsg()
    assert ascendcl.aclSetCompileopt(ascendcl.ACL_OP_DEBUG_OPTION, "oom,dump_cce") == ACL_SUCCESS
    assert ascendcl.aclGetCompileoptSize(ascendcl.ACL_OP_DEBUG_OPTION) == 13
    assert ascendcl.aclGetCompileopt(ascendcl.ACL_OP_DEBUG_OPTION, 13) == ("oom,dump_cce", ACL_SUCCESS)
    assert ascendcl.aclGetCompileopt(ascendcl.ACL_OP_DEBUG_OPTION, 12) == ("", ACL_ERROR_FAILURE)
    assert "length 12 is too small: the value of ACL_OP_DEBUG_OPTION needs 13 bytes" in aclGetRecentErrMsg()
    assert ascendcl.aclGetCompileopt(ascendcl.ACL_OP_DEBUG_OPTION, 0) == ("", ACL_ERROR_FAILURE)
    assert ascendcl.aclGetCompileoptSize(ascendcl.ACL_OP_JIT_COMPILE) == 256
    value, ret = ascendcl.aclGetCompileopt(ascendcl.ACL_OP_JIT_COMPILE, 256)
    assert ret == ACL_SUCCESS and value in ("enable", "disable")
    assert ascendcl.aclopSetCompileFlag(ascendcl.ACL_OP_COMPILE_FUZZ) == ACL_SUCCESS
    assert ascendcl.aclopSetCompileFlag(ascendcl.ACL_OP_COMPILE_DEFAULT) == ACL_SUCCESS


@pytest.mark.parametrize("option", list(range(17)))
def test_every_option_can_be_set_except_auto_tune(option: int) -> None:
    expected = ACL_ERROR_FEATURE_UNSUPPORTED if option == ascendcl.ACL_AUTO_TUNE_MODE else ACL_SUCCESS
    assert ascendcl.aclSetCompileopt(option, "1") == expected


@pytest.mark.parametrize("option", [-1, 17, 2**31 - 1])
def test_unknown_options(option: int) -> None:
    assert ascendcl.aclSetCompileopt(option, "1") == ACL_ERROR_INTERNAL_ERROR
    assert f"option {option} is not an aclCompileOpt (0..16)" in aclGetRecentErrMsg()
    assert ascendcl.aclGetCompileoptSize(option) == 0
    assert ascendcl.aclGetCompileopt(option, 16) == ("", ACL_ERROR_API_NOT_SUPPORT)


def test_auto_tune_mode_is_discarded() -> None:
    assert ascendcl.aclSetCompileopt(ascendcl.ACL_AUTO_TUNE_MODE, "RL,GA") == ACL_ERROR_FEATURE_UNSUPPORTED
    assert "AOE" in aclGetRecentErrMsg()


def test_options_need_acl_init_and_outlive_finalize() -> None:
    result = run_python("""
        import ascendcl as a
        assert a.aclSetCompileopt(a.ACL_OP_DEBUG_OPTION, "oom") == a.ACL_ERROR_FAILURE
        assert "call aclInit first" in a.aclGetRecentErrMsg()
        assert a.aclopSetCompileFlag(a.ACL_OP_COMPILE_FUZZ) == a.ACL_ERROR_FAILURE
        assert a.aclGetCompileopt(a.ACL_OP_JIT_COMPILE, 256) == ("enable", 0)
        assert a.aclGetCompileopt(a.ACL_OP_DEBUG_OPTION, 16) == ("", a.ACL_ERROR_API_NOT_SUPPORT)
        assert a.aclInit("") == 0
        assert a.aclSetCompileopt(a.ACL_OP_DEBUG_OPTION, "oom") == 0
        assert a.aclFinalize() == 0
        assert a.aclGetCompileopt(a.ACL_OP_DEBUG_OPTION, 16) == ("oom", 0)
        print("ok")
    """, env={"ASCENDSIM_SOC_NAME": "Ascend310P3"})
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stdout + result.stderr
