"""The checks an AI Core enforces, each with a deliberately broken kernel (tests/ascendc/check_kernels.asc) compiled
with ascendsim.ascendc.compile: the launch is queued, and the next synchronize fails with the vector-core exception
of an Ascend910B1 (507035) and a message naming the kernel, the block, the API and the address. Plus the host-side
errors of the binary API, the argument packing of aclrtLaunchKernel, and the mask / repeat forms."""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Iterator

import numpy as np
import pytest

import ascendsim
from ascendc_cases import KERNELS, free_all, from_device, to_device
from ascendcl import (
    ACL_ERROR_INVALID_PARAM,
    ACL_ERROR_RT_KERNEL_LOOKUP,
    ACL_ERROR_RT_PARAM_INVALID,
    ACL_ERROR_RT_VECTOR_CORE_EXCEPTION,
    aclGetRecentErrMsg,
    aclrtBinaryGetFunction,
    aclrtBinaryLoad,
    aclrtCreateBinary,
    aclrtDestroyBinary,
    aclrtLaunchKernel,
    aclrtResetDevice,
    aclrtSetDevice,
    aclrtSynchronizeStream,
)
from ascendsim import ascendc


@pytest.fixture(scope="module")
def module() -> Iterator[ascendc.Module]:
    assert aclrtSetDevice(0) == 0
    loaded = ascendc.compile(KERNELS / "check_kernels.asc")
    yield loaded
    loaded.unload()
    assert aclrtResetDevice(0) == 0


@pytest.fixture
def buffers(stream: int) -> Iterator[tuple[int, int]]:
    pointers = [to_device(np.zeros(256, np.float32)) for _ in range(2)]
    yield pointers[0], pointers[1]
    free_all(pointers)


@pytest.mark.parametrize("case", [
    ("gm_out_of_range", "DataCopy", "reads 1024 bytes of global memory at 0x"),
    ("ub_overflow", "TPipe::InitBuffer", "overflow the unified buffer of 196608 bytes"),
    ("misaligned_copy", "DataCopy", "20 bytes is not a multiple of 32"),
    ("deque_empty", "DeQue", "the VECOUT queue is empty"),
    ("alloc_past_depth", "AllocTensor", "all 1 buffers of the VECIN queue are allocated"),
    ("double_free", "FreeTensor", "was already freed"),
    ("use_after_free", "Adds", "was freed by FreeTensor before this use"),
    ("wait_without_set", "WaitFlag", "was not set by a SetFlag before (the core would hang)"),
    ("overlapping_writes", "DataCopy", "writes the 256 bytes of global memory at 0x"),
])
def test_broken_kernel_fails_at_synchronize(module: ascendc.Module, stream: int, buffers: tuple[int, int],
                                            case: tuple[str, str, str]) -> None:
    kernel, api, detail = case
    getattr(module, kernel)[2, stream](*buffers)  # queued: the launch itself succeeds
    assert aclrtSynchronizeStream(stream) == ACL_ERROR_RT_VECTOR_CORE_EXCEPTION
    message = aclGetRecentErrMsg()
    assert f"kernel {kernel}, block 0 of 2: {api}:" in message and detail in message, message
    assert "UB offset" in message or "0x" in message or kernel == "wait_without_set", message  # the address
    assert aclrtSynchronizeStream(stream) == 0  # reported once


def test_gm_check_names_the_allocation(module: ascendc.Module, stream: int, buffers: tuple[int, int]) -> None:
    module.gm_out_of_range[1, stream](*buffers)
    assert aclrtSynchronizeStream(stream) == ACL_ERROR_RT_VECTOR_CORE_EXCEPTION
    assert "runs past the end of the device allocation of 1024 bytes" in aclGetRecentErrMsg()


class EchoArgs(ctypes.Structure):
    """echo_params's parameters as a C compiler lays them out."""
    _fields_ = [("out", ctypes.c_void_p), ("a", ctypes.c_uint8), ("b", ctypes.c_int64), ("c", ctypes.c_uint16),
                ("d", ctypes.c_float), ("e", ctypes.c_uint16), ("f", ctypes.c_double)]


def test_argument_packing(module: ascendc.Module, stream: int, buffers: tuple[int, int]) -> None:
    out = buffers[0]
    kernel = module.echo_params
    layout = [(name, getattr(EchoArgs, name).offset, getattr(EchoArgs, name).size) for name, _ in EchoArgs._fields_]
    assert [(p["offset"], p["size"]) for p in kernel.params] == [(o, s) for _, o, s in layout]
    assert kernel.args_size == ctypes.sizeof(EchoArgs)
    half = np.float16(-2.5).view(np.uint16)
    packed = EchoArgs(out, 200, -(1 << 40), int(half), 3.25, 65535, 1e300)
    # The C struct straight into aclrtLaunchKernel, and the same values packed from Python: identical bytes.
    assert bytes(packed)[:kernel.args_size] == kernel.pack(out, 200, -(1 << 40), -2.5, 3.25, 65535, 1e300)
    assert aclrtLaunchKernel(kernel.func, 1, ctypes.addressof(packed), ctypes.sizeof(packed), stream) == 0
    assert aclrtSynchronizeStream(stream) == 0
    values = from_device(out, np.empty(6, np.float64))
    assert values.tolist() == [200, -(1 << 40), -2.5, 3.25, 65535, 1e300]


