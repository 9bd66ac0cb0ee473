"""Streams: creation variants, in-order asynchronous execution off the caller's thread, concurrency of
independent streams, synchronize / query / timeouts, failure modes, destruction with pending work, and
every error path. Concurrency is shown with gates (blocking callbacks), never with timing."""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Iterator

import numpy as np
import pytest

from acl_helpers import WAIT, in_thread, new_stream
from ascendcl import (
    ACL_CALLBACK_BLOCK,
    ACL_CALLBACK_NO_BLOCK,
    ACL_CONTINUE_ON_FAILURE,
    ACL_ERROR_INVALID_PARAM,
    ACL_ERROR_RT_CONTEXT_NULL,
    ACL_ERROR_RT_DEVICE_TASK_ABORT,
    ACL_ERROR_RT_INVALID_HANDLE,
    ACL_ERROR_RT_NO_STREAM_RESOURCE,
    ACL_ERROR_RT_PARAM_INVALID,
    ACL_ERROR_RT_STREAM_NO_CB_REG,
    ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
    ACL_EVENT_RECORDED_STATUS_COMPLETE,
    ACL_EVENT_RECORDED_STATUS_NOT_READY,
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_MEMCPY_DEVICE_TO_DEVICE,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    ACL_RT_STREAM_FLAG,
    ACL_RT_STREAM_PRIORITY,
    ACL_RT_STREAM_WORK_ADDR_PTR,
    ACL_RT_STREAM_WORK_SIZE,
    ACL_STOP_ON_FAILURE,
    ACL_STREAM_FAST_LAUNCH,
    ACL_STREAM_STATUS_COMPLETE,
    ACL_STREAM_STATUS_NOT_READY,
    ACL_SUCCESS,
    aclGetRecentErrMsg,
    aclrtCreateContext,
    aclrtCreateEvent,
    aclrtCreateStream,
    aclrtCreateStreamConfigHandle,
    aclrtCreateStreamV2,
    aclrtCreateStreamWithConfig,
    aclrtDestroyContext,
    aclrtDestroyEvent,
    aclrtDestroyStream,
    aclrtDestroyStreamConfigHandle,
    aclrtDestroyStreamForce,
    aclrtFree,
    aclrtFreeHost,
    aclrtGetStreamOverflowSwitch,
    aclrtLaunchCallback,
    aclrtMalloc,
    aclrtMemcpyAsync,
    aclrtMemsetAsync,
    aclrtQueryEventStatus,
    aclrtRecordEvent,
    aclrtSetStreamConfigOpt,
    aclrtSetStreamFailureMode,
    aclrtSetStreamOverflowSwitch,
    aclrtStreamQuery,
    aclrtStreamWaitEvent,
    aclrtSubscribeReport,
    aclrtSynchronizeDevice,
    aclrtSynchronizeEvent,
    aclrtSynchronizeStream,
    aclrtSynchronizeStreamWithTimeout,
    aclrtUnSubscribeReport,
)
from stream_helpers import Gate, PinnedBuffer, Reporter, gated, reporter

SIZE = 1 << 16




@pytest.fixture
def device_buffer(device: int) -> Iterator[int]:
    address, ret = aclrtMalloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == ACL_SUCCESS
    yield address
    assert aclrtFree(address) == ACL_SUCCESS


@pytest.fixture
def pinned(device: int) -> Iterator[PinnedBuffer]:
    buffer = PinnedBuffer(SIZE)
    yield buffer
    buffer.free()


def status(stream: int) -> int:
    value, ret = aclrtStreamQuery(stream)
    assert ret == ACL_SUCCESS
    return value


# ---- creation ------------------------------------------------------------------------------------------

def test_create_variants_give_distinct_working_streams(device: int) -> None:
    streams = []
    stream, ret = aclrtCreateStream()
    streams.append((stream, ret))
    for priority in (0, 7):
        streams.append(aclrtCreateStreamWithConfig(priority, ACL_STREAM_FAST_LAUNCH))
    streams.append(aclrtCreateStreamV2(0))  # NULL config: defaults
    handles = [handle for handle, ret in streams if ret == ACL_SUCCESS]
    assert len(set(handles)) == len(streams) and 0 not in handles
    for handle in handles:
        assert aclrtSynchronizeStream(handle) == ACL_SUCCESS
        assert status(handle) == ACL_STREAM_STATUS_COMPLETE
        assert aclrtDestroyStream(handle) == ACL_SUCCESS


