"""Runtime microbenchmarks, side by side with their peers from one run.

    python benchmarks/bench_runtime.py [--json]

Rows: cached aclrtMalloc+aclrtFree from C and Python vs glibc malloc+free; aclrtMemcpy H2D and D2H at
4 KiB, 1 MiB and 64 MiB from C and Python vs C memcpy (bandwidth); the launch+synchronize round trip of
an (almost) empty stream task; event record + synchronize. Targets: copies >= 0.85x memcpy bandwidth at
1 MiB and 64 MiB; a cached malloc+free pair under 150 ns from Python. Figures are medians of 7 repeats
after a warm-up (min-max in brackets); run on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import bench_common
import numpy as np
from bench_common import Figure, Row, fmt_time, format_table, time_ratio

import ascendcl
from ascendcl import (
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    aclInit,
    aclrtFree,
    aclrtMalloc,
    aclrtMemcpy,
    aclrtSetDevice,
)

HERE = Path(__file__).resolve().parent
SIZES = {"4KiB": 4096, "1MiB": 1 << 20, "64MiB": 64 << 20}


def measure(statement: str, iterations: int, **names: object) -> Figure:
    # the C names in scope, as a user writes them
    return bench_common.measure({"": statement}, iterations, {**vars(ascendcl), **names})[""]


def python_results() -> dict[str, Figure]:
    aclInit("")
    aclrtSetDevice(0)
    results = {}

    # The binding's own cost: a call that does almost nothing, beside the cheapest builtin call.
    results["py.cheap_call"] = measure("aclDataTypeSize(ACL_FLOAT16)", 500000)
    results["py.builtin_len"] = measure("len(s)", 500000, s="")
    results["py.aclrtMalloc_aclrtFree"] = measure(
        "pointer, _ = aclrtMalloc(4096, ACL_MEM_MALLOC_HUGE_FIRST); aclrtFree(pointer)", 200000)
    for name, size in SIZES.items():
        host = np.ones(size, np.uint8)
        device, _ = aclrtMalloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
        address = host.ctypes.data
        aclrtMemcpy(device, size, address, size, ACL_MEMCPY_HOST_TO_DEVICE)
        iterations = 100000 if size <= 4096 else 2000 if size <= 1 << 20 else 20
        names = {"d": device, "a": address, "s": size}
        results[f"py.aclrtMemcpy_H2D.{name}"] = measure("aclrtMemcpy(d, s, a, s, ACL_MEMCPY_HOST_TO_DEVICE)",
                                                        iterations, **names)
        results[f"py.aclrtMemcpy_D2H.{name}"] = measure("aclrtMemcpy(a, s, d, s, ACL_MEMCPY_DEVICE_TO_HOST)",
                                                        iterations, **names)
        aclrtFree(device)
    return results


def table(results: dict[str, Figure]) -> list[Row]:
    def fmt_bw(row: Figure, size: int) -> str:
        return f"{size / row['ns']:.2f} GB/s [{size / row['max']:.2f}-{size / row['min']:.2f}]"

    rows = []
    ours, peer = results["py.cheap_call"], results["py.builtin_len"]
    rows.append(("cheap C-API call aclDataTypeSize (py)", fmt_time(ours, peer), "builtin len() " + fmt_time(peer, ours),
                 time_ratio(ours, peer)))
    peer = results["c.glibc_malloc_free"]
    for face in ("c", "py"):
        ours = results[f"{face}.aclrtMalloc_aclrtFree"]
        rows.append((f"cached malloc+free 4KiB ({face})", fmt_time(ours, peer),
                     "glibc malloc+free " + fmt_time(peer, ours), time_ratio(ours, peer)))
    for name, size in SIZES.items():
        peer = results[f"c.memcpy.{name}"]
        for face in ("c", "py"):
            for kind in ("H2D", "D2H"):
                ours = results[f"{face}.aclrtMemcpy_{kind}.{name}"]
                rows.append((f"aclrtMemcpy {kind} {name} ({face})", fmt_bw(ours, size), "memcpy " + fmt_bw(peer, size),
                             f"{peer['ns'] / ours['ns']:.2f}x bandwidth"))
    peer = results["c.thread_handoff"]
    for key, label in (("c.launch_synchronize", "empty task launch+synchronize (c)"),
                       ("c.event_record_synchronize", "event record+synchronize (c)")):
        ours = results[key]
        rows.append((label, fmt_time(ours, peer), "spinning thread handoff " + fmt_time(peer, ours),
                     time_ratio(ours, peer)))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the raw figures as JSON")
    args = parser.parse_args()
    results = {**bench_common.run_c_benchmark(HERE / "runtime_bench.c"), **python_results()}
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(format_table(table(results)))
    print(f"\n{sys.platform}, {os.cpu_count()} CPUs, python {sys.version.split()[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
