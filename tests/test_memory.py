"""Device and host memory through the `ascendcl` face: the aclrtMalloc family, aclrtFree, host memory,
copies and fills (sync, async, 2D) checked against numpy, aclrtGetMemInfo, the caching allocator's
statistics, and every error path. Tests that need a small device or exact statistics run in a fresh
process (ASCENDSIM_DEVICE_MEMORY is read when the runtime starts)."""

from __future__ import annotations

import numpy as np
import pytest

import ascendsim
from acl_helpers import in_thread, run_python
from ascendcl import (
    ACL_DDR_MEM,
    ACL_ERROR_INVALID_PARAM,
    ACL_ERROR_RT_CONTEXT_NULL,
    ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
    ACL_ERROR_RT_INVALID_HANDLE,
    ACL_ERROR_RT_INVALID_MEMORY_TYPE,
    ACL_ERROR_RT_PARAM_INVALID,
    ACL_HBM_MEM,
    ACL_HBM_MEM_P2P_NORMAL,
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_MEM_MALLOC_HUGE_FIRST_P2P,
    ACL_MEM_MALLOC_HUGE_ONLY,
    ACL_MEM_MALLOC_HUGE_ONLY_P2P,
    ACL_MEM_MALLOC_NORMAL_ONLY,
    ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
    ACL_MEM_TYPE_HIGH_BAND_WIDTH,
    ACL_MEM_TYPE_LOW_BAND_WIDTH,
    ACL_MEMCPY_DEFAULT,
    ACL_MEMCPY_DEVICE_TO_DEVICE,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    ACL_MEMCPY_HOST_TO_HOST,
    ACL_SUCCESS,
    aclGetRecentErrMsg,
    aclrtFree,
    aclrtFreeHost,
    aclrtGetMemInfo,
    aclrtMalloc,
    aclrtMallocAlign32,
    aclrtMallocCached,
    aclrtMallocHost,
    aclrtMemcpy,
    aclrtMemcpy2d,
    aclrtMemcpy2dAsync,
    aclrtMemcpyAsync,
    aclrtMemFlush,
    aclrtMemInvalidate,
    aclrtMemset,
    aclrtMemsetAsync,
    aclrtSynchronizeStream,
)

KiB = 1 << 10
MiB = 1 << 20
GiB = 1 << 30
H2D, D2H, D2D, H2H = ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_DEVICE_TO_DEVICE, ACL_MEMCPY_HOST_TO_HOST
POLICIES = [
    ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEM_MALLOC_HUGE_ONLY, ACL_MEM_MALLOC_NORMAL_ONLY,
    ACL_MEM_MALLOC_HUGE_FIRST_P2P, ACL_MEM_MALLOC_HUGE_ONLY_P2P, ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
]


def last_error() -> str:
    return aclGetRecentErrMsg() or ""


def expect(ret: int, code: int, *fragments: str) -> None:
    """`ret` is `code` and the recorded message contains every fragment."""
    message = last_error()
    assert ret == code, f"expected {code}, got {ret}: {message}"
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"


def malloc(size: int, function=aclrtMalloc, policy: int = ACL_MEM_MALLOC_HUGE_FIRST) -> int:
    ptr, ret = function(size, policy)
    assert ret == ACL_SUCCESS, last_error()
    assert ptr != 0
    return ptr


def malloc_host(size: int) -> int:
    ptr, ret = aclrtMallocHost(size)
    assert ret == ACL_SUCCESS, last_error()
    return ptr


def to_device(array: np.ndarray) -> int:
    ptr = malloc(array.nbytes)
    assert aclrtMemcpy(ptr, array.nbytes, array.ctypes.data, array.nbytes, H2D) == ACL_SUCCESS, last_error()
    return ptr


def from_device(ptr: int, like: np.ndarray) -> np.ndarray:
    out = np.empty_like(like)
    assert aclrtMemcpy(out.ctypes.data, out.nbytes, ptr, out.nbytes, D2H) == ACL_SUCCESS, last_error()
    return out


def stats() -> dict[str, int]:
    return ascendsim.memory_stats(0)


# ---- allocation ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("function", [aclrtMalloc, aclrtMallocAlign32, aclrtMallocCached])
def test_malloc_every_policy(device: int, function) -> None:
    for base in POLICIES:
        for flags in (0, ACL_MEM_TYPE_LOW_BAND_WIDTH, ACL_MEM_TYPE_HIGH_BAND_WIDTH):
            ptr = malloc(1000, function, base | flags)
            assert aclrtFree(ptr) == ACL_SUCCESS


def test_unknown_policy_falls_back_to_default(device: int) -> None:
    # The real runtime maps an unrecognised policy to its default placement instead of failing.
    ptr = malloc(64, aclrtMalloc, 99)
    assert aclrtFree(ptr) == ACL_SUCCESS


@pytest.mark.parametrize("function", [aclrtMalloc, aclrtMallocAlign32, aclrtMallocCached])
def test_malloc_bad_sizes(device: int, function) -> None:
    expect(function(0, ACL_MEM_MALLOC_HUGE_FIRST)[1], ACL_ERROR_INVALID_PARAM, function.__name__, "size is 0")
    expect(function(2**64 - 1, ACL_MEM_MALLOC_HUGE_FIRST)[1], ACL_ERROR_INVALID_PARAM, "too large")


def test_malloc_without_context_fails() -> None:
    for function in (aclrtMalloc, aclrtMallocAlign32, aclrtMallocCached):
        assert in_thread(lambda f=function: f(64, ACL_MEM_MALLOC_HUGE_FIRST)[1]) == ACL_ERROR_RT_CONTEXT_NULL
    assert "no current context" in in_thread(lambda: (aclrtMalloc(64, 0), last_error())[1])


