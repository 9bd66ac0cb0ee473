"""Helpers for the stream, event and callback tests.

Concurrency is proven by construction, never by timing: a Gate is a blocking callback that holds its stream
until the test opens it, so "this stream is still busy while that one finishes" is a fact, not a race.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

from acl_helpers import WAIT
from ascendcl import (
    ACL_CALLBACK_BLOCK,
    ACL_ERROR_RT_REPORT_TIMEOUT,
    ACL_ERROR_RT_THREAD_SUBSCRIBE,
    ACL_SUCCESS,
    aclrtFreeHost,
    aclrtLaunchCallback,
    aclrtMallocHost,
    aclrtProcessReport,
    aclrtSubscribeReport,
    aclrtUnSubscribeReport,
)


class Reporter:
    """A host thread serving stream callbacks in an aclrtProcessReport loop, like the samples' thread."""

    def __init__(self) -> None:
        self._stopping = threading.Event()
        self.unexpected: list[int] = []  # aclrtProcessReport codes other than success / timeout / unsubscribed
        self._thread = threading.Thread(target=self._loop, name="reporter", daemon=True)
        self._thread.start()
        assert self._thread.ident is not None
        self.ident: int = self._thread.ident  # == pthread_self() of the thread on Linux
        self.streams: list[int] = []

    def _loop(self) -> None:
        while not self._stopping.is_set():
            ret = aclrtProcessReport(10)
            if ret == ACL_ERROR_RT_THREAD_SUBSCRIBE:  # not subscribed yet, or any more
                self._stopping.wait(0.001)
            elif ret not in (ACL_SUCCESS, ACL_ERROR_RT_REPORT_TIMEOUT):
                self.unexpected.append(ret)

    def subscribe(self, stream: int) -> None:
        assert aclrtSubscribeReport(self.ident, stream) == ACL_SUCCESS
        self.streams.append(stream)

    def unsubscribe(self, stream: int) -> None:
        self.streams.remove(stream)
        assert aclrtUnSubscribeReport(self.ident, stream) == ACL_SUCCESS

    def stop(self) -> None:
        for stream in list(self.streams):
            self.unsubscribe(stream)
        self._stopping.set()
        self._thread.join(WAIT)
        assert not self._thread.is_alive()
        assert self.unexpected == []


@contextmanager
def reporter() -> Iterator[Reporter]:
    serving = Reporter()
    try:
        yield serving
    finally:
        serving.stop()


class Gate:
    """A blocking callback that holds `stream` until open(); the stream's callbacks must be served by a
    Reporter (or a thread calling aclrtProcessReport)."""

    def __init__(self, stream: int, then: Callable[[], None] | None = None) -> None:
        self.entered = threading.Event()  # the stream has reached the gate
        self._open = threading.Event()
        self._then = then
        self.timed_out = False
        assert aclrtLaunchCallback(self._hold, None, ACL_CALLBACK_BLOCK, stream) == ACL_SUCCESS

    def _hold(self, _user_data: object) -> None:
        self.entered.set()
        self.timed_out = not self._open.wait(WAIT)
        if self._then is not None:
            self._then()

    def open(self) -> None:
        self._open.set()


@contextmanager
def gated(stream: int, serving: Reporter) -> Iterator[Gate]:
    """Subscribes `serving` to `stream` if needed and holds the stream at a gate for the block's duration."""
    if stream not in serving.streams:
        serving.subscribe(stream)
    gate = Gate(stream)
    try:
        yield gate
    finally:
        gate.open()


class PinnedBuffer:
    """Page-locked host memory (aclrtMallocHost), which asynchronous copies really queue on the stream
    (pageable memory makes them synchronous), viewed as a numpy array."""

    def __init__(self, size: int) -> None:
        self.address, ret = aclrtMallocHost(size)
        assert ret == ACL_SUCCESS
        self.size = size
        self.array = np.ctypeslib.as_array((ctypes.c_uint8 * size).from_address(self.address))
        self.array[:] = 0  # aclrtMallocHost memory is not initialized

    def free(self) -> None:
        assert aclrtFreeHost(self.address) == ACL_SUCCESS