def test_launch_errors(module: ascendc.Module, stream: int, buffers: tuple[int, int]) -> None:
    kernel = module.echo_params
    args = kernel.pack(buffers[0], 1, 2, 3.0, 4.0, 5, 6.0)
    addr = ctypes.addressof(ctypes.create_string_buffer(args, len(args)))
    assert aclrtLaunchKernel(kernel.func, 0, addr, len(args), stream) == ACL_ERROR_INVALID_PARAM
    assert "blockDim 0 of kernel echo_params" in aclGetRecentErrMsg()
    assert aclrtLaunchKernel(kernel.func, 1, addr, 16, stream) == ACL_ERROR_INVALID_PARAM
    assert f"argsSize 16 is smaller than the {kernel.args_size} bytes" in aclGetRecentErrMsg()
    with pytest.raises(AttributeError, match=r"no kernel 'missing'.*has: gm_out_of_range"):
        _ = module.missing
    _, ret = aclrtBinaryGetFunction(module._handle, "missing")
    assert ret == ACL_ERROR_RT_KERNEL_LOOKUP


@pytest.mark.parametrize(("image", "detail"), [
    (b"not an elf at all" * 8, "is not an ELF kernel binary"),
    # An ELF header for machine 0x1029 (not this host): what CANN's device compiler emits is refused.
    (b"\x7fELF\x02\x01\x01" + bytes(11) + struct.pack("<H", 0x1029) + bytes(64), "an ELF for machine 4137"),
])
def test_foreign_binary_is_refused(device: int, image: bytes, detail: str) -> None:
    data = ctypes.create_string_buffer(image, len(image))
    binary = aclrtCreateBinary(ctypes.addressof(data), len(image))
    assert binary
    _, ret = aclrtBinaryLoad(binary)
    assert ret == ACL_ERROR_RT_PARAM_INVALID
    message = aclGetRecentErrMsg()
    assert detail in message and "bisheng -shared -fPIC" in message, message
    assert aclrtDestroyBinary(binary) == 0
    assert aclrtCreateBinary(0, 10) == 0 and "'data' is NULL" in aclGetRecentErrMsg()


def test_mask_repeat_compare_select_cast(module: ascendc.Module, stream: int) -> None:
    x = (np.arange(128, dtype=np.float32) - 60.5) / 7
    ptrs = [to_device(x)] + [to_device(np.zeros(128, np.float32)) for _ in range(3)]
    module.repeat_forms[1, stream](*ptrs)
    assert aclrtSynchronizeStream(stream) == 0, aclGetRecentErrMsg()
    y, z, w = (from_device(ptr, x) for ptr in ptrs[1:])
    expected = np.maximum(x, 0) * 2
    expected[:8] = -1
    np.testing.assert_array_equal(y, expected)
    np.testing.assert_array_equal(z, np.where(x >= 0, x, 0))
    # FLOOR to half: the largest half <= x * 100, exactly.
    scaled = (x * 100).astype(np.float32)
    nearest = scaled.astype(np.float16)
    floor = np.where(nearest.astype(np.float32) > scaled, np.nextafter(nearest, np.float16(-np.inf)), nearest)
    np.testing.assert_array_equal(w, floor.astype(np.float32))
    free_all(ptrs)


def test_tiling_flags_printf_bfloat16(module: ascendc.Module, stream: int, capfd: pytest.CaptureFixture[str]) -> None:
    x = np.random.default_rng(5).standard_normal(64).astype(np.float32)
    # MiscTiling as BEGIN_TILING_DATA_DEF lays it out: uint32 length, float factor, int16 extra[3].
    tiling = struct.pack("<If3h", 64, 1.7, 4, 5, -6) + bytes(2)
    pointers = [to_device(np.frombuffer(tiling, np.uint8)), to_device(x), to_device(np.zeros(71, np.float32))]
    module.misc_apis[1, stream](*pointers)
    assert aclrtSynchronizeStream(stream) == 0, aclGetRecentErrMsg()
    out = from_device(pointers[2], np.empty(71, np.float32))
    np.testing.assert_allclose(out[0], x.sum(), rtol=1e-5)
    assert out[1] == x.max() and out[2] == x.argmax()
    assert out[3:6].tolist() == [64, np.float32(1.7), -6]
    assert out[6] == np.float32(np.float16(1.7))
    bf16 = ((x.view(np.uint32) + 0x7FFF + ((x.view(np.uint32) >> 16) & 1)) & 0xFFFF0000).view(np.float32)
    np.testing.assert_array_equal(out[7:], bf16)  # round to nearest even, as the device
    printed = capfd.readouterr().out
    assert f"misc block 0 of 1: max {x.max():f} at {x.argmax()}, half {float(np.float16(1.7)):f}" in printed
    assert "DumpTensor: desc=7" in printed
    free_all(pointers)