def test_malloc_rounding_and_padding(device: int) -> None:
    # aclrtMalloc allocates round_up(size, 32) + 32 bytes, aclrtMallocAlign32 round_up(size, 32); the
    # allocator then rounds blocks to 512 bytes. 1000 -> 1056 -> 1536 and 1000 -> 1024 -> 1024.
    before = stats()
    padded = malloc(1000, aclrtMalloc)
    middle = stats()
    aligned = malloc(1000, aclrtMallocAlign32)
    after = stats()
    assert middle["allocated_bytes"] - before["allocated_bytes"] == 1536
    assert after["allocated_bytes"] - middle["allocated_bytes"] == 1024
    assert after["requested_bytes"] - before["requested_bytes"] == 2000
    assert padded % 512 == 0 and aligned % 512 == 0
    assert aclrtFree(padded) == ACL_SUCCESS
    assert aclrtFree(aligned) == ACL_SUCCESS


def test_free_errors(device: int) -> None:
    expect(aclrtFree(0), ACL_ERROR_INVALID_PARAM, "aclrtFree", "devPtr", "NULL")
    ptr = malloc(4096)
    expect(aclrtFree(ptr + 16), ACL_ERROR_RT_PARAM_INVALID, "aclrtFree", "not the start of an allocation",
           "16 bytes into")
    assert aclrtFree(ptr) == ACL_SUCCESS
    expect(aclrtFree(ptr), ACL_ERROR_RT_PARAM_INVALID, "double free")
    # Inside the device's address space (32 GiB) but far beyond anything reserved.
    expect(aclrtFree(ptr + 16 * GiB), ACL_ERROR_RT_PARAM_INVALID, "not a live allocation")
    host = np.zeros(16, np.uint8)
    expect(aclrtFree(host.ctypes.data), ACL_ERROR_RT_PARAM_INVALID, "not device memory")
    pinned = malloc_host(64)
    expect(aclrtFree(pinned), ACL_ERROR_RT_PARAM_INVALID, "aclrtFreeHost")
    assert aclrtFreeHost(pinned) == ACL_SUCCESS


def test_free_then_malloc_same_size_reuses_address(device: int) -> None:
    for size in (100, 64 * KiB, 3 * MiB, 40 * MiB):
        before = stats()
        first = malloc(size)
        assert aclrtFree(first) == ACL_SUCCESS
        second = malloc(size)
        after = stats()
        assert second == first
        assert after["allocation_count"] - before["allocation_count"] == 2
        assert after["cache_hits"] - before["cache_hits"] >= 1  # the second one at least
        assert aclrtFree(second) == ACL_SUCCESS


def test_stats_count_allocations(device: int) -> None:
    before = stats()
    ptrs = [malloc(10 * KiB) for _ in range(5)]
    during = stats()
    assert during["allocation_count"] - before["allocation_count"] == 5
    assert during["allocated_bytes"] - before["allocated_bytes"] == 5 * (10 * KiB + 512)
    assert during["peak_allocated_bytes"] >= during["allocated_bytes"]
    assert during["reserved_bytes"] >= during["allocated_bytes"]
    for ptr in ptrs:
        assert aclrtFree(ptr) == ACL_SUCCESS
    after = stats()
    assert after["free_count"] - before["free_count"] == 5
    assert after["allocated_bytes"] == before["allocated_bytes"]
    assert after["peak_allocated_bytes"] >= during["allocated_bytes"]
    ascendsim.reset_peak_memory_stats(0)
    reset = stats()
    assert reset["peak_allocated_bytes"] == reset["allocated_bytes"]
    assert reset["peak_reserved_bytes"] == reset["reserved_bytes"]


def test_stats_functions_reject_bad_device() -> None:
    for function in (ascendsim.memory_stats, ascendsim.reset_peak_memory_stats, ascendsim.empty_cache):
        with pytest.raises(RuntimeError, match="device id 999"):
            function(999)


# ---- host memory -----------------------------------------------------------------------------------------

def test_malloc_host_round_trip(device: int) -> None:
    ptr = malloc_host(10_000)
    assert ptr % 4096 == 0
    data = np.arange(2500, dtype=np.int32)
    assert aclrtMemcpy(ptr, 10_000, data.ctypes.data, data.nbytes, H2H) == ACL_SUCCESS
    out = np.empty_like(data)
    assert aclrtMemcpy(out.ctypes.data, out.nbytes, ptr, data.nbytes, H2H) == ACL_SUCCESS
    np.testing.assert_array_equal(out, data)
    assert aclrtFreeHost(ptr) == ACL_SUCCESS


def test_host_memory_errors() -> None:
    expect(aclrtMallocHost(0)[1], ACL_ERROR_INVALID_PARAM, "aclrtMallocHost", "size is 0")
    expect(aclrtFreeHost(0), ACL_ERROR_INVALID_PARAM, "aclrtFreeHost", "NULL")
    ptr = malloc_host(8192)
    expect(aclrtFreeHost(ptr + 100), ACL_ERROR_RT_PARAM_INVALID, "not the start")
    assert aclrtFreeHost(ptr) == ACL_SUCCESS
    expect(aclrtFreeHost(ptr), ACL_ERROR_RT_PARAM_INVALID, "double free")
    array = np.zeros(4, np.int64)
    expect(aclrtFreeHost(array.ctypes.data), ACL_ERROR_RT_PARAM_INVALID, "not allocated by aclrtMallocHost")


def test_free_host_of_device_pointer(device: int) -> None:
    ptr = malloc(64)
    expect(aclrtFreeHost(ptr), ACL_ERROR_RT_PARAM_INVALID, "device 0 memory", "aclrtFree")
    assert aclrtFree(ptr) == ACL_SUCCESS


