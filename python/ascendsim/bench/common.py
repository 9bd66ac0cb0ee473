"""What the benchmarks share: timing (median and min-max over repeats after a warm-up, ours and the peer taking
turns), building and running their C halves (timed by measure.h), the rows (a figure beside its peer and their
ratio), the side-by-side table and the progress bar."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import ascendsim

REPEATS = 7
Figure = dict[str, float]  # {"ns": median, "min": ..., "max": ...} nanoseconds per operation
Row = dict[str, Any]  # see make_row
HEADER = ("name", "benchmark", "ascendsim", "peer", "ratio")
HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Effort:
    """How long the suite measures: FULL, or QUICK (seconds; for tests, the values then mean little)."""

    repeats: int
    c_scale: float  # multiplies the C runtime benchmarks' iteration counts
    max_bytes: int  # the largest copy size
    py_scale: float  # multiplies the Python runtime benchmarks' iteration counts
    overhead_iterations: int  # per repeat, from Python (the C program runs 5x as many)
    chain_iterations: int
    streams_iterations: int
    model_seconds: float  # about the time of one repeat of a model row (ours + ORT)
    pause: float  # seconds before each turn on the model rows: see measure

    def iterations(self, full: int) -> int:
        return max(2, int(full * self.py_scale))


FULL = Effort(REPEATS, 1.0, 64 << 20, 1.0, 20000, 200, 20, 0.4, 0.25)
QUICK = Effort(3, 0.002, 64 << 10, 0.005, 200, 5, 2, 0.02, 0.0)


def summarise(samples: Sequence[float]) -> Figure:
    return {"ns": statistics.median(samples), "min": min(samples), "max": max(samples)}


def measure(statements: Mapping[str, str], iterations: int, namespace: Mapping[str, object],
            repeats: int = REPEATS, pause: float = 0.0) -> dict[str, Figure]:
    """ns per execution of each statement (timed inline in a loop, as timeit does, so no extra Python call is
    counted) over `repeats` rounds after a warm-up. The statements take turns in every round, so ours and its
    peer see the same machine: on shared CPUs the load changes from one second to the next. `pause` seconds
    before each turn let the previous statement's spinning threads (OpenBLAS's, onnxruntime's) go to sleep, so
    that no statement runs against another one's spinners."""
    timers = {name: timeit.Timer(statement, globals=dict(namespace)) for name, statement in statements.items()}
    for timer in timers.values():
        timer.timeit(iterations // 10 + 1)
    samples: dict[str, list[float]] = {name: [] for name in timers}
    for _ in range(repeats):
        for name, timer in timers.items():
            time.sleep(pause)
            samples[name].append(timer.timeit(iterations) * 1e9 / iterations)
    return {name: summarise(values) for name, values in samples.items()}


def run_c_benchmark(name: str, args: Sequence[str] = (), env: Mapping[str, str] | None = None,
                    repeats: int = REPEATS) -> dict[str, Figure]:
    """Compiles NAME.c (shipped beside this module) against ascendsim's headers and libascendcl.so, runs it with
    `args` and `repeats` (at most REPEATS) and returns its MEASURE lines by name."""
    source = HERE / f"{name}.c"
    with tempfile.TemporaryDirectory() as work:
        program = Path(work) / name
        subprocess.run(["gcc", "-O2", "-std=c11", str(source), "-o", str(program), f"-I{HERE}",
                        f"-I{ascendsim.get_include()}", f"-L{ascendsim.get_library_dir()}", "-lascendcl",
                        "-lpthread"], check=True)
        run_env = {**(os.environ if env is None else env), "LD_LIBRARY_PATH": ascendsim.get_library_dir(),
                   "ASCENDSIM_BENCH_REPEATS": str(repeats)}
        done = subprocess.run([str(program), *args], capture_output=True, text=True, check=False, env=run_env)
        if done.returncode != 0:
            raise SystemExit(f"ascendsim bench: {name} {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
        output = done.stdout
    rows = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    return {row.pop("name"): row for row in rows}


def fmt_time(figure: Figure, *others: Figure) -> str:
    """The median and [min-max] in ns, us or ms, whichever keeps the largest median of the row (this figure and
    `others`) under 1000, so that a row reads in one unit; three significant digits."""
    largest = max(f["ns"] for f in (figure, *others))
    scale, unit = (1.0, "ns") if largest < 1e3 else (1e3, "us") if largest < 1e6 else (1e6, "ms")

    def number(value: float) -> str:
        value /= scale
        return f"{value:.{0 if abs(value) >= 100 else 1 if abs(value) >= 10 else 2}f}"

    return f"{number(figure['ns'])} {unit} [{number(figure['min'])}-{number(figure['max'])}]"


def make_row(name: str, benchmark: str, ours: Figure, peer_name: str, peer: Figure, *,
             nbytes: int | None = None, flops: int | None = None, threads: int = 1, goal_ns: float | None = None,
             goal_ratio: float | None = None, note: str = "") -> Row:
    """One row: `ours` beside `peer` (measured in the same run); the ratios are of times (< 1: ours faster).
    Rows with `nbytes` are copies, shown as bandwidth; rows with `flops` are computations, shown in GFLOP/s. A
    row's name starts with its group: GROUP.rest."""
    return {"name": name, "group": name.split(".", maxsplit=1)[0], "benchmark": benchmark, "ours": ours,
            "peer_name": peer_name, "peer": peer, "ratio": ours["ns"] / peer["ns"],
            "ratio_of_mins": ours["min"] / peer["min"], "bytes": nbytes, "flops": flops, "threads": threads,
            "goal_ns": goal_ns, "goal_ratio": goal_ratio, "note": note}


def fmt_bandwidth(figure: Figure, nbytes: int) -> str:
    return f"{nbytes / figure['ns']:.2f} GB/s [{nbytes / figure['max']:.2f}-{nbytes / figure['min']:.2f}]"


def fmt_rate(figure: Figure, flops: int) -> str:
    return f"{flops / figure['ns']:.1f} GFLOP/s [{flops / figure['max']:.1f}-{flops / figure['min']:.1f}]"


def time_ratio(ours: Figure, peer: Figure) -> str:
    """Of the medians, and of the minima (steadier than the medians on a busy machine)."""
    return f"{ours['ns'] / peer['ns']:.2f}x time (mins {ours['min'] / peer['min']:.2f}x)"


def table_cells(row: Row) -> tuple[str, str, str, str, str]:
    ours, peer, size, flops = row["ours"], row["peer"], row["bytes"], row.get("flops")
    if flops:
        return (row["name"], row["benchmark"], fmt_rate(ours, flops), f"{row['peer_name']} {fmt_rate(peer, flops)}",
                time_ratio(ours, peer))
    if size:
        return (row["name"], row["benchmark"], fmt_bandwidth(ours, size),
                f"{row['peer_name']} {fmt_bandwidth(peer, size)}",
                f"{peer['ns'] / ours['ns']:.2f}x bandwidth (maxes {peer['min'] / ours['min']:.2f}x)")
    return (row["name"], row["benchmark"], fmt_time(ours, peer), f"{row['peer_name']} {fmt_time(peer, ours)}",
            time_ratio(ours, peer))


def format_table(rows: Sequence[Sequence[str]]) -> str:
    rows = [HEADER, *rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows)


class Progress:
    """A progress bar over the suite's steps on stderr, drawn only when `enabled` (a TTY, or --progress)."""

    WIDTH = 30

    def __init__(self, total: int, enabled: bool, stream: TextIO = sys.stderr) -> None:
        self.total, self.done, self.enabled, self.stream = max(total, 1), 0, enabled, stream
        self.start = time.perf_counter()

    def step(self, label: str) -> None:
        """Shows that `label` starts (after self.done finished steps)."""
        if self.enabled:
            filled = self.WIDTH * self.done // self.total
            elapsed = time.perf_counter() - self.start
            self.stream.write(f"\r\x1b[K[{'#' * filled}{'.' * (self.WIDTH - filled)}] {self.done}/{self.total} "
                              f"{elapsed:5.0f} s  {label}")
            self.stream.flush()
        self.done += 1

    def finish(self) -> None:
        if self.enabled:
            self.done = self.total
            self.step("done\n")
