"""`ascendsim runtime-demo`: a pyACL program on the emulated device's runtime: streams, copies, events, callbacks.

It sets a device, creates a context and a stream, copies a tensor host -> device -> device -> host on the
stream, times the copies with events, runs a callback on a subscribed thread, checks the data, and
releases everything, printing what happened.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

import acl
from ascendcl import (
    ACL_CALLBACK_BLOCK,
    ACL_HOST,
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_MEMCPY_DEVICE_TO_DEVICE,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
)

from .pyacl_checks import check, take


@contextmanager
def report_thread(context: int, stream: int) -> Iterator[None]:
    """A thread serving `stream`'s callbacks in an acl.rt.process_report loop, as the samples do."""
    reporting = [True]

    def loop() -> None:  # start_thread(fn, None) calls fn()
        check(acl.rt.set_context(context), "acl.rt.set_context")
        while reporting[0]:
            acl.rt.process_report(100)

    thread_id = take(acl.util.start_thread(loop, None), "acl.util.start_thread")
    check(acl.rt.subscribe_report(thread_id, stream), "acl.rt.subscribe_report")
    try:
        yield
    finally:
        reporting[0] = False
        check(acl.rt.unsubscribe_report(thread_id, stream), "acl.rt.unsubscribe_report")
        check(acl.util.stop_thread(thread_id), "acl.util.stop_thread")


def copy_round_trip(stream: int, host_ptr: int, result_ptr: int, size: int) -> float:
    """host -> device -> device -> host on `stream`; returns the milliseconds the events measured."""
    first = take(acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST), "acl.rt.malloc")
    second = take(acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST), "acl.rt.malloc")
    start = take(acl.rt.create_event(), "acl.rt.create_event")
    end = take(acl.rt.create_event(), "acl.rt.create_event")
    for _ in range(2):  # the first round touches the pages of the fresh device memory
        check(acl.rt.record_event(start, stream), "acl.rt.record_event")
        check(acl.rt.memcpy_async(first, size, host_ptr, size, ACL_MEMCPY_HOST_TO_DEVICE, stream), "H2D")
        check(acl.rt.memcpy_async(second, size, first, size, ACL_MEMCPY_DEVICE_TO_DEVICE, stream), "D2D")
        check(acl.rt.memcpy_async(result_ptr, size, second, size, ACL_MEMCPY_DEVICE_TO_HOST, stream), "D2H")
        check(acl.rt.record_event(end, stream), "acl.rt.record_event")
    check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
    ms = take(acl.rt.event_elapsed_time(start, end), "acl.rt.event_elapsed_time")
    for event in (start, end):
        check(acl.rt.destroy_event(event), "acl.rt.destroy_event")
    for pointer in (first, second):
        check(acl.rt.free(pointer), "acl.rt.free")
    return ms


def run(device_id: int = 0, megabytes: int = 64) -> bool:
    check(acl.init(), "acl.init")
    check(acl.rt.set_device(device_id), "acl.rt.set_device")
    context = take(acl.rt.create_context(device_id), "acl.rt.create_context")
    stream = take(acl.rt.create_stream(), "acl.rt.create_stream")
    run_mode = take(acl.rt.get_run_mode(), "acl.rt.get_run_mode")
    print(f"device {device_id} of {take(acl.rt.get_device_count(), 'get_device_count')}, SoC {acl.get_soc_name()}, "
          f"run mode {'ACL_HOST' if run_mode == ACL_HOST else 'ACL_DEVICE'}")

    # Page-locked host buffers (aclrtMallocHost), seen from numpy without copies: copies from and to them
    # are truly asynchronous, as on the device.
    size = megabytes << 20
    host_ptr = take(acl.rt.malloc_host(size), "acl.rt.malloc_host")
    result_ptr = take(acl.rt.malloc_host(size), "acl.rt.malloc_host")
    with warnings.catch_warnings():  # pyACL marks ptr_to_numpy as deprecated; it is still the zero-copy view
        warnings.simplefilter("ignore")
        host = acl.util.ptr_to_numpy(host_ptr, (size // 4,), np.dtype(np.float32).num)
        result = acl.util.ptr_to_numpy(result_ptr, (size // 4,), np.dtype(np.float32).num)
    host[:] = np.random.default_rng(0).random(host.size, dtype=np.float32)

    calls: list[str] = []
    with report_thread(context, stream):
        ms = copy_round_trip(stream, host_ptr, result_ptr, size)
        check(acl.rt.launch_callback(calls.append, "callback ran", ACL_CALLBACK_BLOCK, stream), "launch_callback")
        check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
    matches = bool(np.array_equal(host, result))
    print(f"copied {size >> 20} MiB host->device->device->host in {ms:.2f} ms "
          f"({3 * size / ms / 1e6:.1f} GB/s); data {'matches' if matches else 'DOES NOT MATCH'}")
    print(f"callback: {calls[0] if calls else 'did not run'}")

    del host, result  # the views must not outlive the memory they show
    for pointer in (host_ptr, result_ptr):
        check(acl.rt.free_host(pointer), "acl.rt.free_host")
    check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")
    check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
    check(acl.rt.reset_device(device_id), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return matches and calls == ["callback ran"]
