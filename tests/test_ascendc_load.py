"""aclrtBinaryLoadFromFile and aclrtBinaryLoadFromData from Python (ascendcl): the options checked as CANN's
runtime checks them, a path that cannot be opened, NULL or empty data and a real NPU ELF refused with
ACL_ERROR_RT_PARAM_INVALID as aclrtBinaryLoad refuses it; what loads launches. The C side (the kernels run
against numpy after each load form) is test_ascendc_launch.py's test_binary_api_from_c."""

from __future__ import annotations

import ctypes
import struct
from pathlib import Path

import numpy as np
import pytest

from ascendc_build import bisheng
from ascendc_cases import free_all, from_device, to_device
from ascendcl import (
    ACL_ERROR_INVALID_PARAM,
    ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
    ACL_ERROR_RT_PARAM_INVALID,
    ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE,
    ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD,
    ACL_RT_BINARY_LOAD_OPT_MAGIC,
    ACL_RT_BINARY_MAGIC_ELF_AICORE,
    ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE,
    aclGetRecentErrMsg,
    aclrtBinaryGetFunction,
    aclrtBinaryLoadFromData,
    aclrtBinaryLoadFromFile,
    aclrtBinaryUnLoad,
    aclrtCreateBinary,
    aclrtFreeHost,
    aclrtLaunchKernel,
    aclrtMallocHost,
    aclrtSynchronizeStream,
)

SOURCE = """
extern "C" __global__ __aicore__ void mark_blocks(GM_ADDR out) {
    AscendC::GlobalTensor<int32_t> g;
    g.SetGlobalBuffer((__gm__ int32_t*)out + AscendC::GetBlockIdx() * 8, 8);
    g.SetValue(0, 100 + AscendC::GetBlockIdx());
}
"""
# An ELF header for machine 0x1029, not this host's: what CANN's device compiler emits.
FOREIGN = b"\x7fELF\x02\x01\x01" + bytes(11) + struct.pack("<H", 0x1029) + bytes(64)


@pytest.fixture(scope="module")
def kernel_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("ascendc_load")
    (work / "mark.asc").write_text(SOURCE)
    bisheng("-shared", "-fPIC", "-O2", "-x", "asc", str(work / "mark.asc"), "-o", str(work / "mark.so"))
    return work / "mark.so"


class LoadOption(ctypes.Structure):
    """aclrtBinaryLoadOption: the type as an int (a C caller may store any value) and the value union."""
    _fields_ = [("type", ctypes.c_int32), ("value", ctypes.c_uint32 * 4)]


class LoadOptions(ctypes.Structure):
    _fields_ = [("options", ctypes.POINTER(LoadOption)), ("numOpt", ctypes.c_size_t)]


def options_of(*entries: tuple[int, int]) -> tuple[LoadOptions, ctypes.Array]:
    """The options struct and the array it points at (kept alive by the caller)."""
    array = (LoadOption * len(entries))(*[LoadOption(kind, (ctypes.c_uint32 * 4)(value & 0xFFFFFFFF))
                                          for kind, value in entries])
    return LoadOptions(array, len(entries)), array


def launch_and_check(handle: int, stream: int) -> None:
    func, ret = aclrtBinaryGetFunction(handle, "mark_blocks")
    assert ret == 0, aclGetRecentErrMsg()
    out = to_device(np.zeros(16, np.int32))
    args = ctypes.c_uint64(out)
    assert aclrtLaunchKernel(func, 2, ctypes.addressof(args), 8, stream) == 0
    assert aclrtSynchronizeStream(stream) == 0
    assert from_device(out, np.empty(16, np.int32))[[0, 8]].tolist() == [100, 101]
    free_all([out])
    assert aclrtBinaryUnLoad(handle) == 0


@pytest.mark.parametrize(("entries", "code", "detail"), [
    ([(ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD, 1), (ACL_RT_BINARY_LOAD_OPT_MAGIC, ACL_RT_BINARY_MAGIC_ELF_AICORE)], 0, ""),
    ([(ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD, 2)], ACL_ERROR_RT_PARAM_INVALID, "isLazyLoad 2 is invalid"),
    ([(ACL_RT_BINARY_LOAD_OPT_MAGIC, 0x1234)], ACL_ERROR_RT_PARAM_INVALID, "magic 0x1234 is invalid"),
    ([(ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE, 0)], ACL_ERROR_RT_PARAM_INVALID, "cpuKernelMode 0 is invalid"),
    ([(ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE, 2)], ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "AI CPU kernels"),
    ([(ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD, 0), (9, 0)], ACL_ERROR_RT_PARAM_INVALID, "options[1]: option type 9"),
], ids=["valid", "lazy", "magic", "cpu_mode", "aicpu", "unknown"])
def test_load_from_data_options(kernel_file: Path, stream: int, entries: list[tuple[int, int]], code: int,
                                detail: str) -> None:
    image = kernel_file.read_bytes()
    data = ctypes.create_string_buffer(image, len(image))
    options, _array = options_of(*entries)
    handle, ret = aclrtBinaryLoadFromData(ctypes.addressof(data), len(image), ctypes.addressof(options))
    assert ret == code, aclGetRecentErrMsg()
    if code != 0:
        message = aclGetRecentErrMsg()
        assert f"EE{code}: aclrtBinaryLoadFromData: options[" in message and detail in message, message
        return
    ctypes.memset(data, 0, len(image))  # the loaded binary keeps no reference to the caller's data
    launch_and_check(handle, stream)


