"""Runtime microbenchmarks, each beside its physical peer from the same run.

Groups and their rows (NAME for --only):
- call: a cheap C-API call from Python (aclDataTypeSize) vs the cheapest builtin call, len() -- the binding's cost.
- malloc: cached aclrtMalloc+aclrtFree of 4 KiB from C and Python vs glibc malloc+free; uncached: 64 MiB
  aclrtMalloc+aclrtFree+ascendsimEmptyCache (the segment goes back each time) vs glibc malloc+free of 64 MiB
  (above glibc's mmap threshold: mapped and unmapped each time).
- copy: aclrtMemcpy H2D, D2H, D2D, H2H at 4 KiB, 64 KiB, 1 MiB, 16 MiB and 64 MiB from C (H2D/D2H at 4 KiB,
  1 MiB and 64 MiB also from Python) vs C memcpy of the same bytes between the same addresses (timed in turns
  with the C row; the Python rows beside the C row's peer), as bandwidth.
- launch: the launch+synchronize round trip of an (almost) empty stream task (a 64-byte aclrtMemsetAsync)
  vs a thread handoff (a flag handed to a spinning thread and back: the physical limit of a round trip).
- event: record+synchronize; cross-stream wait (record on stream A, aclrtStreamWaitEvent and a tiny task on
  B, synchronize B), both vs the thread handoff; aclrtSynchronizeEvent of a completed event and
  aclrtEventElapsedTime vs an uncontended mutex lock+unlock.
- callback: aclrtLaunchCallback (blocking) + aclrtSynchronizeStream with a report thread subscribed to the
  stream (aclrtSubscribeReport / aclrtProcessReport) vs the thread handoff.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import ascendcl
from ascendcl import (
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    aclrtFree,
    aclrtMalloc,
    aclrtMemcpy,
)

from . import common
from .common import Effort, Figure, Row, make_row
from .groups import RUNTIME as GROUPS

SIZES = {"4KiB": 4 << 10, "64KiB": 64 << 10, "1MiB": 1 << 20, "16MiB": 16 << 20, "64MiB": 64 << 20}
PY_SIZES = ("4KiB", "1MiB", "64MiB")
KINDS = ("H2D", "D2H", "D2D", "H2H")


def sizes(effort: Effort) -> dict[str, int]:
    return {name: size for name, size in SIZES.items() if size <= effort.max_bytes}


def measure_py(statement: str, iterations: int, effort: Effort, **names: object) -> Figure:
    # the C names in scope, as a user writes them
    return common.measure({"": statement}, effort.iterations(iterations), {**vars(ascendcl), **names},
                          effort.repeats)[""]


def python_figures(groups: Sequence[str], effort: Effort) -> dict[str, Figure]:
    """The Python face's figures (aclInit and aclrtSetDevice done by the caller)."""
    results = {}
    if "call" in groups:
        results["py.cheap_call"] = measure_py("aclDataTypeSize(ACL_FLOAT16)", 500000, effort)
        results["py.builtin_len"] = measure_py("len(s)", 500000, effort, s="")
    if "malloc" in groups:
        results["py.aclrtMalloc_aclrtFree.4KiB"] = measure_py(
            "pointer, _ = aclrtMalloc(4096, ACL_MEM_MALLOC_HUGE_FIRST); aclrtFree(pointer)", 200000, effort)
    if "copy" in groups:
        for name, size in sizes(effort).items():
            if name not in PY_SIZES:
                continue
            host = np.ones(size, np.uint8)
            device, _ = aclrtMalloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
            address = host.ctypes.data
            aclrtMemcpy(device, size, address, size, ACL_MEMCPY_HOST_TO_DEVICE)
            iterations = 100000 if size <= 4096 else 2000 if size <= 1 << 20 else 20
            names = {"d": device, "a": address, "s": size}
            results[f"py.aclrtMemcpy_H2D.{name}"] = measure_py(
                "aclrtMemcpy(d, s, a, s, ACL_MEMCPY_HOST_TO_DEVICE)", iterations, effort, **names)
            results[f"py.aclrtMemcpy_D2H.{name}"] = measure_py(
                "aclrtMemcpy(a, s, d, s, ACL_MEMCPY_DEVICE_TO_HOST)", iterations, effort, **names)
            aclrtFree(device)
    return results


def c_figures(groups: Sequence[str], effort: Effort) -> dict[str, Figure]:
    c_groups = [g for g in ("malloc", "copy", "launch", "event", "callback") if g in groups]
    if not c_groups:
        return {}
    return common.run_c_benchmark("runtime_bench", [str(effort.c_scale), str(effort.max_bytes), *c_groups],
                                  repeats=effort.repeats)


def rows(figures: dict[str, Figure], groups: Sequence[str], effort: Effort) -> list[Row]:
    out: list[Row] = []
    if "call" in groups:
        out.append(make_row("call.py", "cheap C-API call aclDataTypeSize (py)", figures["py.cheap_call"],
                            "builtin len()", figures["py.builtin_len"]))
    if "malloc" in groups:
        peer = figures["c.glibc_malloc_free.4KiB"]
        for face in ("c", "py"):
            out.append(make_row(f"malloc.cached.{face}", f"cached aclrtMalloc+aclrtFree 4KiB ({face})",
                                figures[f"{face}.aclrtMalloc_aclrtFree.4KiB"], "glibc malloc+free", peer))
        out.append(make_row("malloc.uncached.c", "uncached aclrtMalloc+aclrtFree+emptyCache 64MiB (c)",
                            figures["c.aclrtMalloc_aclrtFree_emptyCache.64MiB"], "glibc malloc+free (mmap)",
                            figures["c.glibc_malloc_free.64MiB"]))
    if "copy" in groups:
        for name, size in sizes(effort).items():
            for face in ("c", "py"):
                for kind in KINDS if face == "c" else ("H2D", "D2H"):
                    key = f"{face}.aclrtMemcpy_{kind}.{name}"
                    if key in figures:  # the Python rows beside the memcpy timed in turns with C's same copy
                        out.append(make_row(f"copy.{face}.{kind}.{name}", f"aclrtMemcpy {kind} {name} ({face})",
                                            figures[key], "memcpy", figures[f"c.memcpy.{kind}.{name}"], nbytes=size))
    for group, name, label, key, peer in (
            ("launch", "launch.c", "empty task launch+synchronize (c)", "c.launch_synchronize", "launch"),
            ("event", "event.record_sync.c", "event record+synchronize (c)", "c.event_record_synchronize",
             "record_sync"),
            ("event", "event.wait.c", "event record, cross-stream wait, task, sync (c)", "c.event_wait_cross_stream",
             "wait"),
            ("callback", "callback.c", "callback launch+synchronize, report thread (c)",
             "c.callback_launch_synchronize", "callback")):
        if group in groups:
            out.append(make_row(name, label, figures[key], "spinning thread handoff",
                                figures[f"c.thread_handoff.{peer}"]))
    if "event" in groups:
        out.append(make_row("event.sync_completed.c", "aclrtSynchronizeEvent, completed event (c)",
                            figures["c.event_synchronize_completed"], "mutex lock+unlock",
                            figures["c.mutex.sync_completed"]))
        out.append(make_row("event.elapsed.c", "aclrtEventElapsedTime (c)", figures["c.event_elapsed_time"],
                            "mutex lock+unlock", figures["c.mutex.elapsed"]))
    return sorted(out, key=lambda row: GROUPS.index(row["group"]))  # stable: each group's rows in order