# ---- synchronous copies --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.uint8, np.float16, np.float32, np.int64])
def test_memcpy_round_trip(device: int, dtype) -> None:
    rng = np.random.default_rng(7)
    data = (rng.standard_normal(12_345) * 100).astype(dtype)
    ptr = to_device(data)
    np.testing.assert_array_equal(from_device(ptr, data), data)
    # Device to device, then back with ACL_MEMCPY_DEFAULT in both directions.
    other = malloc(data.nbytes)
    assert aclrtMemcpy(other, data.nbytes, ptr, data.nbytes, D2D) == ACL_SUCCESS
    out = np.empty_like(data)
    assert aclrtMemcpy(out.ctypes.data, out.nbytes, other, data.nbytes, ACL_MEMCPY_DEFAULT) == ACL_SUCCESS
    np.testing.assert_array_equal(out, data)
    assert aclrtFree(ptr) == ACL_SUCCESS
    assert aclrtFree(other) == ACL_SUCCESS


def test_memcpy_large_round_trip(device: int) -> None:
    data = np.random.default_rng(1).integers(0, 2**63, size=(64 * MiB) // 8, dtype=np.int64)
    ptr = to_device(data)
    np.testing.assert_array_equal(from_device(ptr, data), data)
    assert aclrtFree(ptr) == ACL_SUCCESS


def test_memcpy_interior_pointers(device: int) -> None:
    data = np.arange(1024, dtype=np.uint32)
    ptr = to_device(data)
    part = np.full(100, 7, np.uint32)
    assert aclrtMemcpy(ptr + 400, 400, part.ctypes.data, 400, H2D) == ACL_SUCCESS
    expected = data.copy()
    expected[100:200] = 7
    np.testing.assert_array_equal(from_device(ptr, data), expected)
    # The last 4 bytes of the allocation, read through an interior pointer.
    tail = np.empty(1, np.uint32)
    assert aclrtMemcpy(tail.ctypes.data, 4, ptr + 4092, 4, D2H) == ACL_SUCCESS
    assert tail[0] == 1023
    assert aclrtFree(ptr) == ACL_SUCCESS


def test_memcpy_host_to_host_pageable(device: int) -> None:
    src = np.arange(100, dtype=np.float64)
    dst = np.zeros_like(src)
    assert aclrtMemcpy(dst.ctypes.data, dst.nbytes, src.ctypes.data, src.nbytes, H2H) == ACL_SUCCESS
    np.testing.assert_array_equal(dst, src)


def test_memcpy_kind_is_a_hint(device: int) -> None:
    # Since CANN 7.0 the kind is reserved: aclrtMemcpy copies as its pointers say, whatever valid kind it gets
    # (the Python samples pass one that contradicts them). Bounds and liveness are still checked.
    data = np.arange(64, dtype=np.uint8)
    ptr = malloc(64)
    assert aclrtMemcpy(ptr, 64, data.ctypes.data, 64, D2H) == ACL_SUCCESS, last_error()  # really host to device
    out = np.zeros_like(data)
    assert aclrtMemcpy(out.ctypes.data, 64, ptr, 64, H2D) == ACL_SUCCESS, last_error()  # really device to host
    np.testing.assert_array_equal(out, data)
    other = malloc(64)
    assert aclrtMemcpy(other, 64, ptr, 64, H2H) == ACL_SUCCESS  # really device to device
    np.testing.assert_array_equal(from_device(other, data), data)
    expect(aclrtMemcpy(ptr, 64, data.ctypes.data, 65, D2H), ACL_ERROR_RT_PARAM_INVALID, "larger than destMax")
    expect(aclrtMemcpy(ptr, 128, data.ctypes.data, 128, D2H), ACL_ERROR_RT_PARAM_INVALID, "runs past the end")
    expect(aclrtMemcpy(ptr, 64, data.ctypes.data, 64, 7), ACL_ERROR_INVALID_PARAM, "kind 7")
    assert aclrtFree(other) == ACL_SUCCESS
    expect(aclrtMemcpy(other, 64, data.ctypes.data, 64, D2D), ACL_ERROR_RT_PARAM_INVALID, "freed")
    assert aclrtFree(ptr) == ACL_SUCCESS


def test_async_and_2d_copies_correct_the_kind_as_the_runtime(stream: int) -> None:
    # CANN's MemcpyKindAutoCorrect: between device memory and aclrtMallocHost memory the pointers decide; with
    # pageable host memory on a side the kind must be one that side could make true.
    data = np.arange(256, dtype=np.uint8)
    pinned, dev = malloc_host(256), malloc(256)
    assert aclrtMemcpy(pinned, 256, data.ctypes.data, 256, H2H) == ACL_SUCCESS
    assert aclrtMemcpyAsync(dev, 256, pinned, 256, D2H, stream) == ACL_SUCCESS, last_error()  # corrected to H2D
    assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
    np.testing.assert_array_equal(from_device(dev, data), data)
    pageable = np.zeros_like(data)
    expect(aclrtMemcpyAsync(dev, 256, pageable.ctypes.data, 256, D2H, stream), ACL_ERROR_RT_PARAM_INVALID,
           "kind ACL_MEMCPY_DEVICE_TO_HOST is impossible", "ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_DEVICE")
    assert aclrtMemcpyAsync(pageable.ctypes.data, 256, dev, 256, D2D, stream) == ACL_SUCCESS  # allowed: D2H, D2D
    np.testing.assert_array_equal(pageable, data)
    expect(aclrtMemcpyAsync(dev, 512, pinned, 512, D2H, stream), ACL_ERROR_RT_PARAM_INVALID, "runs past the end")
    rows = malloc(64 * 4)
    assert aclrtMemcpy2d(rows, 64, pinned, 64, 32, 4, D2H) == ACL_SUCCESS, last_error()  # corrected to H2D
    expect(aclrtMemcpy2d(rows, 64, dev, 64, 32, 4, H2D), ACL_ERROR_RT_PARAM_INVALID,
           "copies only between host and device")
    assert aclrtMemcpy2dAsync(rows, 64, dev, 64, 32, 4, H2D, stream) == ACL_SUCCESS  # async: D2D is fine
    assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
    for ptr in (dev, rows):
        assert aclrtFree(ptr) == ACL_SUCCESS
    assert aclrtFreeHost(pinned) == ACL_SUCCESS


def test_memcpy_zero_count_is_a_no_op(device: int) -> None:
    assert aclrtMemcpy(0, 0, 0, 0, H2D) == ACL_SUCCESS
    assert aclrtMemcpy(0, 0, 0, 0, 99) == ACL_SUCCESS


def test_memcpy_argument_errors(device: int) -> None:
    ptr = malloc(1024)
    host = np.zeros(4096, np.uint8)
    h = host.ctypes.data
    expect(aclrtMemcpy(0, 16, h, 16, H2D), ACL_ERROR_INVALID_PARAM, "aclrtMemcpy", "'dst' is NULL")
    expect(aclrtMemcpy(ptr, 16, 0, 16, H2D), ACL_ERROR_INVALID_PARAM, "'src' is NULL")
    for kind in (5, 99):
        expect(aclrtMemcpy(ptr, 16, h, 16, kind), ACL_ERROR_INVALID_PARAM, f"kind {kind}")
    expect(aclrtMemcpy(ptr, 1024, h, 4096, H2D), ACL_ERROR_RT_PARAM_INVALID,
           "aclrtMemcpy: count 4096 is larger than destMax 1024")
    expect(aclrtMemcpy(ptr, 0, h, 1, H2D), ACL_ERROR_RT_PARAM_INVALID, "larger than destMax 0")
    assert aclrtFree(ptr) == ACL_SUCCESS


def test_memcpy_out_of_bounds(device: int) -> None:
    ptr = malloc(1000)  # 1056 bytes really allocated: the padding is not the caller's
    host = np.zeros(4096, np.uint8)
    h = host.ctypes.data
    assert aclrtMemcpy(ptr, 1000, h, 1000, H2D) == ACL_SUCCESS
    expect(aclrtMemcpy(ptr, 4096, h, 1001, H2D), ACL_ERROR_RT_PARAM_INVALID, "dst", "runs past the end",
           "at most 1000 bytes fit")
    expect(aclrtMemcpy(ptr + 900, 4096, h, 101, H2D), ACL_ERROR_RT_PARAM_INVALID, "900 bytes into",
           "at most 100 bytes fit")
    expect(aclrtMemcpy(h, 4096, ptr, 2000, D2H), ACL_ERROR_RT_PARAM_INVALID, "src", "runs past the end")
    # Device address space that no allocation covers.
    expect(aclrtMemcpy(h, 16, ptr + 16 * GiB, 16, D2H), ACL_ERROR_RT_PARAM_INVALID, "src", "not live device memory",
           "in no allocation")
    assert aclrtFree(ptr) == ACL_SUCCESS


def test_memcpy_on_freed_memory(device: int) -> None:
    ptr = malloc(256)
    assert aclrtFree(ptr) == ACL_SUCCESS
    host = np.zeros(256, np.uint8)
    expect(aclrtMemcpy(host.ctypes.data, 256, ptr, 256, D2H), ACL_ERROR_RT_PARAM_INVALID, "src",
           "not live device memory", "freed")
    expect(aclrtMemcpy(ptr, 256, host.ctypes.data, 256, H2D), ACL_ERROR_RT_PARAM_INVALID, "dst", "freed")


def test_memcpy_bounds_of_host_buffers(device: int) -> None:
    pinned = malloc_host(100)
    dev = malloc(4096)
    assert aclrtMemcpy(pinned, 100, dev, 100, D2H) == ACL_SUCCESS
    expect(aclrtMemcpy(pinned, 4096, dev, 200, D2H), ACL_ERROR_RT_PARAM_INVALID, "aclrtMallocHost buffer",
           "at most 100 bytes fit")
    assert aclrtFreeHost(pinned) == ACL_SUCCESS
    assert aclrtFree(dev) == ACL_SUCCESS


# ---- memset ------------------------------------------------------------------------------------------------

def test_memset(device: int) -> None:
    ptr = to_device(np.zeros(1000, np.uint8))
    assert aclrtMemset(ptr + 100, 900, 0x5A, 800) == ACL_SUCCESS
    expected = np.zeros(1000, np.uint8)
    expected[100:900] = 0x5A
    np.testing.assert_array_equal(from_device(ptr, expected), expected)
    assert aclrtMemset(ptr, 1000, 0x1FF, 10) == ACL_SUCCESS  # like memset: the low byte
    expected[:10] = 0xFF
    np.testing.assert_array_equal(from_device(ptr, expected), expected)
    assert aclrtMemset(0, 0, 1, 0) == ACL_SUCCESS  # count 0: nothing to check
    assert aclrtFree(ptr) == ACL_SUCCESS


def test_memset_errors(device: int) -> None:
    ptr = malloc(1000)
    expect(aclrtMemset(0, 10, 0, 10), ACL_ERROR_INVALID_PARAM, "aclrtMemset", "'devPtr' is NULL")
    expect(aclrtMemset(ptr, 10, 0, 11), ACL_ERROR_RT_PARAM_INVALID, "count 11 is larger than maxCount 10")
    expect(aclrtMemset(ptr, 4096, 0, 1001), ACL_ERROR_RT_PARAM_INVALID, "runs past the end")
    host = np.zeros(16, np.uint8)
    expect(aclrtMemset(host.ctypes.data, 16, 0, 16), ACL_ERROR_RT_PARAM_INVALID, "host memory the ACL did not allocate")
    assert aclrtFree(ptr) == ACL_SUCCESS
    expect(aclrtMemset(ptr, 16, 0, 16), ACL_ERROR_RT_PARAM_INVALID, "freed")


def test_memset_fills_acl_host_memory(stream: int) -> None:
    # "The system tells from the address whether the memory is on the host or the device": aclrtMallocHost
    # memory is filled too (synchronously, or as a stream task), inside its buffer.
    from stream_helpers import PinnedBuffer, gated, reporter

    small = PinnedBuffer(1000)
    try:
        assert aclrtMemset(small.address + 100, 900, 0x5A, 800) == ACL_SUCCESS, last_error()
        expected = np.zeros(1000, np.uint8)
        expected[100:900] = 0x5A
        np.testing.assert_array_equal(small.array, expected)
        expect(aclrtMemset(small.address + 100, 1000, 0, 901), ACL_ERROR_RT_PARAM_INVALID, "runs past the end",
               "aclrtMallocHost buffer")
        expect(aclrtMemsetAsync(small.address, 2000, 0, 1001, stream), ACL_ERROR_RT_PARAM_INVALID, "runs past the end")
        assert aclrtMemsetAsync(small.address, 1000, 0x33, 10, stream) == ACL_SUCCESS, last_error()
        assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
        expected[:10] = 0x33
        np.testing.assert_array_equal(small.array, expected)
    finally:
        small.free()
    # A queued fill holds its buffer as a queued copy does: freeing it first gives the memory back only after the
    # task ran. 64 MiB is mmap'd by malloc whatever its threshold, so an early free would unmap it under the task.
    big = PinnedBuffer(64 * MiB)
    with reporter() as serving, gated(stream, serving) as gate:
        assert aclrtMemsetAsync(big.address, 64 * MiB, 0x77, 64 * MiB, stream) == ACL_SUCCESS, last_error()
        big.free()
        gate.open()
        assert aclrtSynchronizeStream(stream) == ACL_SUCCESS


# ---- asynchronous copies -----------------------------------------------------------------------------------

def test_memcpy_async_with_pinned_memory(stream: int) -> None:
    n = 256 * KiB
    data = np.random.default_rng(3).integers(0, 255, n, dtype=np.uint8)
    src, back = malloc_host(n), malloc_host(n)
    dev = malloc(n)
    assert aclrtMemcpy(src, n, data.ctypes.data, n, H2H) == ACL_SUCCESS
    assert aclrtMemcpyAsync(dev, n, src, n, H2D, stream) == ACL_SUCCESS
    assert aclrtMemsetAsync(dev, n, 0x11, 16, stream) == ACL_SUCCESS
    assert aclrtMemcpyAsync(back, n, dev, n, ACL_MEMCPY_DEFAULT, stream) == ACL_SUCCESS
    assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
    out = np.empty_like(data)
    assert aclrtMemcpy(out.ctypes.data, n, back, n, H2H) == ACL_SUCCESS
    expected = data.copy()
    expected[:16] = 0x11
    np.testing.assert_array_equal(out, expected)
    for ptr in (src, back):
        assert aclrtFreeHost(ptr) == ACL_SUCCESS
    assert aclrtFree(dev) == ACL_SUCCESS


def test_memcpy_async_pageable_and_default_stream(device: int) -> None:
    # Pageable host memory (a numpy array) works too: the copy is done before the call returns.
    data = np.arange(4096, dtype=np.float32)
    dev = malloc(data.nbytes)
    assert aclrtMemcpyAsync(dev, data.nbytes, data.ctypes.data, data.nbytes, H2D, 0) == ACL_SUCCESS
    other = malloc(data.nbytes)
    assert aclrtMemcpyAsync(other, data.nbytes, dev, data.nbytes, D2D, 0) == ACL_SUCCESS
    out = np.zeros_like(data)
    assert aclrtMemcpyAsync(out.ctypes.data, out.nbytes, other, out.nbytes, D2H, 0) == ACL_SUCCESS
    np.testing.assert_array_equal(out, data)
    assert aclrtFree(dev) == ACL_SUCCESS
    assert aclrtFree(other) == ACL_SUCCESS


def test_memcpy_async_errors(stream: int) -> None:
    dev = malloc(1024)
    host = np.zeros(1024, np.uint8)
    h = host.ctypes.data
    assert aclrtMemcpyAsync(0, 0, 0, 0, H2D, stream) == ACL_SUCCESS
    expect(aclrtMemcpyAsync(0, 16, h, 16, H2D, stream), ACL_ERROR_INVALID_PARAM, "aclrtMemcpyAsync", "'dst'")
    expect(aclrtMemcpyAsync(dev, 16, h, 16, 42, stream), ACL_ERROR_INVALID_PARAM, "kind 42")
    expect(aclrtMemcpyAsync(dev, 16, h, 32, H2D, stream), ACL_ERROR_RT_PARAM_INVALID, "larger than destMax")
    expect(aclrtMemcpyAsync(dev, 4096, h, 2048, H2D, stream), ACL_ERROR_RT_PARAM_INVALID, "runs past the end")
    # With pageable host memory the kind must be one that memory could make true: here dst is device memory.
    expect(aclrtMemcpyAsync(dev, 16, h, 16, D2H, stream), ACL_ERROR_RT_PARAM_INVALID,
           "kind ACL_MEMCPY_DEVICE_TO_HOST is impossible", "dst is device 0 memory, src is host memory")
    other = np.zeros(16, np.uint8)
    for kind in (H2H, ACL_MEMCPY_DEFAULT):
        expect(aclrtMemcpyAsync(other.ctypes.data, 16, h, 16, kind, stream), ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
               "host-to-host")
    expect(aclrtMemcpyAsync(dev, 16, h, 16, H2D, 0x1234), ACL_ERROR_RT_INVALID_HANDLE, "stream")
    expect(aclrtMemsetAsync(dev, 16, 0, 16, 0x1234), ACL_ERROR_RT_INVALID_HANDLE, "stream")
    expect(aclrtMemsetAsync(dev, 16, 0, 17, stream), ACL_ERROR_RT_PARAM_INVALID, "larger than maxCount")
    expect(aclrtMemsetAsync(0, 16, 0, 16, stream), ACL_ERROR_INVALID_PARAM, "'devPtr' is NULL")
    assert aclrtMemsetAsync(0, 0, 0, 0, stream) == ACL_SUCCESS
    assert aclrtFree(dev) == ACL_SUCCESS
    expect(aclrtMemsetAsync(dev, 16, 0, 16, stream), ACL_ERROR_RT_PARAM_INVALID, "freed")
    assert aclrtSynchronizeStream(stream) == ACL_SUCCESS


def test_async_without_context_on_default_stream(device: int) -> None:
    dev = malloc(64)
    host = np.zeros(64, np.uint8)
    assert in_thread(lambda: aclrtMemcpyAsync(dev, 64, host.ctypes.data, 64, H2D, 0)) == ACL_ERROR_RT_CONTEXT_NULL
    assert in_thread(lambda: aclrtMemsetAsync(dev, 64, 0, 64, 0)) == ACL_ERROR_RT_CONTEXT_NULL
    assert aclrtFree(dev) == ACL_SUCCESS


# ---- 2D copies ---------------------------------------------------------------------------------------------

def test_memcpy2d_matches_numpy_slicing(device: int) -> None:
    image = np.random.default_rng(5).integers(0, 2**16, size=(37, 50), dtype=np.uint16)
    rows, cols, first_col = 30, 20, 7
    width, spitch, dpitch = cols * 2, image.strides[0], 64
    dev = malloc(dpitch * rows)
    src = image.ctypes.data + 3 * spitch + first_col * 2  # starting at row 3, column 7
    assert aclrtMemcpy2d(dev, dpitch, src, spitch, width, rows, H2D) == ACL_SUCCESS
    out = np.zeros((rows, cols), np.uint16)
    assert aclrtMemcpy2d(out.ctypes.data, width, dev, dpitch, width, rows, D2H) == ACL_SUCCESS
    np.testing.assert_array_equal(out, image[3:3 + rows, first_col:first_col + cols])
    # Width 0 or height 0: nothing to do, nothing checked.
    assert aclrtMemcpy2d(0, 0, 0, 0, 0, 5, H2D) == ACL_SUCCESS
    assert aclrtMemcpy2d(0, 0, 0, 0, 5, 0, H2D) == ACL_SUCCESS
    assert aclrtFree(dev) == ACL_SUCCESS


def test_memcpy2d_async(stream: int) -> None:
    matrix = np.arange(16 * 16, dtype=np.float32).reshape(16, 16)
    dev = to_device(matrix)
    column_block = malloc(16 * 4 * 4)
    # Columns 4..7 of every row, device to device, into a packed 16x4 block.
    assert aclrtMemcpy2dAsync(column_block, 16, dev + 16, 64, 16, 16, D2D, stream) == ACL_SUCCESS
    back = malloc_host(16 * 16)
    assert aclrtMemcpy2dAsync(back, 16, column_block, 16, 16, 16, D2H, stream) == ACL_SUCCESS
    assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
    out = np.empty((16, 4), np.float32)
    assert aclrtMemcpy(out.ctypes.data, out.nbytes, back, out.nbytes, H2H) == ACL_SUCCESS
    np.testing.assert_array_equal(out, matrix[:, 4:8])
    assert aclrtFreeHost(back) == ACL_SUCCESS
    assert aclrtFree(dev) == ACL_SUCCESS
    assert aclrtFree(column_block) == ACL_SUCCESS


def test_memcpy2d_errors(stream: int) -> None:
    dev = malloc(64 * 10)
    host = np.zeros(64 * 10, np.uint8)
    h = host.ctypes.data
    expect(aclrtMemcpy2d(0, 64, h, 64, 32, 10, H2D), ACL_ERROR_INVALID_PARAM, "aclrtMemcpy2d", "'dst'")
    expect(aclrtMemcpy2d(dev, 64, 0, 64, 32, 10, H2D), ACL_ERROR_INVALID_PARAM, "'src'")
    expect(aclrtMemcpy2d(dev, 64, h, 16, 32, 10, H2D), ACL_ERROR_INVALID_PARAM, "width 32 is larger than spitch 16")
    expect(aclrtMemcpy2d(dev, 16, h, 64, 32, 10, H2D), ACL_ERROR_INVALID_PARAM, "width 32 is larger than dpitch 16")
    for kind in (H2H, D2D):
        expect(aclrtMemcpy2d(dev, 64, h, 64, 32, 10, kind), ACL_ERROR_INVALID_PARAM, "is not supported")
    expect(aclrtMemcpy2d(dev, 64, h, 64, 32, 10, 77), ACL_ERROR_INVALID_PARAM, "kind 77")
    # 11 rows at pitch 64 need 10 * 64 + 32 bytes: the last row leaves the allocation.
    expect(aclrtMemcpy2d(dev, 64, h, 32, 32, 11, H2D), ACL_ERROR_RT_PARAM_INVALID, "runs past the end", "11 rows")
    expect(aclrtMemcpy2d(dev, 2**62, h, 2**62, 32, 10, H2D), ACL_ERROR_INVALID_PARAM, "overflows")
    expect(aclrtMemcpy2dAsync(dev, 64, h, 64, 32, 10, H2H, stream), ACL_ERROR_INVALID_PARAM, "is not supported")
    expect(aclrtMemcpy2dAsync(dev, 64, h, 64, 32, 10, D2H, stream), ACL_ERROR_RT_PARAM_INVALID, "is impossible")
    expect(aclrtMemcpy2dAsync(dev, 64, h, 64, 32, 10, H2D, 0x999), ACL_ERROR_RT_INVALID_HANDLE, "stream")
    assert aclrtFree(dev) == ACL_SUCCESS


# ---- cache maintenance and memory info ------------------------------------------------------------------

def test_mem_flush_and_invalidate(device: int) -> None:
    dev = malloc(4096, aclrtMallocCached)
    for function in (aclrtMemFlush, aclrtMemInvalidate):
        assert function(dev, 4096) == ACL_SUCCESS
        assert function(dev + 100, 100) == ACL_SUCCESS
        expect(function(0, 16), ACL_ERROR_INVALID_PARAM, function.__name__, "NULL")
        expect(function(dev, 0), ACL_ERROR_INVALID_PARAM, "size is 0")
        expect(function(dev, 8192), ACL_ERROR_RT_PARAM_INVALID, "runs past the end")
        host = np.zeros(16, np.uint8)
        expect(function(host.ctypes.data, 16), ACL_ERROR_RT_PARAM_INVALID, "host memory")
    assert aclrtFree(dev) == ACL_SUCCESS


def test_get_mem_info(device: int) -> None:
    free, total, ret = aclrtGetMemInfo(ACL_HBM_MEM)
    assert ret == ACL_SUCCESS
    assert total == stats()["capacity_bytes"] == 32 * GiB
    allocated = stats()["allocated_bytes"]
    assert free == total - allocated
    dev = malloc(10 * MiB)
    free_after, _, _ = aclrtGetMemInfo(ACL_DDR_MEM)
    # The block holds 10 MiB + 32 (+ 32 padding) bytes, rounded to 512; a cached block a little larger
    # may be taken whole.
    assert free - free_after == stats()["allocated_bytes"] - allocated >= 10 * MiB + 512
    assert aclrtFree(dev) == ACL_SUCCESS
    for attr in range(ACL_DDR_MEM, ACL_HBM_MEM_P2P_NORMAL + 1):
        assert aclrtGetMemInfo(attr)[2] == ACL_SUCCESS


def test_get_mem_info_errors(device: int) -> None:
    for attr in (ACL_HBM_MEM_P2P_NORMAL + 1, 100):
        expect(aclrtGetMemInfo(attr)[2], ACL_ERROR_RT_INVALID_MEMORY_TYPE, "aclrtGetMemInfo", f"attr {attr}")


def test_get_mem_info_without_context() -> None:
    assert in_thread(lambda: aclrtGetMemInfo(ACL_HBM_MEM)[2]) == ACL_ERROR_RT_CONTEXT_NULL


# ---- a fresh, small device: exact statistics, split/coalesce, out of memory -------------------------------

SMALL_DEVICE = """
    import ascendsim
    from ascendcl import *

    MiB = 1 << 20
    assert aclInit("") == 0 and aclrtSetDevice(0) == 0
    s = ascendsim.memory_stats(0)
    assert s["capacity_bytes"] == 64 * MiB and s["reserved_bytes"] == 0, s
    assert s["largest_free_block"] == 64 * MiB, s
    free, total, ret = aclrtGetMemInfo(ACL_HBM_MEM)
    assert (free, total, ret) == (64 * MiB, 64 * MiB, 0)

    # A 62 MiB buffer and two 100 KiB ones in one 2 MiB small segment: the whole device is reserved.
    big, ret = aclrtMallocAlign32(62 * MiB, 0)
    a, ret_a = aclrtMallocAlign32(100 * 1024, 0)
    b, ret_b = aclrtMallocAlign32(100 * 1024, 0)
    assert ret == ret_a == ret_b == 0
    assert b == a + 100 * 1024  # split off the same segment, right after a
    s = ascendsim.memory_stats(0)
    assert s["segment_count"] == 2 and s["reserved_bytes"] == 64 * MiB, s
    assert s["allocated_bytes"] == 62 * MiB + 200 * 1024, s
    assert s["largest_free_block"] == 2 * MiB - 200 * 1024, s

    # Freeing a and b coalesces the whole small segment back into one block.
    assert aclrtFree(a) == 0
    assert ascendsim.memory_stats(0)["largest_free_block"] == 2 * MiB - 200 * 1024
    assert aclrtFree(b) == 0
    assert ascendsim.memory_stats(0)["largest_free_block"] == 2 * MiB
    c, ret = aclrtMallocAlign32(200 * 1024, 0)
    assert ret == 0 and c == a
    assert aclrtFree(c) == 0

    # 3 MiB needs a new 20 MiB segment: the cached small segment is released, still not enough.
    ptr, ret = aclrtMalloc(3 * MiB, 0)
    assert (ptr, ret) == (0, ACL_ERROR_RT_MEMORY_ALLOCATION), (ptr, ret)
    message = aclGetRecentErrMsg()
    for fragment in ("EE207001", "aclrtMalloc", "device 0 out of memory", "tried to allocate 3.00 MiB",
                     "3145760 bytes", "capacity 64.00 MiB", "62.00 MiB allocated", "62.00 MiB reserved",
                     "2.00 MiB free", "largest free block 2.00 MiB", "ASCENDSIM_DEVICE_MEMORY"):
        assert fragment in message, (fragment, message)
    s = ascendsim.memory_stats(0)
    assert s["oom_count"] == 1 and s["alloc_retries"] == 1 and s["segment_count"] == 1, s
    assert s["reserved_bytes"] == 62 * MiB, s
    huge, ret = aclrtMalloc(1 << 40, 0)
    assert ret == ACL_ERROR_RT_MEMORY_ALLOCATION and "tried to allocate 1.00 TiB" in aclGetRecentErrMsg()

    # After freeing the big buffer the same request is served from its cached block.
    assert aclrtFree(big) == 0
    ptr, ret = aclrtMalloc(3 * MiB, 0)
    assert ret == 0 and ptr == big
    s = ascendsim.memory_stats(0)
    assert s["peak_allocated_bytes"] == 62 * MiB + 200 * 1024, s
    assert s["peak_reserved_bytes"] == 64 * MiB, s
    ascendsim.reset_peak_memory_stats(0)
    s = ascendsim.memory_stats(0)
    assert s["peak_allocated_bytes"] == s["allocated_bytes"] == 3 * MiB + 512, s
    assert aclrtFree(ptr) == 0

    # empty_cache gives every unused segment back; the device is whole again.
    ascendsim.empty_cache(0)
    s = ascendsim.memory_stats(0)
    assert s["reserved_bytes"] == 0 and s["segment_count"] == 0 and s["largest_free_block"] == 64 * MiB, s
    assert set(s) == {"capacity_bytes", "allocated_bytes", "requested_bytes", "reserved_bytes",
                      "peak_allocated_bytes", "peak_reserved_bytes", "largest_free_block", "allocation_count",
                      "free_count", "segment_count", "cache_hits", "alloc_retries", "oom_count"}
    full, ret = aclrtMallocAlign32(64 * MiB, 0)
    assert ret == 0 and aclrtFree(full) == 0
    print("OK")
"""


def test_small_device_statistics_and_out_of_memory() -> None:
    result = run_python(SMALL_DEVICE, env={"ASCENDSIM_DEVICE_MEMORY": "64M"})
    assert result.returncode == 0 and "OK" in result.stdout, result.stdout + result.stderr


def test_out_of_memory_frees_cache_and_retries() -> None:
    code = """
        import ascendsim
        from ascendcl import *

        MiB = 1 << 20
        assert aclInit("") == 0 and aclrtSetDevice(0) == 0
        # Fill the device with cached (freed) small segments, then ask for one large block.
        ptrs = [aclrtMallocAlign32(MiB, 0)[0] for _ in range(32)]  # two per 2 MiB small segment
        assert all(ptrs)
        for ptr in ptrs:
            assert aclrtFree(ptr) == 0
        assert ascendsim.memory_stats(0)["reserved_bytes"] == 32 * MiB
        big, ret = aclrtMallocAlign32(20 * MiB, 0)
        assert ret == 0, aclGetRecentErrMsg()
        s = ascendsim.memory_stats(0)
        assert s["alloc_retries"] == 1 and s["oom_count"] == 0 and s["reserved_bytes"] == 20 * MiB, s
        assert aclrtFree(big) == 0
        print("OK")
    """
    result = run_python(code, env={"ASCENDSIM_DEVICE_MEMORY": "32M"})
    assert result.returncode == 0 and "OK" in result.stdout, result.stdout + result.stderr


# ---- the C face: ascendsim_ext.h ----------------------------------------------------------------------------

MEMORY_STATS_C = r"""
    #include <stdio.h>
    #include <string.h>
    #include "acl/acl.h"
    #include "ascendsim/ascendsim_ext.h"

    #define CHECK(c) do { if (!(c)) { printf("FAILED line %d: %s\n%s\n", __LINE__, #c, aclGetRecentErrMsg()); \
                                      return 1; } } while (0)

    int main(void) {
        ascendsimMemoryStats before, after;
        void *p = NULL;
        CHECK(aclInit(NULL) == ACL_SUCCESS && aclrtSetDevice(1) == ACL_SUCCESS);
        CHECK(ascendsimGetMemoryStats(1, &before) == ACL_SUCCESS);
        CHECK(aclrtMalloc(&p, 1000, ACL_MEM_MALLOC_NORMAL_ONLY) == ACL_SUCCESS);
        CHECK(ascendsimGetMemoryStats(1, &after) == ACL_SUCCESS);
        CHECK(after.allocated_bytes - before.allocated_bytes == 1536);
        CHECK(after.requested_bytes - before.requested_bytes == 1000);
        CHECK(after.allocation_count == before.allocation_count + 1);
        CHECK(after.capacity_bytes == (uint64_t)32 << 30);
        CHECK(aclrtMemset(p, 1000, 7, 1000) == ACL_SUCCESS);
        CHECK(aclrtMemset(p, 1000, 7, 1001) == ACL_ERROR_RT_PARAM_INVALID);
        CHECK(strstr(aclGetRecentErrMsg(), "aclrtMemset: count 1001 is larger than maxCount 1000") != NULL);
        CHECK(aclrtFree(p) == ACL_SUCCESS);
        CHECK(ascendsimResetPeakMemoryStats(1) == ACL_SUCCESS);
        CHECK(ascendsimEmptyCache(1) == ACL_SUCCESS);
        CHECK(ascendsimGetMemoryStats(1, &after) == ACL_SUCCESS);
        CHECK(after.reserved_bytes == 0 && after.peak_allocated_bytes == 0);
        CHECK(ascendsimGetMemoryStats(1, NULL) == ACL_ERROR_INVALID_PARAM);
        CHECK(ascendsimGetMemoryStats(-1, &after) == ACL_ERROR_RT_INVALID_DEVICEID);
        CHECK(strstr(aclGetRecentErrMsg(), "ascendsimGetMemoryStats: device id -1") != NULL);
        CHECK(ascendsimResetPeakMemoryStats(64) == ACL_ERROR_RT_INVALID_DEVICEID);
        CHECK(ascendsimEmptyCache(64) == ACL_ERROR_RT_INVALID_DEVICEID);
        CHECK(aclrtResetDevice(1) == ACL_SUCCESS && aclFinalize() == ACL_SUCCESS);
        printf("OK\n");
        return 0;
    }
"""


def test_memory_stats_from_c(compiler) -> None:
    program = compiler.build(MEMORY_STATS_C, name="memory_stats")
    result = compiler.run(program)
    assert result.returncode == 0 and "OK" in result.stdout, result.stdout + result.stderr
