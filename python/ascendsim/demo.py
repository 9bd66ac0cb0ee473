"""`ascendsim demo`: a pyACL program run on the emulated device, as a first smoke test of an install.

It sets a device, creates a context and a stream, copies a tensor host -> device -> device -> host on the
stream, times the copies with events, runs a callback on a subscribed thread, checks the data, and
releases everything, printing what happened.
"""

from __future__ import annotations

import numpy as np

import acl
from ascendcl import (
    ACL_CALLBACK_BLOCK,
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_MEMCPY_DEVICE_TO_DEVICE,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
)


def check(ret: int, what: str) -> None:
    if ret != 0:
        raise RuntimeError(f"{what} failed with {ret}: {acl.get_recent_err_msg()}")


def run(device_id: int = 0, megabytes: int = 64) -> bool:
    check(acl.init(), "acl.init")
    check(acl.rt.set_device(device_id), "acl.rt.set_device")
    context, ret = acl.rt.create_context(device_id)
    check(ret, "acl.rt.create_context")
    stream, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream")
    print(f"device {device_id} of {acl.rt.get_device_count()[0]}, SoC {acl.get_soc_name()}, "
          f"run mode {'ACL_HOST' if acl.rt.get_run_mode()[0] == 1 else 'ACL_DEVICE'}")

    host = np.random.default_rng(0).random(megabytes << 18, dtype=np.float32)  # megabytes MiB of float32
    result = np.empty_like(host)
    size = host.nbytes
    first, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc")
    second, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc")
    start, _ = acl.rt.create_event()
    end, _ = acl.rt.create_event()

    calls: list[str] = []
    reporting = [True]

    def report_loop(_: object) -> None:
        acl.rt.set_context(context)
        while reporting[0]:
            acl.rt.process_report(100)

    thread_id, ret = acl.util.start_thread(report_loop, None)
    check(ret, "acl.util.start_thread")
    check(acl.rt.subscribe_report(thread_id, stream), "acl.rt.subscribe_report")

    for _ in range(2):  # the first round touches the pages of the fresh device memory
        check(acl.rt.record_event(start, stream), "acl.rt.record_event")
        check(acl.rt.memcpy_async(first, size, host.ctypes.data, size, ACL_MEMCPY_HOST_TO_DEVICE, stream), "H2D")
        check(acl.rt.memcpy_async(second, size, first, size, ACL_MEMCPY_DEVICE_TO_DEVICE, stream), "D2D")
        check(acl.rt.memcpy_async(result.ctypes.data, size, second, size, ACL_MEMCPY_DEVICE_TO_HOST, stream), "D2H")
        check(acl.rt.record_event(end, stream), "acl.rt.record_event")
    check(acl.rt.launch_callback(calls.append, "callback ran", ACL_CALLBACK_BLOCK, stream), "launch_callback")
    check(acl.rt.synchronize_stream(stream), "acl.rt.synchronize_stream")
    ms, ret = acl.rt.event_elapsed_time(start, end)
    check(ret, "acl.rt.event_elapsed_time")
    matches = bool(np.array_equal(host, result))
    print(f"copied {size >> 20} MiB host->device->device->host in {ms:.2f} ms "
          f"({3 * size / ms / 1e6:.1f} GB/s); data {'matches' if matches else 'DOES NOT MATCH'}")
    print(f"callback: {calls[0] if calls else 'did not run'}")

    reporting[0] = False
    check(acl.rt.unsubscribe_report(thread_id, stream), "acl.rt.unsubscribe_report")
    check(acl.util.stop_thread(thread_id), "acl.util.stop_thread")
    for event in (start, end):
        check(acl.rt.destroy_event(event), "acl.rt.destroy_event")
    for pointer in (first, second):
        check(acl.rt.free(pointer), "acl.rt.free")
    check(acl.rt.destroy_stream(stream), "acl.rt.destroy_stream")
    check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
    check(acl.rt.reset_device(device_id), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")
    return matches and calls == ["callback ran"]