def test_compile_error_shows_the_compiler_output(device: int) -> None:
    source = '#include "kernel_operator.h"\nextern "C" __global__ __aicore__ void k(GM_ADDR x) { undefined_call(x); }\n'
    with pytest.raises(ascendsim.ascendc.CompileError, match=r"(?s)bisheng failed.*k\.asc:2.*undefined_call"):
        ascendsim.ascendc.compile(source, name="k")


def test_compare_select_repeat_forms(module: ascendc.Module, stream: int) -> None:
    rng = np.random.default_rng(7)
    x, y = rng.standard_normal(128).astype(np.float32), rng.standard_normal(128).astype(np.float32)
    pointers = [to_device(x), to_device(y), to_device(np.zeros(128, np.float32))]
    module.compare_select_repeat[1, stream](*pointers)
    assert aclrtSynchronizeStream(stream) == 0, aclGetRecentErrMsg()
    z = from_device(pointers[2], x)
    selected = np.zeros(128, bool)
    selected[0:48] = selected[64:112] = True  # mask 48 in each of the two repeats of 64
    np.testing.assert_array_equal(z, np.where(selected, np.maximum(x, y), x))
    free_all(pointers)


def tree_sum_f16(values: np.ndarray) -> np.float16:
    """The device's pairwise sum of float16 values, each partial rounded to half and saturated at +-65504."""
    v = [np.float16(x) for x in values]
    while len(v) > 1:
        pairs = [np.float16(np.clip(np.float32(a) + np.float32(b), -65504, 65504)) for a, b in zip(v[::2], v[1::2])]
        v = pairs + ([v[-1]] if len(v) % 2 else [])
    return v[0]


def test_half_sums_saturate(module: ascendc.Module, stream: int) -> None:
    x = np.random.default_rng(3).uniform(-4, 4, 256).astype(np.float16)
    x[:4] = [60000, 60000, -30000, 100]  # the documented example: 60000 + 60000 saturates to 65504
    pointers = [to_device(x), to_device(np.zeros(16, np.float16))]
    module.half_sums[1, stream](*pointers)
    assert aclrtSynchronizeStream(stream) == 0, aclGetRecentErrMsg()
    out = from_device(pointers[1], np.empty(16, np.float16))
    assert out[0] == tree_sum_f16(x[:4]) and np.isfinite(out[0])  # not inf: 65504 + (-29904)
    assert out[1] == tree_sum_f16(x[:128])
    total = np.float16(np.clip(np.float32(tree_sum_f16(x[:128])) + np.float32(tree_sum_f16(x[128:])), -65504, 65504))
    assert out[2] == total  # in order across repeats
    free_all(pointers)


def test_tensor_operators_and_brcb(module: ascendc.Module, stream: int) -> None:
    rng = np.random.default_rng(11)
    x, y = rng.standard_normal(64).astype(np.float32), rng.standard_normal(64).astype(np.float32)
    pointers = [to_device(x), to_device(y), to_device(np.zeros(64, np.float32)), to_device(np.zeros(128, np.float32))]
    module.operators_brcb[1, stream](*pointers)
    assert aclrtSynchronizeStream(stream) == 0, aclGetRecentErrMsg()
    z, w = from_device(pointers[2], x), from_device(pointers[3], np.empty(128, np.float32))
    np.testing.assert_array_equal(z, (x + y) * x - y / np.float32(2))  # each step rounded to float, as numpy's
    np.testing.assert_array_equal(w, np.repeat(x[:16], 8))
    free_all(pointers)


def test_block_and_pair_reductions(module: ascendc.Module, stream: int) -> None:
    x = np.random.default_rng(13).standard_normal(128).astype(np.float32)
    pointers = [to_device(x), to_device(np.zeros(128, np.float32))]
    module.block_pair_reduce[1, stream](*pointers)
    assert aclrtSynchronizeStream(stream) == 0, aclGetRecentErrMsg()
    out = from_device(pointers[1], x)
    blocks = x.reshape(16, 8)  # 32-byte blocks of 8 floats
    np.testing.assert_allclose(out[0:16], blocks.sum(axis=1), rtol=1e-6, atol=1e-6)  # pairwise tree order
    np.testing.assert_array_equal(out[16:32], blocks.max(axis=1))
    np.testing.assert_array_equal(out[32:48], blocks.min(axis=1))
    sums = [np.float32(0)] * 2
    for r in range(2):
        v = list(x[64 * r:64 * r + 64])
        while len(v) > 1:
            v = [np.float32(a + b) for a, b in zip(v[::2], v[1::2])]
        sums[r] = v[0]
    assert out[48] == np.float32(sums[0] + sums[1])
    picked = np.concatenate([x[0:32], x[64:96]])
    assert out[56] == picked.max()
    index = int(np.argmax(picked))
    assert out[57:58].view(np.uint32)[0] == (index if index < 32 else index + 32)  # counted in the repeats' elements
    np.testing.assert_array_equal(out[49:56], 0)
    np.testing.assert_array_equal(out[58:64], 0)
    np.testing.assert_array_equal(out[64:128], x[0::2] + x[1::2])
    free_all(pointers)