class StreamConfig(ctypes.Structure):
    _fields_ = [("workptr", ctypes.c_void_p), ("workSize", ctypes.c_size_t), ("flag", ctypes.c_size_t),
                ("priority", ctypes.c_uint32)]


def test_stream_config_handle(device: int) -> None:
    handle = aclrtCreateStreamConfigHandle()
    assert handle != 0
    config = StreamConfig.from_address(handle)
    assert (config.workptr, config.workSize, config.flag, config.priority) == (None, 0, 0, 0)
    priority, flag, size, pointer = ctypes.c_uint32(5), ctypes.c_size_t(2), ctypes.c_size_t(4096), ctypes.c_void_p(64)
    assert aclrtSetStreamConfigOpt(handle, ACL_RT_STREAM_PRIORITY, ctypes.addressof(priority), 4) == ACL_SUCCESS
    assert aclrtSetStreamConfigOpt(handle, ACL_RT_STREAM_FLAG, ctypes.addressof(flag), 8) == ACL_SUCCESS
    assert aclrtSetStreamConfigOpt(handle, ACL_RT_STREAM_WORK_SIZE, ctypes.addressof(size), 8) == ACL_SUCCESS
    assert aclrtSetStreamConfigOpt(handle, ACL_RT_STREAM_WORK_ADDR_PTR, ctypes.addressof(pointer), 8) == ACL_SUCCESS
    assert (config.workptr, config.workSize, config.flag, config.priority) == (64, 4096, 2, 5)
    stream, ret = aclrtCreateStreamV2(handle)
    assert ret == ACL_SUCCESS
    assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
    assert aclrtDestroyStream(stream) == ACL_SUCCESS
    # errors: wrong value size, out-of-range priority, unknown attribute, NULL value / handle
    assert aclrtSetStreamConfigOpt(handle, ACL_RT_STREAM_PRIORITY, ctypes.addressof(priority), 8) == \
        ACL_ERROR_INVALID_PARAM
    assert "valueSize 8" in aclGetRecentErrMsg()
    assert aclrtSetStreamConfigOpt(handle, ACL_RT_STREAM_FLAG, ctypes.addressof(flag), 4) == ACL_ERROR_INVALID_PARAM
    priority.value = 8
    assert aclrtSetStreamConfigOpt(handle, ACL_RT_STREAM_PRIORITY, ctypes.addressof(priority), 4) == \
        ACL_ERROR_INVALID_PARAM
    assert "priority 8" in aclGetRecentErrMsg()
    assert aclrtSetStreamConfigOpt(handle, 4, ctypes.addressof(priority), 4) == ACL_ERROR_INVALID_PARAM
    assert aclrtSetStreamConfigOpt(handle, ACL_RT_STREAM_PRIORITY, 0, 4) == ACL_ERROR_INVALID_PARAM
    assert aclrtSetStreamConfigOpt(0, ACL_RT_STREAM_PRIORITY, ctypes.addressof(priority), 4) == ACL_ERROR_INVALID_PARAM
    assert config.priority == 5  # failed calls changed nothing
    assert aclrtDestroyStreamConfigHandle(handle) == ACL_SUCCESS
    assert aclrtDestroyStreamConfigHandle(handle) == ACL_ERROR_INVALID_PARAM  # double destroy: no double free
    assert aclrtDestroyStreamConfigHandle(0) == ACL_ERROR_INVALID_PARAM


def test_create_errors(device: int) -> None:
    assert aclrtCreateStreamWithConfig(8, 0) == (0, ACL_ERROR_RT_PARAM_INVALID)
    assert "priority 8" in aclGetRecentErrMsg()
    handle = aclrtCreateStreamConfigHandle()
    StreamConfig.from_address(handle).priority = 9  # the struct is public: written directly, past Set's check
    assert aclrtCreateStreamV2(handle) == (0, ACL_ERROR_RT_PARAM_INVALID)
    assert "priority 9" in aclGetRecentErrMsg()
    assert aclrtDestroyStreamConfigHandle(handle) == ACL_SUCCESS


