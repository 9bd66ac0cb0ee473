"""Hardening: every C-name function called from Python with random arguments must never crash or hang.

The bounded, deterministic fuzz loop is tests/fuzz/c_api.py (random calls of every `ascendcl` function with
live, freed and foreign handles, buffers, NULL, extreme integers, strings and raising callables; runnable by
hand for longer, docs/fuzzing.md). It runs here in a subprocess (so a crash is an exit code, not a dead test
run) with four seeds; the out-of-memory retry with Python callbacks pending is tested on its own below.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from acl_helpers import run_python

FUZZ = Path(__file__).parent / "fuzz" / "c_api.py"  # runnable by hand for longer: docs/fuzzing.md


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_calls_never_crash(seed: int) -> None:
    result = subprocess.run([sys.executable, str(FUZZ), f"--seed={seed}", "--cases=20000", "--seconds=6"],
                            capture_output=True, text=True,
                            timeout=120, env={**os.environ, "ASCENDSIM_DEVICE_MEMORY": "256M"}, check=False)
    assert result.returncode == 0 and result.stdout.startswith("OK"), (result.returncode, result.stdout,
                                                                       result.stderr[-4000:])


HANDLE_KINDS = """
    from ascendcl import *
    aclInit(""); aclrtSetDevice(0)
    stream, _ = aclrtCreateStream()
    event, _ = aclrtCreateEvent()
    context, _ = aclrtGetCurrentContext()
    buffer = aclCreateDataBuffer(0, 0)
    config = aclrtCreateStreamConfigHandle()
    dead_stream, _ = aclrtCreateStream(); aclrtDestroyStream(dead_stream)
    dead_event, _ = aclrtCreateEvent(); aclrtDestroyEvent(dead_event)
"""


def test_handles_of_another_kind_are_rejected_with_the_right_code() -> None:
    result = run_python(HANDLE_KINDS + """
    H = ACL_ERROR_RT_INVALID_HANDLE
    for other in (event, context, buffer, config, 12345, 2**64 - 1, dead_event):
        assert aclrtSynchronizeStream(other) == H, other       # not a stream
        assert aclrtStreamQuery(other)[1] == H
        assert aclrtRecordEvent(event, other) == H
        assert aclrtDestroyStream(other) == H
        assert "stream" in aclGetRecentErrMsg()
    for other in (stream, context, buffer, config, 12345, dead_stream):
        assert aclrtQueryEvent(other)[1] == H, other           # not an event
        assert aclrtSynchronizeEvent(other) == H
        assert aclrtDestroyEvent(other) == H
        assert hex(other) in aclGetRecentErrMsg()               # the message names the value
    for other in (stream, event, buffer, 12345):
        assert aclrtSetCurrentContext(other) == ACL_ERROR_RT_PARAM_INVALID, other  # not a context
        assert aclrtDestroyContext(other) == ACL_ERROR_RT_PARAM_INVALID
    for other in (stream, event, context, 12345):
        assert aclDestroyDataBuffer(other) == ACL_ERROR_INVALID_PARAM, other  # not a data buffer
        assert aclGetDataBufferSizeV2(other) == 0
        assert aclrtDestroyStreamConfigHandle(other) == ACL_ERROR_INVALID_PARAM
    # The default stream of a context is no user stream: it cannot be destroyed.
    assert aclrtDestroyStream(0) == ACL_ERROR_INVALID_PARAM
    print("OK")
    """)
    assert result.returncode == 0 and result.stdout.strip() == "OK", result.stdout + result.stderr


def test_out_of_memory_retry_with_a_python_callback_pending_does_not_deadlock() -> None:
    result = run_python("""
        import threading, time
        from ascendcl import *
        aclInit(""); aclrtSetDevice(0)
        s, _ = aclrtCreateStream()
        stop = threading.Event()
        def serve():
            while not stop.is_set():
                aclrtProcessReport(10)
        t = threading.Thread(target=serve, daemon=True); t.start()
        assert aclrtSubscribeReport(t.ident, s) == ACL_SUCCESS
        held = []
        while True:  # fill the device
            p, ret = aclrtMalloc(16 << 20, ACL_MEM_MALLOC_HUGE_FIRST)
            if ret:
                break
            held.append(p)
        # The stream waits for a Python callback; it needs the GIL again after its sleep.
        assert aclrtLaunchCallback(lambda d: time.sleep(0.3), None, ACL_CALLBACK_BLOCK, s) == ACL_SUCCESS
        time.sleep(0.05)
        p, ret = aclrtMalloc(16 << 20, ACL_MEM_MALLOC_HUGE_FIRST)  # out of memory: synchronizes the device
        assert ret == ACL_ERROR_RT_MEMORY_ALLOCATION, ret
        stop.set()
        print("OK")
    """, env={"ASCENDSIM_DEVICE_MEMORY": "128M"}, timeout=8)
    assert result.returncode == 0 and result.stdout.strip() == "OK", result.stdout + result.stderr
