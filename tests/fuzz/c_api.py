"""Fuzzer of the C API from Python: random calls of `ascendcl` functions with hostile arguments.

Each step calls a random function of `ascendcl` (the runtime's C API: aclrt*, the acl_base.h and acl.h
functions, the ascendsim* extensions) with random arguments drawn from live handles of every kind, freed
handles, device and host buffers (live, freed, interior), NULL, extreme and negative integers, strings and
callables (some of which raise), while a reporter thread serves callbacks. Raw-memory arguments of the copy
functions get only real buffers or NULL: to C an unknown host address is the caller's own memory (it is on
real hardware too). Out-of-memory is kept out of reach (small sizes; run it with ASCENDSIM_DEVICE_MEMORY=256M).
The calls are one stateful sequence, so a case is a whole run: `--seed` picks the sequence, `--cases` bounds the
number of calls and `--seconds` the time (0: no limit); a crash or hang is the process's exit, and a replay is
the same seed. It prints `OK <calls> calls, <n> refused by the binding ...` and exits 0 when it
gets to the end. tests/test_hardening_fuzz.py runs it in a subprocess with four seeds.

    ASCENDSIM_DEVICE_MEMORY=256M python tests/fuzz/c_api.py --seed 1 --cases 1000000 --seconds 600
"""

from __future__ import annotations

import argparse
import random
import re
import threading
import time

import ascendcl
from ascendcl import aclGetRecentErrMsg, aclInit, aclrtMalloc, aclrtMallocHost, aclrtProcessReport, aclrtSetDevice

parser = argparse.ArgumentParser(description="the C API fuzzer (see docs/fuzzing.md)")
parser.add_argument("--seed", type=int, default=1234)
parser.add_argument("--cases", type=int, default=6000, help="calls to make")
parser.add_argument("--seconds", type=float, default=6.0, help="stop after this long (0: no limit)")
options = parser.parse_args()
rng = random.Random(options.seed)

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
    except Exception:  # noqa: BLE001 -- a function that fails on these arguments takes them
        return 0
    return 0


arities = {n: arity(getattr(ascendcl, n)) for n in names}
# Arguments that C reads or writes as raw memory: only real buffers (or NULL) go there, since a made-up
# host address is the caller's own memory to C (a real crash on real hardware too). A pinned host buffer the
# fuzz loop has freed is such an address as well (the runtime no longer knows it: to C it is the program's
# own freed memory), so raw-memory arguments take device memory live or freed, but host buffers only live.
MEMORY_ARGS = {"aclrtMemcpy": (0, 2), "aclrtMemcpyAsync": (0, 2), "aclrtMemcpy2d": (0, 2),
               "aclrtMemcpy2dAsync": (0, 2), "aclrtCreateBinary": (0,), "aclrtBinaryLoadFromData": (0,),
               "aclrtLaunchKernel": (2,)}
# Structs that hold pointers (aclrtBinaryLoadOptions): NULL, since any buffer's bytes read as such a struct are
# made-up addresses to C (tests/test_ascendc_load.py checks real options).
NULL_ARGS = {"aclrtBinaryLoadFromFile": (1,), "aclrtBinaryLoadFromData": (2,)}
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
host_buffer: dict[int, int] = {}  # pinned host pointer -> the start of its buffer
freed_host: set[int] = set()      # starts of the pinned host buffers aclrtFreeHost has freed
configs: list[int] = [0]
for _ in range(4):
    p, _r = aclrtMalloc(rng.choice([1, 64, 4096]), 0)
    h, _r = aclrtMallocHost(rng.choice([1, 64, 4096]))
    memory += [p, p + 8, h, h + 8]
    host_buffer.update({h: h, h + 8: h})
value_buffer, _r = aclrtMallocHost(64)  # a config value's bytes, never freed


def raw_memory() -> list[int]:
    return [m for m in memory if host_buffer.get(m) not in freed_host]

INTS = [0, 1, -1, 2, 3, 5, 7, 8, 32, 99, 4096, 1 << 20, 1 << 40, 2**31 - 1, -2**31, 2**32 - 1, 2**63 - 1,
        2**64 - 1, -2**63]


def on_callback(data: object) -> None:
    if data == 7:
        raise RuntimeError("a callback that raises")


def on_exception(info: int) -> None:
    ascendcl.aclrtGetErrorCodeFromExceptionInfo(info)
    if rng.random() < 0.3:
        raise ValueError("an exception callback that raises")


def value(name: str, index: int) -> object:  # noqa: PLR0911
    if index in MEMORY_ARGS.get(name, ()):
        return rng.choice([*raw_memory(), 0])
    if index in NULL_ARGS.get(name, ()):
        return 0
    if index in CONFIG_ARGS.get(name, ()):
        return rng.choice(configs)
    if index in VALUE_ARGS.get(name, ()):
        return rng.choice([value_buffer, *(m for m in memory[2:16:4] if m not in freed_host)])  # >= 1 byte
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
calls = argument_errors = 0
while calls < options.cases and (not options.seconds or time.monotonic() - start < options.seconds):
    calls += 1
    if rng.random() < 0.02:
        aclrtProcessReport(rng.choice([1, 0, -2]))
        continue
    name = rng.choice(names)
    args = [value(name, i) for i in range(arities[name])]
    try:
        result = getattr(ascendcl, name)(*args)
    except (TypeError, OverflowError, ValueError):
        argument_errors += 1
        continue
    outs = result[:-1] if isinstance(result, tuple) else ()
    for out in outs:  # new handles and buffers join the pools
        if isinstance(out, int) and out > 4096:
            target = memory if name.startswith(("aclrtMalloc",)) else handles
            if name == "aclrtCreateStreamConfigHandle":
                target = configs
            if len(target) < 200:
                target.append(out)
                if name == "aclrtMallocHost":
                    host_buffer[out] = out
    if name == "aclrtFreeHost" and result == 0 and args[0] in host_buffer:
        freed_host.add(host_buffer[args[0]])
    if name == "aclrtCreateStreamConfigHandle" and isinstance(result, int) and result:
        configs.append(result)
    elif name == "aclCreateDataBuffer" and isinstance(result, int) and result:
        handles.append(result)
    aclGetRecentErrMsg()

stop.set()
reporter.join(5)
print(f"OK {calls} calls, {argument_errors} refused by the binding (TypeError, OverflowError, ValueError)")
