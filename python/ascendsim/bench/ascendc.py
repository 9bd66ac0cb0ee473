"""The `ascendc` group: Ascend C kernels on the emulated device, beside their physical peers from the same run.

Rows:
- ascendc.launch.c: aclrtLaunchKernel + aclrtSynchronizeStream of an empty kernel (1 block) vs the launch group's
  empty task (a 64-byte aclrtMemsetAsync + synchronize), timed in turns with it.
- ascendc.vector_add.c: the float vector add (16 MiB per operand; --quick: the largest copy size), tiled
  through the unified buffer with double-buffered queues, on every vector core of the emulated SoC, as bandwidth
  of the bytes it moves (x and y read, z written) vs C memcpy of one operand between the same device buffers.
  Goal (issue 16): >= 0.5x memcpy's bandwidth.

The kernels (ascendc_kernels.asc) are built with the package's bisheng when the suite runs, loaded with
aclrtBinaryLoadFromFile and timed by ascendc_bench.c; without a host C++ compiler the group is skipped.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from ascendsim.ascendc import soc_info

from . import common
from .common import Effort, Figure, Row, make_row

GROUP = "ascendc"
OPERAND_BYTES = 16 << 20
OPERANDS_MOVED = 3  # x and y read, z written
GOAL = 0.5  # of memcpy's bandwidth (issue 16)


def operand_bytes(effort: Effort) -> int:
    return min(OPERAND_BYTES, effort.max_bytes)


def size_name(size: int) -> str:
    return f"{size >> 20}MiB" if size >= 1 << 20 else f"{size >> 10}KiB"


def skipped() -> str | None:
    """Why the group cannot run here, or None."""
    if shutil.which("g++") is None:
        return "skipped: bisheng needs a host C++ compiler (g++) to build the kernels, and none is on PATH"
    return None


def figures(groups: Sequence[str], effort: Effort, directory: Path) -> tuple[dict[str, Figure], dict[str, str]]:
    """The group's figures (none, and the reason as the note "skipped.ascendc", when it cannot run)."""
    if GROUP not in groups:
        return {}, {}
    reason = skipped()
    if reason is not None:
        return {}, {f"skipped.{GROUP}": reason}
    kernels = directory / "ascendc_kernels.so"
    command = [sys.executable, "-m", "ascendsim.ascendc.bisheng", "-shared", "-fPIC", "-O2", "-x", "asc",
               "--npu-arch=dav-2201", str(common.HERE / "ascendc_kernels.asc"), "-o", str(kernels)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"ascendsim bench: bisheng could not build the ascendc kernels:\n{done.stderr}")
    found = common.run_c_benchmark("ascendc_bench", [str(effort.c_scale), str(operand_bytes(effort)), str(kernels)],
                                   repeats=effort.repeats)
    info = soc_info()
    return found, {f"{GROUP}.vector_add.c": f"{info['vector_cores']} blocks: every vector core of {info['name']}"}


def rows(figures: dict[str, Figure], notes: dict[str, str], effort: Effort) -> list[Row]:
    if "c.ascendc.vector_add" not in figures:
        return []
    size = operand_bytes(effort)
    moved = OPERANDS_MOVED * size
    # memcpy's time per operand, scaled to the bytes the add moves: the row's bandwidths and ratio compare as such.
    memcpy = {key: value * moved / size for key, value in figures["c.ascendc.memcpy"].items()}
    return [
        make_row(f"{GROUP}.launch.c", "Ascend C empty kernel launch+synchronize, 1 block (c)",
                 figures["c.ascendc.empty_kernel"], "empty task launch+synchronize", figures["c.ascendc.empty_task"]),
        make_row(f"{GROUP}.vector_add.c", f"Ascend C vector add {size_name(size)} float, {OPERANDS_MOVED} operands "
                 "moved (c)",
                 figures["c.ascendc.vector_add"], f"memcpy {size_name(size)}", memcpy, nbytes=moved,
                 goal_ratio=1 / GOAL, note=notes.get(f"{GROUP}.vector_add.c", "")),
    ]
