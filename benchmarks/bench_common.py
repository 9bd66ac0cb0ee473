"""What the benchmarks share: timing (median and min-max over repeats after a warm-up, ours and the peer taking
turns), building and running their C halves (timed by bench_measure.h), and the side-by-side table."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import tempfile
import time
import timeit
from collections.abc import Mapping, Sequence
from pathlib import Path

import ascendsim

REPEATS = 7
Figure = dict[str, float]  # {"ns": median, "min": ..., "max": ...} nanoseconds per operation
Row = tuple[str, str, str, str]  # benchmark, ascendsim, peer, ratio
HEADER: Row = ("benchmark", "ascendsim", "peer", "ratio")


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


def run_c_benchmark(source: Path, args: Sequence[str] = (), env: Mapping[str, str] | None = None) -> dict[str, Figure]:
    """Compiles `source` against ascendsim's headers and libascendcl.so, runs it with `args` and returns its
    MEASURE lines by name."""
    with tempfile.TemporaryDirectory() as work:
        program = Path(work) / source.stem
        subprocess.run(["gcc", "-O2", "-std=c11", str(source), "-o", str(program), f"-I{source.parent}",
                        f"-I{ascendsim.get_include()}", f"-L{ascendsim.get_library_dir()}", "-lascendcl",
                        "-lpthread"], check=True)
        run_env = {**(os.environ if env is None else env), "LD_LIBRARY_PATH": ascendsim.get_library_dir()}
        output = subprocess.run([str(program), *args], capture_output=True, text=True, check=True,
                                env=run_env).stdout
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


def time_ratio(ours: Figure, peer: Figure) -> str:
    """Of the medians, and of the minima (steadier than the medians on a busy machine)."""
    return f"{ours['ns'] / peer['ns']:.2f}x time (mins {ours['min'] / peer['min']:.2f}x)"


def format_table(rows: Sequence[Row]) -> str:
    rows = [HEADER, *rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows)