def test_dead_config_handle_is_refused_and_own_struct_accepted(device: int) -> None:
    """A destroyed handle: Set wrote it and CreateV2 read it (use after free, issue 13); both refuse it now, as
    Destroy does. A struct the program filled itself is CANN's public struct: Set and CreateV2 accept it."""
    handle = aclrtCreateStreamConfigHandle()
    assert aclrtDestroyStreamConfigHandle(handle) == ACL_SUCCESS
    priority = ctypes.c_uint32(1)
    assert aclrtSetStreamConfigOpt(handle, ACL_RT_STREAM_PRIORITY, ctypes.addressof(priority), 4) == \
        ACL_ERROR_INVALID_PARAM
    message = aclGetRecentErrMsg()
    assert "aclrtSetStreamConfigOpt" in message and f"{handle:#x}" in message and "already destroyed" in message
    assert aclrtCreateStreamV2(handle) == (0, ACL_ERROR_INVALID_PARAM)
    message = aclGetRecentErrMsg()
    assert "aclrtCreateStreamV2" in message and f"{handle:#x}" in message
    assert aclrtDestroyStreamConfigHandle(handle) == ACL_ERROR_INVALID_PARAM
    again = aclrtCreateStreamConfigHandle()  # the tombstone is reused: live again, with default values
    assert again == handle and StreamConfig.from_address(again).priority == 0
    assert aclrtSetStreamConfigOpt(again, ACL_RT_STREAM_PRIORITY, ctypes.addressof(priority), 4) == ACL_SUCCESS
    assert aclrtDestroyStreamConfigHandle(again) == ACL_SUCCESS
    own = StreamConfig()
    assert aclrtSetStreamConfigOpt(ctypes.addressof(own), ACL_RT_STREAM_PRIORITY, ctypes.addressof(priority), 4) == \
        ACL_SUCCESS
    assert own.priority == 1
    stream, ret = aclrtCreateStreamV2(ctypes.addressof(own))
    assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
    assert aclrtDestroyStream(stream) == ACL_SUCCESS
    assert aclrtDestroyStreamConfigHandle(ctypes.addressof(own)) == ACL_ERROR_INVALID_PARAM  # not ours to free


def test_config_handle_used_while_destroyed_from_threads(device: int) -> None:
    """Set racing Destroy: it sees a live handle or refuses it, never freed memory (ASan would report it)."""
    priority = ctypes.c_uint32(2)
    for _ in range(200):
        handle = aclrtCreateStreamConfigHandle()
        results: list[int] = []
        setter = threading.Thread(target=lambda h=handle, out=results: out.append(
            aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, ctypes.addressof(priority), 4)))
        setter.start()
        assert aclrtDestroyStreamConfigHandle(handle) == ACL_SUCCESS
        setter.join(WAIT)
        assert results and results[0] in (ACL_SUCCESS, ACL_ERROR_INVALID_PARAM)


def test_create_without_context_is_context_null() -> None:
    assert in_thread(aclrtCreateStream) == (0, ACL_ERROR_RT_CONTEXT_NULL)
    assert in_thread(lambda: aclrtCreateStreamWithConfig(0, 0)) == (0, ACL_ERROR_RT_CONTEXT_NULL)
    assert "no current context" in str(in_thread(lambda: (aclrtCreateStream(), aclGetRecentErrMsg())[1]))


def test_many_streams(device: int) -> None:
    streams = [aclrtCreateStream() for _ in range(64)]
    assert all(ret == ACL_SUCCESS for _, ret in streams)
    event, _ = aclrtCreateEvent()
    for stream, _ in streams:
        assert aclrtRecordEvent(event, stream) == ACL_SUCCESS
    for stream, _ in streams:
        assert aclrtDestroyStream(stream) == ACL_SUCCESS  # drains
    assert aclrtQueryEventStatus(event) == (ACL_EVENT_RECORDED_STATUS_COMPLETE, ACL_SUCCESS)
    assert aclrtDestroyEvent(event) == ACL_SUCCESS


