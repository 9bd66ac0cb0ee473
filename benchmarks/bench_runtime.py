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
import statistics
import subprocess
import sys
import tempfile
import timeit
from pathlib import Path

import numpy as np

import ascendcl
import ascendsim
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
REPEATS = 7


def measure(statement: str, iterations: int, **names: object) -> dict[str, float]:
    """Median/min/max ns per execution of `statement` (timed inline in a loop, as timeit does, so no
    extra Python call is counted) over REPEATS loops, after a warm-up."""
    timer = timeit.Timer(statement, globals={**vars(ascendcl), **names})  # the C names, as a user writes them
    timer.timeit(iterations // 10 + 1)
    samples = [timer.timeit(iterations) * 1e9 / iterations for _ in range(REPEATS)]
    return {"ns": statistics.median(samples), "min": min(samples), "max": max(samples)}


def c_results() -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory() as work:
        program = Path(work) / "runtime_bench"
        subprocess.run(["gcc", "-O2", "-std=c11", str(HERE / "runtime_bench.c"), "-o", str(program),
                        f"-I{ascendsim.get_include()}", f"-L{ascendsim.get_library_dir()}", "-lascendcl",
                        "-lpthread"], check=True)
        env = {**os.environ, "LD_LIBRARY_PATH": ascendsim.get_library_dir()}
        output = subprocess.run([str(program)], capture_output=True, text=True, check=True, env=env).stdout
    rows = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    return {row.pop("name"): row for row in rows}


def python_results() -> dict[str, dict[str, float]]:
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


def table(results: dict[str, dict[str, float]]) -> list[tuple[str, str, str, str]]:
    def fmt_ns(row: dict[str, float]) -> str:
        return f"{row['ns']:.0f} ns [{row['min']:.0f}-{row['max']:.0f}]"

    def fmt_bw(row: dict[str, float], size: int) -> str:
        return f"{size / row['ns']:.2f} GB/s [{size / row['max']:.2f}-{size / row['min']:.2f}]"

    rows = []
    ours, peer = results["py.cheap_call"], results["py.builtin_len"]
    rows.append(("cheap C-API call aclDataTypeSize (py)", fmt_ns(ours), "builtin len() " + fmt_ns(peer),
                 f"{ours['ns'] / peer['ns']:.2f}x time"))
    peer = results["c.glibc_malloc_free"]
    for face in ("c", "py"):
        ours = results[f"{face}.aclrtMalloc_aclrtFree"]
        rows.append((f"cached malloc+free 4KiB ({face})", fmt_ns(ours), "glibc malloc+free " + fmt_ns(peer),
                     f"{ours['ns'] / peer['ns']:.2f}x time"))
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
        rows.append((label, fmt_ns(ours), "spinning thread handoff " + fmt_ns(peer),
                     f"{ours['ns'] / peer['ns']:.2f}x time"))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the raw figures as JSON")
    args = parser.parse_args()
    results = {**c_results(), **python_results()}
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    rows = [("benchmark", "ascendsim", "peer", "ratio"), *table(results)]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)))
    print(f"\n{sys.platform}, {os.cpu_count()} CPUs, python {sys.version.split()[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
