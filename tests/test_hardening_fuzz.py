"""Hardening: every C-name function called from Python with random arguments must never crash or hang.

A bounded, deterministic fuzz loop runs in a subprocess (so a crash is an exit code, not a dead test run):
each step calls a random function of `ascendcl` (the runtime's C API: aclrt*, the acl_base.h and acl.h
functions, the ascendsim* extensions) with random arguments drawn from live handles of every kind, freed
handles, device and host buffers (live, freed, interior), NULL, extreme and negative integers, strings and
callables (some of which raise), while a reporter thread serves callbacks. Raw-memory arguments of the copy
functions get only real buffers or NULL: to C an unknown host address is the caller's own memory (it is on
real hardware too). Out-of-memory is kept out of reach (small sizes, 256 MiB devices); the out-of-memory
retry with Python callbacks pending is tested on its own below.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from acl_helpers import run_python

FUZZ = r"""
import random
import re
import sys
import threading
import time

import ascendcl
from ascendcl import aclGetRecentErrMsg, aclInit, aclrtMalloc, aclrtMallocHost, aclrtProcessReport, aclrtSetDevice

SEED = int(sys.argv[1]) if len(sys.argv) > 1 else 1234
CALLS = int(sys.argv[2]) if len(sys.argv) > 2 else 6000
rng = random.Random(SEED)

BASE = {"aclInit", "aclFinalize", "aclGetRecentErrMsg", "aclCreateDataBuffer", "aclDestroyDataBuffer",
        "aclUpdateDataBuffer", "aclGetDataBufferAddr", "aclGetDataBufferSize", "aclGetDataBufferSizeV2",
        "aclFloat16ToFloat", "aclFloatToFloat16", "aclDataTypeSize", "aclGetCannAttribute",
        "aclGetCannAttributeList", "aclGetDeviceCapability", "aclAppLog"}
names = sorted(n for n in dir(ascendcl) if callable(getattr(ascendcl, n))
               and (n.startswith(("aclrt", "ascendsim")) or n in BASE))
names.remove("aclrtProcessReport")  # called with bounded timeouts only (see below)


def arity(function):
    try:
        function(*range(20))
    except TypeError as error:
        found = re.search(r"takes (?:at most )?(\d+)", str(error))
        return int(found.group(1)) if found else 0
    except Exception:
        return 0
    return 0


arities = {n: arity(getattr(ascendcl, n)) for n in names}
# Arguments that C reads or writes as raw memory: only real buffers (or NULL) go there, since a made-up
# host address is the caller's own memory to C (a real crash on real hardware too).
MEMORY_ARGS = {"aclrtMemcpy": (0, 2), "aclrtMemcpyAsync": (0, 2), "aclrtMemcpy2d": (0, 2),
               "aclrtMemcpy2dAsync": (0, 2)}
CONFIG_ARGS = {"aclrtCreateStreamV2": (0,), "aclrtSetStreamConfigOpt": (0,)}
VALUE_ARGS = {"aclrtSetStreamConfigOpt": (2,)}

stop = threading.Event()


def serve() -> None:
    while not stop.is_set():
        if aclrtProcessReport(5) != 0:
            time.sleep(0.001)


reporter = threading.Thread(target=serve, daemon=True)
reporter.start()

aclInit("")
aclrtSetDevice(0)
handles: list[int] = []   # anything handed out: streams, events, contexts, buffers, config handles
memory: list[int] = []    # device and pinned host buffers, live or freed, and interior pointers
configs: list[int] = [0]
for _ in range(4):
    p, _r = aclrtMalloc(rng.choice([1, 64, 4096]), 0)
    h, _r = aclrtMallocHost(rng.choice([1, 64, 4096]))
    memory += [p, p + 8, h, h + 8]

INTS = [0, 1, -1, 2, 3, 5, 7, 8, 32, 99, 4096, 1 << 20, 1 << 40, 2**31 - 1, -2**31, 2**32 - 1, 2**63 - 1,
        2**64 - 1, -2**63]


def on_callback(data: object) -> None:
    if data == 7:
        raise RuntimeError("a callback that raises")


def on_exception(info: int) -> None:
    ascendcl.aclrtGetErrorCodeFromExceptionInfo(info)
    if rng.random() < 0.3:
        raise ValueError("an exception callback that raises")


def value(name: str, index: int) -> object:
    if index in MEMORY_ARGS.get(name, ()):
        return rng.choice(memory + [0])
    if index in CONFIG_ARGS.get(name, ()):
        return rng.choice(configs)
    if index in VALUE_ARGS.get(name, ()):
        return rng.choice(memory[2::4])  # pinned host buffers of at least one byte
    roll = rng.random()
    if name in ("aclrtLaunchCallback", "aclrtSetExceptionInfoCallback") and index == 0:
        return rng.choice([on_callback, on_exception, None, 3])
    if name in ("aclrtSubscribeReport", "aclrtUnSubscribeReport") and index == 0:
        return rng.choice([reporter.ident, 0, 12345])
    if roll < 0.35 and handles:
        return rng.choice(handles)
    if roll < 0.55:
        return rng.choice(memory)
    if roll < 0.9:
        return rng.choice(INTS)
    if roll < 0.95:
        return rng.choice(["", "/nonexistent.json", "x"])
    return rng.randrange(-2**70, 2**70)


start = time.monotonic()
calls = 0
while calls < CALLS and time.monotonic() - start < 6.0:
    calls += 1
    if rng.random() < 0.02:
        aclrtProcessReport(rng.choice([1, 0, -2]))
        continue
    name = rng.choice(names)
    args = [value(name, i) for i in range(arities[name])]
    try:
        result = getattr(ascendcl, name)(*args)
    except (TypeError, OverflowError, ValueError):
        continue
    outs = result[:-1] if isinstance(result, tuple) else ()
    for out in outs:  # new handles and buffers join the pools
        if isinstance(out, int) and out > 4096:
            target = memory if name.startswith(("aclrtMalloc",)) else handles
            if name == "aclrtCreateStreamConfigHandle":
                target = configs
            if len(target) < 200:
                target.append(out)
    if name == "aclrtCreateStreamConfigHandle" and isinstance(result, int) and result:
        configs.append(result)
    elif name == "aclCreateDataBuffer" and isinstance(result, int) and result:
        handles.append(result)
    aclGetRecentErrMsg()

stop.set()
reporter.join(5)
print("OK", calls)
"""


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_calls_never_crash(tmp_path: Path, seed: int) -> None:
    script = tmp_path / "fuzz.py"
    script.write_text(FUZZ)
    result = subprocess.run([sys.executable, str(script), str(seed), "20000"], capture_output=True, text=True,
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