def test_stream_limit_per_device(device: int) -> None:
    streams: list[int] = []
    try:
        while len(streams) < 2000:
            stream, ret = aclrtCreateStream()
            if ret != ACL_SUCCESS:
                break
            streams.append(stream)
        assert ret == ACL_ERROR_RT_NO_STREAM_RESOURCE
        assert "1024 streams" in aclGetRecentErrMsg()
        assert 1000 <= len(streams) < 1024  # the default streams of the device's contexts count too
    finally:
        for stream in streams:
            assert aclrtDestroyStream(stream) == ACL_SUCCESS
    stream, ret = aclrtCreateStream()  # room again
    assert ret == ACL_SUCCESS
    assert aclrtDestroyStream(stream) == ACL_SUCCESS


# ---- execution order and concurrency -------------------------------------------------------------------

def test_freeing_host_memory_a_queued_copy_uses_is_deferred(stream: int) -> None:
    """Issue 13, item 8: aclrtFreeHost of an aclrtMallocHost buffer that a queued copy still reads (and one
    it still writes) succeeds at once, as freed (a second free is a double free), and the memory is given
    back only after the copies have run: they read and write the buffer's own bytes, no use after free.
    1 MiB buffers are mmap'd by malloc, so a free before the copy would unmap them under it."""
    n = 1 << 20
    source, target = PinnedBuffer(n), PinnedBuffer(n)
    source.array[:] = np.arange(n, dtype=np.uint64).astype(np.uint8)
    expected = source.array.copy()
    device, ret = aclrtMalloc(n, ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == ACL_SUCCESS
    with reporter() as serving, gated(stream, serving) as gate:
        assert aclrtMemcpyAsync(device, n, source.address, n, ACL_MEMCPY_HOST_TO_DEVICE, stream) == ACL_SUCCESS
        assert aclrtMemcpyAsync(target.address, n, device, n, ACL_MEMCPY_DEVICE_TO_HOST, stream) == ACL_SUCCESS
        source.free()
        assert aclrtFreeHost(source.address) == ACL_ERROR_RT_PARAM_INVALID
        assert "double free" in aclGetRecentErrMsg()
        target.free()
        gate.open()
        assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
    seen = PinnedBuffer(n)  # what the device received from the freed source
    assert aclrtMemcpyAsync(seen.address, n, device, n, ACL_MEMCPY_DEVICE_TO_HOST, stream) == ACL_SUCCESS
    assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
    np.testing.assert_array_equal(seen.array, expected)
    seen.free()
    assert aclrtFree(device) == ACL_SUCCESS


def test_tasks_run_in_order_off_the_callers_thread(stream: int, device_buffer: int, pinned: PinnedBuffer) -> None:
    first, second = PinnedBuffer(SIZE), PinnedBuffer(SIZE)
    try:
        with reporter() as serving, gated(stream, serving) as gate:
            assert aclrtMemsetAsync(device_buffer, SIZE, 0xAB, SIZE, stream) == ACL_SUCCESS
            assert aclrtMemcpyAsync(first.address, SIZE, device_buffer, SIZE, ACL_MEMCPY_DEVICE_TO_HOST,
                                    stream) == ACL_SUCCESS
            assert aclrtMemsetAsync(device_buffer, SIZE, 0xCD, SIZE // 2, stream) == ACL_SUCCESS
            assert aclrtMemcpyAsync(second.address, SIZE, device_buffer, SIZE, ACL_MEMCPY_DEVICE_TO_HOST,
                                    stream) == ACL_SUCCESS
            # every call returned while the stream is held: nothing has run yet
            assert status(stream) == ACL_STREAM_STATUS_NOT_READY
            assert not first.array.any() and not second.array.any()
            gate.open()
            assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
        assert status(stream) == ACL_STREAM_STATUS_COMPLETE
        np.testing.assert_array_equal(first.array, np.full(SIZE, 0xAB, np.uint8))
        expected = np.full(SIZE, 0xAB, np.uint8)
        expected[: SIZE // 2] = 0xCD
        np.testing.assert_array_equal(second.array, expected)
    finally:
        first.free()
        second.free()


def test_device_to_device_chain_in_one_stream(stream: int, device_buffer: int, pinned: PinnedBuffer) -> None:
    other, ret = aclrtMalloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == ACL_SUCCESS
    try:
        for value in range(1, 20):  # each round reads what the previous task wrote
            assert aclrtMemsetAsync(device_buffer, SIZE, value, SIZE, stream) == ACL_SUCCESS
            assert aclrtMemcpyAsync(other, SIZE, device_buffer, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE, stream) == 0
        assert aclrtMemcpyAsync(pinned.address, SIZE, other, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream) == 0
        assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
        np.testing.assert_array_equal(pinned.array, np.full(SIZE, 19, np.uint8))
    finally:
        assert aclrtFree(other) == ACL_SUCCESS


def test_independent_streams_run_concurrently(device: int, device_buffer: int, pinned: PinnedBuffer) -> None:
    with new_stream() as held, new_stream() as free, reporter() as serving, gated(held, serving) as gate:
        assert gate.entered.wait(WAIT)
        # `held` is stuck at its gate; `free` still runs its work to completion
        assert aclrtMemsetAsync(device_buffer, SIZE, 0x5A, SIZE, free) == ACL_SUCCESS
        assert aclrtMemcpyAsync(pinned.address, SIZE, device_buffer, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, free) == 0
        assert aclrtSynchronizeStream(free) == ACL_SUCCESS
        np.testing.assert_array_equal(pinned.array, np.full(SIZE, 0x5A, np.uint8))
        assert status(held) == ACL_STREAM_STATUS_NOT_READY
        gate.open()
        assert aclrtSynchronizeStream(held) == ACL_SUCCESS
        assert status(held) == ACL_STREAM_STATUS_COMPLETE


def test_default_stream(device: int) -> None:
    event, _ = aclrtCreateEvent()
    assert aclrtRecordEvent(event, 0) == ACL_SUCCESS
    assert aclrtSynchronizeStream(0) == ACL_SUCCESS
    assert aclrtSynchronizeStreamWithTimeout(0, 1000) == ACL_SUCCESS
    assert aclrtStreamQuery(0) == (ACL_STREAM_STATUS_COMPLETE, ACL_SUCCESS)
    assert aclrtQueryEventStatus(event) == (ACL_EVENT_RECORDED_STATUS_COMPLETE, ACL_SUCCESS)
    assert aclrtDestroyEvent(event) == ACL_SUCCESS
    assert aclrtDestroyStream(0) == ACL_ERROR_INVALID_PARAM  # NULL is not "the default stream" here
    assert in_thread(lambda: aclrtSynchronizeStream(0)) == ACL_ERROR_RT_CONTEXT_NULL


# ---- synchronize, query, timeouts ----------------------------------------------------------------------

def test_synchronize_timeout(stream: int) -> None:
    with reporter() as serving, gated(stream, serving) as gate:
        assert aclrtSynchronizeStreamWithTimeout(stream, 20) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
        assert "20 ms" in aclGetRecentErrMsg()
        assert status(stream) == ACL_STREAM_STATUS_NOT_READY
        gate.open()
        assert aclrtSynchronizeStreamWithTimeout(stream, int(WAIT * 1000)) == ACL_SUCCESS
        assert aclrtSynchronizeStreamWithTimeout(stream, -1) == ACL_SUCCESS


@pytest.mark.parametrize("timeout", [0, -2, -1000])
def test_synchronize_invalid_timeout(stream: int, timeout: int) -> None:
    assert aclrtSynchronizeStreamWithTimeout(stream, timeout) == ACL_ERROR_RT_PARAM_INVALID
    assert f"timeout {timeout}" in aclGetRecentErrMsg()


def test_synchronize_releases_the_gil(stream: int) -> None:
    # The gate is opened by another Python thread while this one sits in aclrtSynchronizeStream.
    with reporter() as serving, gated(stream, serving) as gate:
        opener = threading.Thread(target=lambda: (gate.entered.wait(WAIT), gate.open()))
        opener.start()
        assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
        opener.join(WAIT)
        assert not gate.timed_out


def test_query_null_status_and_bad_handle(stream: int) -> None:
    assert aclrtStreamQuery(stream) == (ACL_STREAM_STATUS_COMPLETE, ACL_SUCCESS)
    assert aclrtStreamQuery(0x1234) == (0, ACL_ERROR_RT_INVALID_HANDLE)


# ---- destroy --------------------------------------------------------------------------------------------

def test_destroy_errors_and_use_after_destroy(device: int) -> None:
    stream, _ = aclrtCreateStream()
    event, _ = aclrtCreateEvent()
    assert aclrtDestroyStream(stream) == ACL_SUCCESS
    assert aclrtDestroyStream(stream) == ACL_ERROR_RT_INVALID_HANDLE
    assert "not a live stream" in aclGetRecentErrMsg()
    assert aclrtDestroyStreamForce(stream) == ACL_ERROR_RT_INVALID_HANDLE
    assert aclrtDestroyStream(0) == ACL_ERROR_INVALID_PARAM
    assert aclrtDestroyStreamForce(0) == ACL_ERROR_INVALID_PARAM
    for bad in (stream, 0xDEAD0):
        assert aclrtSynchronizeStream(bad) == ACL_ERROR_RT_INVALID_HANDLE
        assert aclrtSynchronizeStreamWithTimeout(bad, 10) == ACL_ERROR_RT_INVALID_HANDLE
        assert aclrtStreamQuery(bad) == (0, ACL_ERROR_RT_INVALID_HANDLE)
        assert aclrtRecordEvent(event, bad) == ACL_ERROR_RT_INVALID_HANDLE
        assert aclrtStreamWaitEvent(bad, event) == ACL_ERROR_RT_INVALID_HANDLE
        assert aclrtSetStreamFailureMode(bad, ACL_STOP_ON_FAILURE) == ACL_ERROR_RT_INVALID_HANDLE
        assert aclrtSetStreamOverflowSwitch(bad, 1) == ACL_ERROR_RT_INVALID_HANDLE
        assert aclrtGetStreamOverflowSwitch(bad) == (0, ACL_ERROR_RT_INVALID_HANDLE)
        assert aclrtSubscribeReport(threading.get_ident(), bad) == ACL_ERROR_RT_INVALID_HANDLE
        assert aclrtMemsetAsync(0, 0, 0, 0, bad) in (ACL_SUCCESS, ACL_ERROR_RT_INVALID_HANDLE)  # count 0: no-op
    assert aclrtDestroyEvent(event) == ACL_SUCCESS


def test_destroy_waits_for_queued_tasks(device: int) -> None:
    stream, _ = aclrtCreateStream()
    event, _ = aclrtCreateEvent()
    with reporter() as serving:
        serving.subscribe(stream)
        gate = Gate(stream)
        assert aclrtRecordEvent(event, stream) == ACL_SUCCESS
        assert gate.entered.wait(WAIT)  # the gate callback is running on the reporter: it is not cancelled
        opener = threading.Timer(0.05, gate.open)
        opener.start()
        serving.streams.remove(stream)  # destroying the stream ends the subscription
        assert aclrtDestroyStream(stream) == ACL_SUCCESS  # returns only once the queue has drained
        opener.join(WAIT)
        assert aclrtQueryEventStatus(event) == (ACL_EVENT_RECORDED_STATUS_COMPLETE, ACL_SUCCESS)
    assert aclrtDestroyEvent(event) == ACL_SUCCESS


def test_destroy_force_discards_queued_tasks(device: int) -> None:
    held, _ = aclrtCreateStream()
    event, _ = aclrtCreateEvent()
    blocker, _ = aclrtCreateEvent()
    with new_stream() as other, reporter() as serving, gated(other, serving):
        # `held` waits for an event that `other` records only after its gate: it is blocked on the device side
        assert aclrtRecordEvent(blocker, other) == ACL_SUCCESS
        assert aclrtStreamWaitEvent(held, blocker) == ACL_SUCCESS
        assert aclrtRecordEvent(event, held) == ACL_SUCCESS
        assert status(held) == ACL_STREAM_STATUS_NOT_READY
        assert aclrtDestroyStreamForce(held) == ACL_SUCCESS  # interrupts the wait, discards the record
    assert aclrtQueryEventStatus(event) == (ACL_EVENT_RECORDED_STATUS_NOT_READY, ACL_SUCCESS)
    assert aclrtSynchronizeEvent(event) == ACL_ERROR_RT_DEVICE_TASK_ABORT
    assert aclrtSynchronizeStream(held) == ACL_ERROR_RT_INVALID_HANDLE
    for created in (event, blocker):
        assert aclrtDestroyEvent(created) == ACL_SUCCESS


def test_destroy_context_with_busy_streams(device: int) -> None:
    def work() -> list[int]:
        context, ret = aclrtCreateContext(0)
        assert ret == ACL_SUCCESS
        event, _ = aclrtCreateEvent()
        streams = [aclrtCreateStream()[0] for _ in range(3)]
        for stream in streams:
            assert aclrtRecordEvent(event, stream) == ACL_SUCCESS
        codes = [aclrtDestroyContext(context)]  # synchronizes and releases the streams
        codes.append(aclrtQueryEventStatus(event)[0])
        codes += [aclrtSynchronizeStream(stream) for stream in streams]
        codes.append(aclrtDestroyEvent(event))
        return codes

    assert in_thread(work) == [ACL_SUCCESS, ACL_EVENT_RECORDED_STATUS_COMPLETE, *[ACL_ERROR_RT_INVALID_HANDLE] * 3,
                               ACL_SUCCESS]


# ---- failures -------------------------------------------------------------------------------------------

def fail_one_task(stream: int, serving: Reporter, after: list[str]) -> None:
    """Queues a task that fails: a callback whose thread is unsubscribed (by the gate callback before it)
    by the time the stream reaches it. `after` collects what the later tasks did."""
    serving.subscribe(stream)
    serving.streams.remove(stream)  # unsubscribed from inside the gate callback below
    Gate(stream, then=lambda: aclrtUnSubscribeReport(serving.ident, stream)).open()
    assert aclrtLaunchCallback(lambda _: after.append("lost callback"), None, ACL_CALLBACK_NO_BLOCK, stream) == 0


def test_continue_on_failure_reports_once_and_keeps_running(stream: int) -> None:
    event, _ = aclrtCreateEvent()
    ran: list[str] = []
    with reporter() as serving:
        fail_one_task(stream, serving, ran)
        assert aclrtRecordEvent(event, stream) == ACL_SUCCESS
        assert aclrtSynchronizeStream(stream) == ACL_ERROR_RT_STREAM_NO_CB_REG
        message = aclGetRecentErrMsg()
        assert "task 2 failed with error 107015" in message and "did not run" in message
        assert aclrtSynchronizeStream(stream) == ACL_SUCCESS  # reported once
    assert ran == []
    assert aclrtQueryEventStatus(event) == (ACL_EVENT_RECORDED_STATUS_COMPLETE, ACL_SUCCESS)  # later tasks ran
    assert aclrtDestroyEvent(event) == ACL_SUCCESS


def test_stop_on_failure_discards_later_tasks_and_is_sticky(stream: int) -> None:
    assert aclrtSetStreamFailureMode(stream, ACL_STOP_ON_FAILURE) == ACL_SUCCESS
    event, _ = aclrtCreateEvent()
    ran: list[str] = []
    with reporter() as serving:
        fail_one_task(stream, serving, ran)
        assert aclrtRecordEvent(event, stream) == ACL_SUCCESS
        assert aclrtSynchronizeStream(stream) == ACL_ERROR_RT_STREAM_NO_CB_REG
        assert aclrtSynchronizeStream(stream) == ACL_ERROR_RT_STREAM_NO_CB_REG  # sticky
        assert aclrtSynchronizeDevice() == ACL_ERROR_RT_STREAM_NO_CB_REG
    # the record after the failure never ran: the event reports the stream's error
    assert aclrtQueryEventStatus(event) == (ACL_EVENT_RECORDED_STATUS_NOT_READY, ACL_SUCCESS)
    assert aclrtSynchronizeEvent(event) == ACL_ERROR_RT_STREAM_NO_CB_REG
    assert aclrtRecordEvent(event, stream) == ACL_SUCCESS  # still accepted, and discarded
    assert aclrtSynchronizeEvent(event) == ACL_ERROR_RT_STREAM_NO_CB_REG
    assert aclrtSynchronizeStream(stream) == ACL_ERROR_RT_STREAM_NO_CB_REG
    assert status(stream) == ACL_STREAM_STATUS_COMPLETE
    assert aclrtDestroyEvent(event) == ACL_SUCCESS


def test_synchronize_device_reports_a_stream_failure(stream: int) -> None:
    with reporter() as serving:
        fail_one_task(stream, serving, [])
        assert aclrtSynchronizeDevice() == ACL_ERROR_RT_STREAM_NO_CB_REG
    assert aclrtSynchronizeStream(stream) == ACL_SUCCESS  # the device synchronize took the report


def test_failure_mode_and_overflow_switch_errors(stream: int) -> None:
    assert aclrtSetStreamFailureMode(stream, ACL_CONTINUE_ON_FAILURE) == ACL_SUCCESS
    assert aclrtSetStreamFailureMode(stream, 2) == ACL_ERROR_RT_PARAM_INVALID
    assert "mode 2" in aclGetRecentErrMsg()
    assert aclrtSetStreamFailureMode(0, ACL_STOP_ON_FAILURE) == ACL_SUCCESS  # default stream
    assert aclrtSetStreamFailureMode(0, ACL_CONTINUE_ON_FAILURE) == ACL_SUCCESS
    assert aclrtGetStreamOverflowSwitch(stream) == (0, ACL_SUCCESS)
    assert aclrtSetStreamOverflowSwitch(stream, 1) == ACL_SUCCESS
    assert aclrtGetStreamOverflowSwitch(stream) == (1, ACL_SUCCESS)
    assert aclrtGetStreamOverflowSwitch(0) == (0, ACL_SUCCESS)  # per stream
    assert aclrtSetStreamOverflowSwitch(stream, 2) == ACL_ERROR_INVALID_PARAM
    assert aclrtGetStreamOverflowSwitch(stream) == (1, ACL_SUCCESS)


# ---- threads --------------------------------------------------------------------------------------------

def test_threads_with_their_own_contexts_and_streams(device: int) -> None:
    def work(value: int) -> None:
        context, ret = aclrtCreateContext(0)
        assert ret == ACL_SUCCESS
        buffer, _ = aclrtMalloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
        host = PinnedBuffer(SIZE)
        streams = [aclrtCreateStream()[0] for _ in range(2)]
        event, _ = aclrtCreateEvent()
        for round_ in range(50):
            first, second = streams[round_ % 2], streams[(round_ + 1) % 2]
            assert aclrtMemsetAsync(buffer, SIZE, (value + round_) % 256, SIZE, first) == ACL_SUCCESS
            assert aclrtRecordEvent(event, first) == ACL_SUCCESS
            assert aclrtStreamWaitEvent(second, event) == ACL_SUCCESS
            assert aclrtMemcpyAsync(host.address, SIZE, buffer, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, second) == 0
            assert aclrtSynchronizeStream(second) == ACL_SUCCESS
            assert (host.array == (value + round_) % 256).all()
        for stream in streams:
            assert aclrtDestroyStream(stream) == ACL_SUCCESS
        assert aclrtDestroyEvent(event) == ACL_SUCCESS
        host.free()
        assert aclrtFree(buffer) == ACL_SUCCESS
        assert aclrtDestroyContext(context) == ACL_SUCCESS
        results[value] = True

    results = [False] * 6
    threads = [threading.Thread(target=work, args=(value,)) for value in range(len(results))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT * 4)
    assert all(results)


def test_concurrent_synchronizers_of_one_stream(stream: int) -> None:
    with reporter() as serving, gated(stream, serving) as gate:
        codes: list[int] = []
        waiters = [threading.Thread(target=lambda: codes.append(aclrtSynchronizeStream(stream))) for _ in range(4)]
        for waiter in waiters:
            waiter.start()
        gate.open()
        for waiter in waiters:
            waiter.join(WAIT)
    assert codes == [ACL_SUCCESS] * 4


def test_callback_block_and_record_interleave(stream: int) -> None:
    order: list[str] = []
    with reporter() as serving:
        serving.subscribe(stream)
        for index in range(20):
            block = ACL_CALLBACK_BLOCK if index % 2 else ACL_CALLBACK_NO_BLOCK
            assert aclrtLaunchCallback(order.append, f"c{index}", block, stream) == ACL_SUCCESS
        assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
        assert order[:19] == [f"c{index}" for index in range(19)]  # c19 was the last, blocking one
