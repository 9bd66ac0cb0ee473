"""Events: flags, record / query / synchronize, cross-stream waits that block the waiting stream and never
the host, elapsed time, reset, the "latest record" rule, timeouts, and every error path. Streams are held
at gates (blocking callbacks) to make states deterministic."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from acl_helpers import WAIT, in_thread, new_stream
from ascendcl import (
    ACL_CALLBACK_BLOCK,
    ACL_ERROR_INVALID_PARAM,
    ACL_ERROR_RT_CONTEXT_NULL,
    ACL_ERROR_RT_EVENT_SYNC_TIMEOUT,
    ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
    ACL_ERROR_RT_INTERNAL_ERROR,
    ACL_ERROR_RT_INVALID_HANDLE,
    ACL_ERROR_RT_PARAM_INVALID,
    ACL_EVENT_CAPTURE_STREAM_PROGRESS,
    ACL_EVENT_RECORDED_STATUS_COMPLETE,
    ACL_EVENT_RECORDED_STATUS_NOT_READY,
    ACL_EVENT_STATUS_COMPLETE,
    ACL_EVENT_STATUS_NOT_READY,
    ACL_EVENT_SYNC,
    ACL_EVENT_TIME_LINE,
    ACL_EVENT_WAIT_STATUS_COMPLETE,
    ACL_EVENT_WAIT_STATUS_NOT_READY,
    ACL_STREAM_STATUS_NOT_READY,
    ACL_SUCCESS,
    aclGetRecentErrMsg,
    aclrtCreateContext,
    aclrtCreateEvent,
    aclrtCreateEventExWithFlag,
    aclrtCreateEventWithFlag,
    aclrtCreateStream,
    aclrtDestroyContext,
    aclrtDestroyEvent,
    aclrtDestroyStream,
    aclrtEventElapsedTime,
    aclrtLaunchCallback,
    aclrtQueryEvent,
    aclrtQueryEventStatus,
    aclrtQueryEventWaitStatus,
    aclrtRecordEvent,
    aclrtResetEvent,
    aclrtStreamQuery,
    aclrtStreamWaitEvent,
    aclrtSynchronizeEvent,
    aclrtSynchronizeEventWithTimeout,
    aclrtSynchronizeStream,
)
from stream_helpers import Gate, gated, reporter


@pytest.fixture
def event(device: int) -> Iterator[int]:
    created, ret = aclrtCreateEvent()
    assert ret == ACL_SUCCESS and created != 0
    yield created
    assert aclrtDestroyEvent(created) == ACL_SUCCESS


def recorded(event: int) -> int:
    value, ret = aclrtQueryEventStatus(event)
    assert ret == ACL_SUCCESS
    return value


# ---- creation -------------------------------------------------------------------------------------------

VALID_FLAGS = [ACL_EVENT_SYNC, ACL_EVENT_TIME_LINE, ACL_EVENT_CAPTURE_STREAM_PROGRESS,
               ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE, ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS |
               ACL_EVENT_TIME_LINE]


@pytest.mark.parametrize("flag", VALID_FLAGS)
def test_create_with_valid_flags(stream: int, flag: int) -> None:
    for create in (aclrtCreateEventWithFlag, aclrtCreateEventExWithFlag):
        event, ret = create(flag)
        assert ret == ACL_SUCCESS and event != 0
        assert aclrtRecordEvent(event, stream) == ACL_SUCCESS
        assert aclrtSynchronizeEvent(event) == ACL_SUCCESS
        assert recorded(event) == ACL_EVENT_RECORDED_STATUS_COMPLETE
        assert aclrtDestroyEvent(event) == ACL_SUCCESS


@pytest.mark.parametrize("flag", [0, 0x4, 0x10, 0x100, 0x80000000, ACL_EVENT_SYNC | 0x4])
def test_create_with_invalid_flags(device: int, flag: int) -> None:
    for create in (aclrtCreateEventWithFlag, aclrtCreateEventExWithFlag):
        assert create(flag) == (0, ACL_ERROR_RT_PARAM_INVALID)
        assert f"flag 0x{flag:x}" in aclGetRecentErrMsg()


def test_create_without_context() -> None:
    assert in_thread(aclrtCreateEvent) == (0, ACL_ERROR_RT_CONTEXT_NULL)
    assert in_thread(lambda: aclrtCreateEventWithFlag(ACL_EVENT_SYNC)) == (0, ACL_ERROR_RT_CONTEXT_NULL)


def test_destroy_errors_and_use_after_destroy(stream: int) -> None:
    event, _ = aclrtCreateEvent()
    other, _ = aclrtCreateEvent()
    assert aclrtDestroyEvent(event) == ACL_SUCCESS
    assert aclrtDestroyEvent(event) == ACL_ERROR_RT_INVALID_HANDLE
    assert "not a live event" in aclGetRecentErrMsg()
    assert aclrtDestroyEvent(0) == ACL_ERROR_INVALID_PARAM
    for bad in (event, 0xBAD0):
        assert aclrtRecordEvent(bad, stream) == ACL_ERROR_RT_INVALID_HANDLE
        assert aclrtResetEvent(bad, stream) == ACL_ERROR_RT_INVALID_HANDLE
        assert aclrtStreamWaitEvent(stream, bad) == ACL_ERROR_RT_INVALID_HANDLE
        assert aclrtQueryEvent(bad) == (0, ACL_ERROR_RT_INVALID_HANDLE)
        assert aclrtQueryEventStatus(bad) == (0, ACL_ERROR_RT_INVALID_HANDLE)
        assert aclrtQueryEventWaitStatus(bad) == (0, ACL_ERROR_RT_INVALID_HANDLE)
        assert aclrtSynchronizeEvent(bad) == ACL_ERROR_RT_INVALID_HANDLE
        assert aclrtSynchronizeEventWithTimeout(bad, 10) == ACL_ERROR_RT_INVALID_HANDLE
        assert aclrtEventElapsedTime(bad, other) == (0.0, ACL_ERROR_RT_INVALID_HANDLE)
        assert aclrtEventElapsedTime(other, bad) == (0.0, ACL_ERROR_RT_INVALID_HANDLE)
    for null_event in (aclrtRecordEvent(0, stream), aclrtResetEvent(0, stream), aclrtStreamWaitEvent(stream, 0),
                       aclrtQueryEvent(0)[1], aclrtQueryEventStatus(0)[1], aclrtQueryEventWaitStatus(0)[1],
                       aclrtSynchronizeEvent(0), aclrtSynchronizeEventWithTimeout(0, 10),
                       aclrtEventElapsedTime(0, other)[1], aclrtEventElapsedTime(other, 0)[1]):
        assert null_event == ACL_ERROR_INVALID_PARAM
    assert aclrtDestroyEvent(other) == ACL_SUCCESS


# ---- states ---------------------------------------------------------------------------------------------

def test_never_recorded_event(stream: int, event: int) -> None:
    assert aclrtQueryEvent(event) == (ACL_EVENT_STATUS_COMPLETE, ACL_SUCCESS)
    assert aclrtQueryEventStatus(event) == (ACL_EVENT_RECORDED_STATUS_NOT_READY, ACL_SUCCESS)
    assert aclrtQueryEventWaitStatus(event) == (ACL_EVENT_WAIT_STATUS_COMPLETE, ACL_SUCCESS)
    assert aclrtSynchronizeEvent(event) == ACL_SUCCESS
    assert aclrtSynchronizeEventWithTimeout(event, 10) == ACL_SUCCESS
    assert aclrtStreamWaitEvent(stream, event) == ACL_SUCCESS  # passes at once
    assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
    assert aclrtEventElapsedTime(event, event) == (0.0, ACL_ERROR_RT_INTERNAL_ERROR)
    assert "no record" in aclGetRecentErrMsg()


def test_pending_then_complete(stream: int, event: int) -> None:
    with reporter() as serving, gated(stream, serving) as gate:
        assert aclrtRecordEvent(event, stream) == ACL_SUCCESS
        assert aclrtQueryEvent(event) == (ACL_EVENT_STATUS_NOT_READY, ACL_SUCCESS)
        assert recorded(event) == ACL_EVENT_RECORDED_STATUS_NOT_READY
        assert aclrtEventElapsedTime(event, event) == (0.0, ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID)
        assert "not completed" in aclGetRecentErrMsg()
        assert aclrtSynchronizeEventWithTimeout(event, 20) == ACL_ERROR_RT_EVENT_SYNC_TIMEOUT
        assert "20 ms" in aclGetRecentErrMsg()
        gate.open()
        assert aclrtSynchronizeEvent(event) == ACL_SUCCESS
    assert aclrtQueryEvent(event) == (ACL_EVENT_STATUS_COMPLETE, ACL_SUCCESS)
    assert recorded(event) == ACL_EVENT_RECORDED_STATUS_COMPLETE
    assert aclrtEventElapsedTime(event, event) == (0.0, ACL_SUCCESS)


@pytest.mark.parametrize("timeout", [0, -2, -100])
def test_synchronize_invalid_timeout(event: int, timeout: int) -> None:
    assert aclrtSynchronizeEventWithTimeout(event, timeout) == ACL_ERROR_RT_PARAM_INVALID
    assert f"timeout {timeout}" in aclGetRecentErrMsg()


def test_synchronize_event_releases_the_gil(stream: int, event: int) -> None:
    with reporter() as serving, gated(stream, serving) as gate:
        assert aclrtRecordEvent(event, stream) == ACL_SUCCESS
        opener = threading.Thread(target=lambda: (gate.entered.wait(WAIT), gate.open()))
        opener.start()
        assert aclrtSynchronizeEvent(event) == ACL_SUCCESS
        opener.join(WAIT)
        assert not gate.timed_out


# ---- cross-stream waits ---------------------------------------------------------------------------------

def test_stream_wait_blocks_the_stream_not_the_host(device: int, event: int) -> None:
    done, _ = aclrtCreateEvent()
    with new_stream() as producer, new_stream() as consumer, reporter() as serving:
        with gated(producer, serving) as gate:
            assert aclrtRecordEvent(event, producer) == ACL_SUCCESS
            assert aclrtStreamWaitEvent(consumer, event) == ACL_SUCCESS  # returns at once
            assert aclrtRecordEvent(done, consumer) == ACL_SUCCESS
            assert aclrtQueryEventWaitStatus(event) == (ACL_EVENT_WAIT_STATUS_NOT_READY, ACL_SUCCESS)
            assert aclrtStreamQuery(consumer) == (ACL_STREAM_STATUS_NOT_READY, ACL_SUCCESS)
            assert aclrtQueryEvent(done) == (ACL_EVENT_STATUS_NOT_READY, ACL_SUCCESS)
            gate.open()
            assert aclrtSynchronizeStream(consumer) == ACL_SUCCESS  # only possible after the producer's record
        assert recorded(event) == ACL_EVENT_RECORDED_STATUS_COMPLETE
        assert recorded(done) == ACL_EVENT_RECORDED_STATUS_COMPLETE
        assert aclrtQueryEventWaitStatus(event) == (ACL_EVENT_WAIT_STATUS_COMPLETE, ACL_SUCCESS)
        elapsed, ret = aclrtEventElapsedTime(event, done)
        assert ret == ACL_SUCCESS and elapsed >= 0.0  # the consumer's record came after the producer's
    assert aclrtDestroyEvent(done) == ACL_SUCCESS


def test_wait_targets_the_latest_record_before_the_call(device: int, event: int) -> None:
    with new_stream() as slow, new_stream() as fast, new_stream() as waiter, reporter() as serving:
        with gated(slow, serving) as gate:
            assert aclrtRecordEvent(event, slow) == ACL_SUCCESS   # record 1: held
            assert aclrtRecordEvent(event, fast) == ACL_SUCCESS   # record 2: completes
            assert aclrtStreamWaitEvent(waiter, event) == ACL_SUCCESS
            assert aclrtSynchronizeStream(waiter) == ACL_SUCCESS  # waited for record 2 only
            assert aclrtSynchronizeEvent(event) == ACL_SUCCESS
            assert recorded(event) == ACL_EVENT_RECORDED_STATUS_COMPLETE
            gate.open()
        assert aclrtSynchronizeStream(slow) == ACL_SUCCESS
        assert recorded(event) == ACL_EVENT_RECORDED_STATUS_COMPLETE  # the late record 1 changes nothing


def test_chain_of_streams(device: int) -> None:
    order: list[str] = []
    streams: list[int] = []
    events = [aclrtCreateEvent()[0] for _ in range(3)]
    with reporter() as serving:
        for _ in range(4):
            stream, _ = aclrtCreateStream()
            streams.append(stream)
            serving.subscribe(stream)
        gate = Gate(streams[0])
        # streams 1..3 are free to run at once: only the event chain delays each behind its predecessor
        for index in range(4):
            if index > 0:
                assert aclrtStreamWaitEvent(streams[index], events[index - 1]) == ACL_SUCCESS
            assert aclrtLaunchCallback(order.append, f"s{index}", ACL_CALLBACK_BLOCK, streams[index]) == 0
            if index < 3:
                assert aclrtRecordEvent(events[index], streams[index]) == ACL_SUCCESS
        assert order == []
        gate.open()
        assert aclrtSynchronizeStream(streams[3]) == ACL_SUCCESS
        assert order == ["s0", "s1", "s2", "s3"]
        for stream in streams:
            serving.unsubscribe(stream)
            assert aclrtDestroyStream(stream) == ACL_SUCCESS
    for event in events:
        assert aclrtDestroyEvent(event) == ACL_SUCCESS


def test_wait_on_event_recorded_in_another_context(device: int, event: int) -> None:
    # thread A's stream waits for an event that thread B (another context) records
    with new_stream() as waiting:
        assert aclrtStreamWaitEvent(waiting, 0) == ACL_ERROR_INVALID_PARAM
        ready = threading.Event()

        def record_elsewhere() -> int:
            context, _ = aclrtCreateContext(0)
            stream, _ = aclrtCreateStream()
            ret = aclrtRecordEvent(event, stream)
            ready.set()
            ret |= aclrtSynchronizeStream(stream)
            ret |= aclrtDestroyStream(stream)
            return ret | aclrtDestroyContext(context)

        thread = threading.Thread(target=lambda: results.append(record_elsewhere()))
        results: list[int] = []
        thread.start()
        assert ready.wait(WAIT)
        assert aclrtStreamWaitEvent(waiting, event) == ACL_SUCCESS
        assert aclrtSynchronizeStream(waiting) == ACL_SUCCESS
        thread.join(WAIT)
        assert results == [ACL_SUCCESS]


# ---- elapsed time ---------------------------------------------------------------------------------------

def test_elapsed_time_is_positive_and_consistent(stream: int) -> None:
    start, _ = aclrtCreateEvent()
    end, _ = aclrtCreateEventWithFlag(ACL_EVENT_TIME_LINE)
    with reporter() as serving:
        serving.subscribe(stream)
        before = time.perf_counter()
        assert aclrtRecordEvent(start, stream) == ACL_SUCCESS
        assert aclrtLaunchCallback(lambda _: time.sleep(0.02), None, ACL_CALLBACK_BLOCK, stream) == ACL_SUCCESS
        assert aclrtRecordEvent(end, stream) == ACL_SUCCESS
        assert aclrtSynchronizeEvent(end) == ACL_SUCCESS
        wall_ms = (time.perf_counter() - before) * 1000
    forward, ret = aclrtEventElapsedTime(start, end)
    assert ret == ACL_SUCCESS
    assert 20.0 * 0.999 <= forward <= wall_ms  # the 20 ms callback ran between the two records
    backward, ret = aclrtEventElapsedTime(end, start)
    assert ret == ACL_SUCCESS and backward == pytest.approx(-forward)
    assert aclrtEventElapsedTime(start, start) == (0.0, ACL_SUCCESS)
    # a later pair on the same stream measures later times
    assert aclrtRecordEvent(start, stream) == ACL_SUCCESS
    assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
    since_end, ret = aclrtEventElapsedTime(end, start)
    assert ret == ACL_SUCCESS and since_end >= 0.0
    for created in (start, end):
        assert aclrtDestroyEvent(created) == ACL_SUCCESS


def test_elapsed_time_of_null_events(event: int) -> None:
    assert aclrtEventElapsedTime(0, 0) == (0.0, ACL_ERROR_INVALID_PARAM)


# ---- reset ----------------------------------------------------------------------------------------------

def test_reset_returns_to_not_recorded(stream: int, event: int) -> None:
    assert aclrtRecordEvent(event, stream) == ACL_SUCCESS
    assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
    assert recorded(event) == ACL_EVENT_RECORDED_STATUS_COMPLETE
    assert aclrtResetEvent(event, stream) == ACL_SUCCESS
    assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
    assert recorded(event) == ACL_EVENT_RECORDED_STATUS_NOT_READY
    assert aclrtQueryEvent(event) == (ACL_EVENT_STATUS_COMPLETE, ACL_SUCCESS)  # nothing pending
    assert aclrtSynchronizeEvent(event) == ACL_SUCCESS
    assert aclrtEventElapsedTime(event, event)[1] == ACL_ERROR_RT_INTERNAL_ERROR
    assert aclrtRecordEvent(event, stream) == ACL_SUCCESS  # recorded again
    assert aclrtSynchronizeEvent(event) == ACL_SUCCESS
    assert recorded(event) == ACL_EVENT_RECORDED_STATUS_COMPLETE
    assert aclrtResetEvent(event, 0) == ACL_SUCCESS  # on the default stream
    assert aclrtSynchronizeStream(0) == ACL_SUCCESS
    assert recorded(event) == ACL_EVENT_RECORDED_STATUS_NOT_READY


def test_record_wait_reset_pattern(device: int, event: int) -> None:
    # the Ascend idiom: record on the producer, wait on the consumer, reset on the consumer, repeat
    with new_stream() as producer, new_stream() as consumer:
        for _ in range(100):
            assert aclrtRecordEvent(event, producer) == ACL_SUCCESS
            assert aclrtStreamWaitEvent(consumer, event) == ACL_SUCCESS
            assert aclrtResetEvent(event, consumer) == ACL_SUCCESS
        assert aclrtSynchronizeStream(consumer) == ACL_SUCCESS
        assert aclrtQueryEventWaitStatus(event) == (ACL_EVENT_WAIT_STATUS_COMPLETE, ACL_SUCCESS)


# ---- lifetime -------------------------------------------------------------------------------------------

def test_destroy_while_recorded_and_waited(device: int) -> None:
    event, _ = aclrtCreateEvent()
    with new_stream() as producer, new_stream() as consumer, reporter() as serving, gated(producer, serving) as gate:
        assert aclrtRecordEvent(event, producer) == ACL_SUCCESS
        assert aclrtStreamWaitEvent(consumer, event) == ACL_SUCCESS
        assert aclrtDestroyEvent(event) == ACL_SUCCESS  # the queued record and wait keep it alive
        assert aclrtQueryEvent(event) == (0, ACL_ERROR_RT_INVALID_HANDLE)
        gate.open()
        assert aclrtSynchronizeStream(consumer) == ACL_SUCCESS


def test_threads_record_and_wait_on_shared_events(device: int) -> None:
    shared = [aclrtCreateEvent()[0] for _ in range(4)]

    def work(index: int) -> int:
        context, ret = aclrtCreateContext(0)
        stream, _ = aclrtCreateStream()
        for _ in range(200):
            ret |= aclrtRecordEvent(shared[index], stream)
            ret |= aclrtStreamWaitEvent(stream, shared[(index + 1) % len(shared)])
            ret |= aclrtQueryEvent(shared[(index + 2) % len(shared)])[1]
        ret |= aclrtSynchronizeStream(stream)
        ret |= aclrtSynchronizeEvent(shared[index])
        ret |= aclrtDestroyStream(stream)
        return ret | aclrtDestroyContext(context)

    results: list[int] = []
    threads = [threading.Thread(target=lambda i=i: results.append(work(i))) for i in range(len(shared))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    assert results == [ACL_SUCCESS] * len(shared)
    for event in shared:
        assert recorded(event) == ACL_EVENT_RECORDED_STATUS_COMPLETE
        assert aclrtDestroyEvent(event) == ACL_SUCCESS