def test_load_from_file(kernel_file: Path, stream: int, tmp_path: Path) -> None:
    lazy, _array = options_of((ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD, 1))
    handle, ret = aclrtBinaryLoadFromFile(str(kernel_file), ctypes.addressof(lazy))
    assert ret == 0, aclGetRecentErrMsg()
    launch_and_check(handle, stream)
    missing = tmp_path / "missing.o"
    assert aclrtBinaryLoadFromFile(str(missing), 0)[1] == ACL_ERROR_RT_PARAM_INVALID
    assert f'binPath "{missing}" cannot be opened (No such file or directory)' in aclGetRecentErrMsg()
    assert aclrtBinaryLoadFromFile(str(tmp_path), 0)[1] == ACL_ERROR_RT_PARAM_INVALID
    assert "is not a regular file" in aclGetRecentErrMsg()
    (tmp_path / "npu.o").write_bytes(FOREIGN)  # a real NPU binary, refused as aclrtBinaryLoad refuses it
    assert aclrtBinaryLoadFromFile(str(tmp_path / "npu.o"), 0)[1] == ACL_ERROR_RT_PARAM_INVALID
    message = aclGetRecentErrMsg()
    assert "aclrtBinaryLoadFromFile: the binary is an ELF for machine 4137" in message, message
    assert "bisheng -shared -fPIC" in message, message
    # MAGIC is an option of aclrtBinaryLoadFromData only; a struct without its array is refused too.
    magic, _magic_array = options_of((ACL_RT_BINARY_LOAD_OPT_MAGIC, ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE))
    assert aclrtBinaryLoadFromFile(str(kernel_file), ctypes.addressof(magic))[1] == ACL_ERROR_RT_PARAM_INVALID
    assert "ACL_RT_BINARY_LOAD_OPT_MAGIC is not supported when loading from a file" in aclGetRecentErrMsg()
    no_array = LoadOptions(None, 0)
    assert aclrtBinaryLoadFromFile(str(kernel_file), ctypes.addressof(no_array))[1] == ACL_ERROR_RT_PARAM_INVALID
    assert "options->options is NULL" in aclGetRecentErrMsg()


def test_load_from_data_errors(device: int) -> None:
    data = ctypes.create_string_buffer(FOREIGN, len(FOREIGN))
    assert aclrtBinaryLoadFromData(ctypes.addressof(data), len(FOREIGN), 0)[1] == ACL_ERROR_RT_PARAM_INVALID
    assert "aclrtBinaryLoadFromData: the binary is an ELF for machine 4137" in aclGetRecentErrMsg()
    assert aclrtBinaryLoadFromData(0, 16, 0)[1] == ACL_ERROR_INVALID_PARAM
    assert "argument 'data' is NULL" in aclGetRecentErrMsg()
    assert aclrtBinaryLoadFromData(ctypes.addressof(data), 0, 0)[1] == ACL_ERROR_RT_PARAM_INVALID
    assert "length is 0" in aclGetRecentErrMsg()


def test_arguments_past_their_allocation(kernel_file: Path, stream: int) -> None:
    """Regression (the C API fuzzer crashed on it): argument bytes in device or pinned host memory must lie inside
    their live allocation, as the copies' arguments must; they are refused, never read past the end."""
    handle, ret = aclrtBinaryLoadFromFile(str(kernel_file), 0)
    assert ret == 0, aclGetRecentErrMsg()
    func, ret = aclrtBinaryGetFunction(handle, "mark_blocks")
    assert ret == 0, aclGetRecentErrMsg()
    out = to_device(np.zeros(16, np.int32))
    assert aclrtLaunchKernel(func, 2, out, 1 << 40, stream) == ACL_ERROR_RT_PARAM_INVALID
    assert "argsData" in aclGetRecentErrMsg()
    pinned, ret = aclrtMallocHost(64)
    assert ret == 0
    assert aclrtCreateBinary(pinned, 65) == 0
    assert "data" in aclGetRecentErrMsg()
    assert aclrtBinaryLoadFromData(pinned, 1 << 30, 0)[1] == ACL_ERROR_RT_PARAM_INVALID
    assert aclrtFreeHost(pinned) == 0
    free_all([out])
    assert aclrtBinaryUnLoad(handle) == 0
