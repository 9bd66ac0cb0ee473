"""Host callbacks on streams (aclrtSubscribeReport / aclrtLaunchCallback / aclrtProcessReport /
aclrtUnSubscribeReport) and the task-failure callback (aclrtSetExceptionInfoCallback and its getters):
delivery to the subscribed thread, BLOCK vs NO_BLOCK, timeouts, cancellation when a stream is unsubscribed
or destroyed with callbacks pending (never a deadlock), several threads, and every error path."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from acl_helpers import WAIT, in_thread, new_stream
from ascendcl import (
    ACL_CALLBACK_BLOCK,
    ACL_CALLBACK_NO_BLOCK,
    ACL_ERROR_INVALID_PARAM,
    ACL_ERROR_RT_CONTEXT_NULL,
    ACL_ERROR_RT_DEVICE_TASK_ABORT,
    ACL_ERROR_RT_INVALID_HANDLE,
    ACL_ERROR_RT_PARAM_INVALID,
    ACL_ERROR_RT_REPORT_TIMEOUT,
    ACL_ERROR_RT_STREAM_CONTEXT,
    ACL_ERROR_RT_STREAM_NO_CB_REG,
    ACL_ERROR_RT_STREAM_SUBSCRIBE,
    ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
    ACL_ERROR_RT_THREAD_SUBSCRIBE,
    ACL_EVENT_RECORDED_STATUS_COMPLETE,
    ACL_EVENT_RECORDED_STATUS_NOT_READY,
    ACL_STREAM_STATUS_NOT_READY,
    ACL_SUCCESS,
    aclGetRecentErrMsg,
    aclrtCreateContext,
    aclrtCreateEvent,
    aclrtCreateStream,
    aclrtDestroyContext,
    aclrtDestroyEvent,
    aclrtDestroyStream,
    aclrtDestroyStreamForce,
    aclrtGetCurrentContext,
    aclrtGetDeviceIdFromExceptionInfo,
    aclrtGetErrorCodeFromExceptionInfo,
    aclrtGetStreamIdFromExceptionInfo,
    aclrtGetTaskIdFromExceptionInfo,
    aclrtGetThreadIdFromExceptionInfo,
    aclrtLaunchCallback,
    aclrtProcessReport,
    aclrtQueryEventStatus,
    aclrtRecordEvent,
    aclrtResetDevice,
    aclrtSetCurrentContext,
    aclrtSetDevice,
    aclrtSetExceptionInfoCallback,
    aclrtStreamQuery,
    aclrtStreamWaitEvent,
    aclrtSubscribeReport,
    aclrtSynchronizeEvent,
    aclrtSynchronizeStream,
    aclrtSynchronizeStreamWithTimeout,
    aclrtUnSubscribeReport,
)
from stream_helpers import Gate, gated, reporter

ME = threading.get_ident  # the id this thread subscribes under (pthread_self on Linux)




@pytest.fixture
def subscribed(stream: int) -> Iterator[int]:
    """`stream`, with the test's own thread subscribed to it: callbacks run only when the test calls
    aclrtProcessReport, which makes every state deterministic."""
    assert aclrtSubscribeReport(ME(), stream) == ACL_SUCCESS
    yield stream
    aclrtUnSubscribeReport(ME(), stream)  # may already be unsubscribed by the test


# ---- delivery -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("block", [ACL_CALLBACK_BLOCK, ACL_CALLBACK_NO_BLOCK])
def test_callback_runs_on_the_subscribed_thread(stream: int, block: int) -> None:
    calls: list[tuple[object, int]] = []
    with reporter() as serving:
        serving.subscribe(stream)
        for index in range(10):
            assert aclrtLaunchCallback(lambda data: calls.append((data, ME())), {"n": index}, block, stream) == 0
        finished = threading.Event()
        assert aclrtLaunchCallback(lambda _: finished.set(), None, ACL_CALLBACK_BLOCK, stream) == ACL_SUCCESS
        assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
        assert finished.is_set()  # a blocking callback has run when the stream is synchronized
        assert calls == [({"n": index}, serving.ident) for index in range(10)]


def test_blocking_callback_holds_the_stream(subscribed: int) -> None:
    ran: list[int] = []
    event, _ = aclrtCreateEvent()
    assert aclrtLaunchCallback(ran.append, 1, ACL_CALLBACK_BLOCK, subscribed) == ACL_SUCCESS
    assert aclrtRecordEvent(event, subscribed) == ACL_SUCCESS
    # nobody has processed the report: the stream cannot get past the callback
    assert aclrtSynchronizeStreamWithTimeout(subscribed, 20) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    assert aclrtQueryEventStatus(event) == (ACL_EVENT_RECORDED_STATUS_NOT_READY, ACL_SUCCESS)
    assert aclrtProcessReport(int(WAIT * 1000)) == ACL_SUCCESS  # runs it here, on the subscribed thread
    assert ran == [1]
    assert aclrtSynchronizeStream(subscribed) == ACL_SUCCESS
    assert aclrtQueryEventStatus(event) == (ACL_EVENT_RECORDED_STATUS_COMPLETE, ACL_SUCCESS)
    assert aclrtDestroyEvent(event) == ACL_SUCCESS


def test_non_blocking_callback_does_not_hold_the_stream(subscribed: int) -> None:
    ran: list[int] = []
    assert aclrtLaunchCallback(ran.append, 1, ACL_CALLBACK_NO_BLOCK, subscribed) == ACL_SUCCESS
    assert aclrtLaunchCallback(ran.append, 2, ACL_CALLBACK_NO_BLOCK, subscribed) == ACL_SUCCESS
    assert aclrtSynchronizeStream(subscribed) == ACL_SUCCESS  # done although no callback has run yet
    assert ran == []
    assert aclrtProcessReport(int(WAIT * 1000)) == ACL_SUCCESS  # runs every callback pending
    assert ran == [1, 2]
    assert aclrtProcessReport(10) == ACL_ERROR_RT_REPORT_TIMEOUT


def test_process_report_timeouts_and_errors(stream: int) -> None:
    assert aclrtProcessReport(10) == ACL_ERROR_RT_THREAD_SUBSCRIBE  # this thread is subscribed to nothing
    assert "not subscribed" in aclGetRecentErrMsg()
    for invalid in (0, -2, -1000):
        assert aclrtProcessReport(invalid) == ACL_ERROR_INVALID_PARAM
    assert aclrtSubscribeReport(ME(), stream) == ACL_SUCCESS
    assert aclrtProcessReport(10) == ACL_ERROR_RT_REPORT_TIMEOUT
    assert "within 10 ms" in aclGetRecentErrMsg()
    assert aclrtUnSubscribeReport(ME(), stream) == ACL_SUCCESS
    assert aclrtProcessReport(10) == ACL_ERROR_RT_THREAD_SUBSCRIBE


def test_infinite_process_report_is_woken_by_the_last_unsubscribe(stream: int) -> None:
    codes: list[int] = []
    subscribed = threading.Event()

    def serve() -> None:
        assert aclrtSubscribeReport(ME(), stream) == ACL_SUCCESS
        subscribed.set()
        codes.append(aclrtProcessReport(-1))

    thread = threading.Thread(target=serve)
    thread.start()
    assert subscribed.wait(WAIT)
    assert aclrtUnSubscribeReport(thread.ident, stream) == ACL_SUCCESS  # from another thread
    thread.join(WAIT)
    assert not thread.is_alive()
    assert codes == [ACL_ERROR_RT_THREAD_SUBSCRIBE]


def test_one_thread_serves_several_streams(device: int) -> None:
    seen: list[tuple[str, int]] = []
    with new_stream() as first, new_stream() as second, reporter() as serving:
        serving.subscribe(first)
        serving.subscribe(second)
        for _ in range(5):
            for name, stream in (("a", first), ("b", second)):
                assert aclrtLaunchCallback(lambda n: seen.append((n, ME())), name, ACL_CALLBACK_BLOCK, stream) == 0
        assert aclrtSynchronizeStream(first) == ACL_SUCCESS
        assert aclrtSynchronizeStream(second) == ACL_SUCCESS
    assert sorted(seen) == sorted([("a", serving.ident)] * 5 + [("b", serving.ident)] * 5)


def test_callbacks_of_several_threads(device: int) -> None:
    context, _ = aclrtGetCurrentContext()
    seen: list[list[tuple[int, int]]] = [[] for _ in range(4)]  # per thread: (value, thread that ran it)

    def work(index: int) -> None:
        ret = aclrtSetCurrentContext(context)
        stream, code = aclrtCreateStream()
        ret |= code
        with reporter() as serving:
            serving.subscribe(stream)
            for value in range(20):
                block = ACL_CALLBACK_BLOCK if value % 3 else ACL_CALLBACK_NO_BLOCK
                ret |= aclrtLaunchCallback(lambda v: seen[index].append((v, ME())), value, block, stream)
            ret |= aclrtLaunchCallback(lambda _: None, None, ACL_CALLBACK_BLOCK, stream)
            ret |= aclrtSynchronizeStream(stream)
            owner = serving.ident  # compared while the thread is alive: idents are reused after exit
            in_order = seen[index] == [(v, owner) for v in range(20)]
        results[index] = (ret | aclrtDestroyStream(stream), in_order)

    results: list[tuple[int, bool]] = [(-1, False)] * len(seen)
    threads = [threading.Thread(target=work, args=(index,)) for index in range(len(seen))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    assert results == [(ACL_SUCCESS, True)] * len(seen)  # in order, each on its own thread


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_callback_exception_does_not_break_the_stream(stream: int) -> None:
    def explode(_: object) -> None:
        raise RuntimeError("boom (expected by the test)")

    ran: list[int] = []
    with reporter() as serving:
        serving.subscribe(stream)
        assert aclrtLaunchCallback(explode, None, ACL_CALLBACK_BLOCK, stream) == ACL_SUCCESS
        assert aclrtLaunchCallback(ran.append, 1, ACL_CALLBACK_BLOCK, stream) == ACL_SUCCESS
        assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
    assert ran == [1]


# ---- subscription errors --------------------------------------------------------------------------------

def test_subscribe_errors(device: int) -> None:
    with new_stream() as stream, new_stream() as other:
        assert aclrtSubscribeReport(ME(), stream) == ACL_SUCCESS
        assert aclrtSubscribeReport(ME(), stream) == ACL_ERROR_RT_STREAM_SUBSCRIBE  # twice
        assert "already subscribed" in aclGetRecentErrMsg()
        assert in_thread(lambda: aclrtSubscribeReport(ME(), stream)) == ACL_ERROR_RT_STREAM_SUBSCRIBE  # 2nd thread
        assert aclrtUnSubscribeReport(ME() + 1, stream) == ACL_ERROR_RT_STREAM_SUBSCRIBE  # wrong thread
        assert "not by thread" in aclGetRecentErrMsg()
        assert aclrtUnSubscribeReport(ME(), other) == ACL_ERROR_RT_STREAM_SUBSCRIBE  # never subscribed
        assert "no subscribed thread" in aclGetRecentErrMsg()
        assert aclrtSubscribeReport(0, other) == ACL_ERROR_RT_PARAM_INVALID
        assert aclrtSubscribeReport(ME(), 0xBAD0) == ACL_ERROR_RT_INVALID_HANDLE
        assert aclrtUnSubscribeReport(ME(), 0xBAD0) == ACL_ERROR_RT_INVALID_HANDLE
        assert aclrtUnSubscribeReport(ME(), stream) == ACL_SUCCESS
        assert aclrtUnSubscribeReport(ME(), stream) == ACL_ERROR_RT_STREAM_SUBSCRIBE  # twice
        assert aclrtSubscribeReport(ME(), 0) == ACL_SUCCESS  # the default stream
        assert aclrtUnSubscribeReport(ME(), 0) == ACL_SUCCESS
    assert in_thread(lambda: aclrtSubscribeReport(ME(), 0)) == ACL_ERROR_RT_CONTEXT_NULL


def test_one_thread_serves_one_device(device: int) -> None:
    with new_stream() as stream:
        assert aclrtSubscribeReport(ME(), stream) == ACL_SUCCESS

        def other_device() -> int:
            assert aclrtSetDevice(1) == ACL_SUCCESS
            other, _ = aclrtCreateStream()
            ret = aclrtSubscribeReport(main_thread, other)  # the main thread already serves device 0
            aclrtDestroyStream(other)
            return ret | (aclrtResetDevice(1) << 32)

        main_thread = ME()
        assert in_thread(other_device) == ACL_ERROR_RT_THREAD_SUBSCRIBE
        assert aclrtUnSubscribeReport(ME(), stream) == ACL_SUCCESS


def test_launch_errors(device: int) -> None:
    with new_stream() as stream:
        assert aclrtLaunchCallback(print, None, ACL_CALLBACK_BLOCK, stream) == ACL_ERROR_RT_STREAM_NO_CB_REG
        assert "aclrtSubscribeReport" in aclGetRecentErrMsg()
        assert aclrtSubscribeReport(ME(), stream) == ACL_SUCCESS
        for block in (2, -1, 100):
            assert aclrtLaunchCallback(print, None, block, stream) == ACL_ERROR_INVALID_PARAM
        assert aclrtLaunchCallback(print, None, ACL_CALLBACK_BLOCK, 0xBAD0) == ACL_ERROR_RT_INVALID_HANDLE
        # no current context / another context than the stream's
        assert in_thread(lambda: aclrtLaunchCallback(print, None, ACL_CALLBACK_BLOCK, stream)) == \
            ACL_ERROR_RT_CONTEXT_NULL

        def from_other_context() -> int:
            context, ret = aclrtCreateContext(0)
            code = aclrtLaunchCallback(print, None, ACL_CALLBACK_BLOCK, stream)
            return code | (ret << 32) | (aclrtDestroyContext(context) << 32)

        assert in_thread(from_other_context) == ACL_ERROR_RT_STREAM_CONTEXT
        assert aclrtUnSubscribeReport(ME(), stream) == ACL_SUCCESS
        assert aclrtStreamQuery(stream) == (0, ACL_SUCCESS)  # nothing was queued by the failed launches
    assert aclrtLaunchCallback(print, None, ACL_CALLBACK_BLOCK, stream) == ACL_ERROR_RT_INVALID_HANDLE


# ---- cancellation: unsubscribe or destroy with callbacks pending ----------------------------------------

def test_unsubscribe_cancels_pending_callbacks(subscribed: int) -> None:
    ran: list[int] = []
    assert aclrtLaunchCallback(ran.append, 1, ACL_CALLBACK_NO_BLOCK, subscribed) == ACL_SUCCESS
    assert aclrtLaunchCallback(ran.append, 2, ACL_CALLBACK_BLOCK, subscribed) == ACL_SUCCESS
    assert aclrtLaunchCallback(ran.append, 3, ACL_CALLBACK_NO_BLOCK, subscribed) == ACL_SUCCESS
    assert aclrtUnSubscribeReport(ME(), subscribed) == ACL_SUCCESS
    # the blocking callback released its stream: nothing waits for a callback that cannot run any more
    assert aclrtSynchronizeStream(subscribed) == ACL_ERROR_RT_STREAM_NO_CB_REG  # the loss is reported ...
    assert aclrtSynchronizeStream(subscribed) == ACL_SUCCESS  # ... once
    assert aclrtProcessReport(10) == ACL_ERROR_RT_THREAD_SUBSCRIBE
    assert ran == []


def test_unsubscribe_from_inside_a_callback(stream: int) -> None:
    ran: list[str] = []
    with reporter() as serving:
        serving.subscribe(stream)
        serving.streams.remove(stream)
        Gate(stream, then=lambda: ran.append(f"unsubscribe {aclrtUnSubscribeReport(ME(), stream)}")).open()
        assert aclrtLaunchCallback(ran.append, "late", ACL_CALLBACK_BLOCK, stream) == ACL_SUCCESS
        assert aclrtSynchronizeStream(stream) == ACL_ERROR_RT_STREAM_NO_CB_REG
        assert "did not run" in aclGetRecentErrMsg()
    assert ran == [f"unsubscribe {ACL_SUCCESS}"]


@pytest.mark.parametrize("force", [False, True])
def test_destroy_with_callbacks_pending_does_not_deadlock(device: int, force: bool) -> None:
    stream, _ = aclrtCreateStream()
    event, _ = aclrtCreateEvent()
    ran: list[int] = []
    assert aclrtSubscribeReport(ME(), stream) == ACL_SUCCESS
    assert aclrtLaunchCallback(ran.append, 1, ACL_CALLBACK_BLOCK, stream) == ACL_SUCCESS
    assert aclrtRecordEvent(event, stream) == ACL_SUCCESS
    assert aclrtStreamQuery(stream) == (ACL_STREAM_STATUS_NOT_READY, ACL_SUCCESS)
    # this thread is the subscriber and is not processing: the callback can never run
    destroy = aclrtDestroyStreamForce if force else aclrtDestroyStream
    assert destroy(stream) == ACL_SUCCESS
    assert aclrtProcessReport(10) == ACL_ERROR_RT_THREAD_SUBSCRIBE  # the subscription ended with the stream
    assert ran == []
    if force:  # queued tasks were discarded
        assert aclrtQueryEventStatus(event) == (ACL_EVENT_RECORDED_STATUS_NOT_READY, ACL_SUCCESS)
        assert aclrtSynchronizeEvent(event) == ACL_ERROR_RT_DEVICE_TASK_ABORT
    else:  # queued tasks ran; the callback was cancelled
        assert aclrtQueryEventStatus(event) == (ACL_EVENT_RECORDED_STATUS_COMPLETE, ACL_SUCCESS)
    assert aclrtDestroyEvent(event) == ACL_SUCCESS


def test_destroy_force_interrupts_a_blocking_callback_being_waited_for(device: int) -> None:
    stream, _ = aclrtCreateStream()
    with reporter() as serving:
        serving.subscribe(stream)
        serving.streams.remove(stream)
        gate = Gate(stream)
        assert gate.entered.wait(WAIT)  # the callback is running: the stream waits for it
        assert aclrtDestroyStreamForce(stream) == ACL_SUCCESS  # returns without waiting for the callback
        gate.open()


def test_reset_device_with_callbacks_pending(stream: int) -> None:
    ran: list[int] = []
    assert aclrtSubscribeReport(ME(), stream) == ACL_SUCCESS
    assert aclrtLaunchCallback(ran.append, 1, ACL_CALLBACK_BLOCK, stream) == ACL_SUCCESS
    # the `device` fixture's aclrtResetDevice releases the stream; it must not wait for the callback
    assert aclrtResetDevice(0) == ACL_SUCCESS
    assert aclrtSetDevice(0) == ACL_SUCCESS  # for the fixture's own reset
    assert aclrtProcessReport(10) == ACL_ERROR_RT_THREAD_SUBSCRIBE
    assert ran == []


def test_reset_device_with_a_stream_waiting_behind_a_pending_callback(device: int) -> None:
    # `waiting` needs an event that `gated_stream` records after a callback nobody processes: releasing the
    # context must cancel the callbacks of all its streams before draining any of them.
    event, _ = aclrtCreateEvent()
    streams = [aclrtCreateStream()[0] for _ in range(8)]  # several, so the release order varies
    gated_stream, waiting = streams[3], streams[5]
    assert aclrtSubscribeReport(ME(), gated_stream) == ACL_SUCCESS
    assert aclrtLaunchCallback(print, None, ACL_CALLBACK_BLOCK, gated_stream) == ACL_SUCCESS
    assert aclrtRecordEvent(event, gated_stream) == ACL_SUCCESS
    for stream in streams:
        if stream != gated_stream:
            assert aclrtStreamWaitEvent(stream, event) == ACL_SUCCESS
    assert aclrtStreamQuery(waiting) == (ACL_STREAM_STATUS_NOT_READY, ACL_SUCCESS)
    assert aclrtResetDevice(0) == ACL_SUCCESS
    assert aclrtQueryEventStatus(event) == (ACL_EVENT_RECORDED_STATUS_COMPLETE, ACL_SUCCESS)
    # checked before aclrtSetDevice: a new context's default stream may reuse the freed address
    assert aclrtSynchronizeStream(waiting) == ACL_ERROR_RT_INVALID_HANDLE
    assert aclrtDestroyEvent(event) == ACL_SUCCESS
    assert aclrtSetDevice(0) == ACL_SUCCESS  # for the fixture's own reset


# ---- exception-info callback ----------------------------------------------------------------------------

def test_exception_info_callback(stream: int) -> None:
    infos: list[tuple[int, int, int, int, int]] = []

    def on_failure(info: int) -> None:
        infos.append((aclrtGetTaskIdFromExceptionInfo(info), aclrtGetStreamIdFromExceptionInfo(info),
                      aclrtGetThreadIdFromExceptionInfo(info), aclrtGetDeviceIdFromExceptionInfo(info),
                      aclrtGetErrorCodeFromExceptionInfo(info)))

    assert aclrtSetExceptionInfoCallback(on_failure) == ACL_SUCCESS
    try:
        with reporter() as serving:
            serving.subscribe(stream)
            serving.streams.remove(stream)
            Gate(stream, then=lambda: aclrtUnSubscribeReport(serving.ident, stream)).open()  # task 1
            assert aclrtLaunchCallback(print, None, ACL_CALLBACK_NO_BLOCK, stream) == ACL_SUCCESS  # task 2: fails
            assert aclrtSynchronizeStream(stream) == ACL_ERROR_RT_STREAM_NO_CB_REG
    finally:
        assert aclrtSetExceptionInfoCallback() == ACL_SUCCESS  # unregister
    assert len(infos) == 1
    task, stream_id, thread, device, code = infos[0]
    assert (task, device, code) == (2, 0, ACL_ERROR_RT_STREAM_NO_CB_REG)
    assert thread == threading.get_native_id()  # the thread that launched the failed task
    assert stream_id < 0xFFFFFFFF


def test_exception_info_getters_with_null_info() -> None:
    for getter in (aclrtGetTaskIdFromExceptionInfo, aclrtGetStreamIdFromExceptionInfo,
                   aclrtGetThreadIdFromExceptionInfo, aclrtGetDeviceIdFromExceptionInfo,
                   aclrtGetErrorCodeFromExceptionInfo):
        assert getter(0) == 0xFFFFFFFF
        assert "info" in aclGetRecentErrMsg()


def test_no_exception_callback_after_unregistering(stream: int) -> None:
    calls: list[int] = []
    assert aclrtSetExceptionInfoCallback(calls.append) == ACL_SUCCESS
    assert aclrtSetExceptionInfoCallback(None) == ACL_SUCCESS
    with reporter() as serving:
        serving.subscribe(stream)
        serving.streams.remove(stream)
        Gate(stream, then=lambda: aclrtUnSubscribeReport(serving.ident, stream)).open()
        assert aclrtLaunchCallback(print, None, ACL_CALLBACK_NO_BLOCK, stream) == ACL_SUCCESS
        assert aclrtSynchronizeStream(stream) == ACL_ERROR_RT_STREAM_NO_CB_REG
    assert calls == []


def test_subscribe_a_python_thread_from_gated_helpers(stream: int) -> None:
    # the helpers themselves: a gate holds the stream until opened, whichever thread serves it
    with reporter() as serving, gated(stream, serving) as gate:
        assert gate.entered.wait(WAIT)
        assert aclrtStreamQuery(stream) == (ACL_STREAM_STATUS_NOT_READY, ACL_SUCCESS)
        gate.open()
        assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
