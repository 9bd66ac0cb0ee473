"""The measuring processes: each runs part of the suite in an environment without the BLAS variables
(OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE: OpenBLAS reads them when it loads; the project's machines have had them set,
halving its speed) and with ASCENDSIM_NUM_THREADS set (read once per process), and prints its figures and what it
saw as JSON.

    python -m ascendsim.bench.workers KIND DIRECTORY QUICK GROUP,...     (KIND: runtime, micro, kernels or models)
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import scipy_openblas32

from .common import FULL, QUICK, Figure

BLAS_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")  # removed for the measuring processes
THREADING_PREFIXES = ("OPENBLAS_", "GOTO_", "OMP_", "ASCENDSIM_")  # the variables the header reports


def openblas_library() -> Path:
    return Path(scipy_openblas32.get_lib_dir()) / "libscipy_openblas.so"


def openblas_info() -> dict[str, str]:
    """The config string and the core OpenBLAS picked in this process (it decides when it loads)."""
    library = ctypes.CDLL(str(openblas_library()))
    info = {}
    for key in ("config", "corename"):
        function = getattr(library, f"scipy_openblas_get_{key}")
        function.restype = ctypes.c_char_p
        info[key] = function().decode()
    return info


def measuring_environment(threads: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in BLAS_VARIABLES}
    env["ASCENDSIM_NUM_THREADS"] = str(threads)
    return env


def run_worker(kind: str, threads: int, directory: Path, groups: Sequence[str], quick: bool) -> dict[str, Any]:
    command = [sys.executable, "-m", __name__, kind, str(directory), "quick" if quick else "full", ",".join(groups)]
    done = subprocess.run(command, env=measuring_environment(threads), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"ascendsim bench: the {kind} worker with {threads} thread(s) failed:\n{done.stderr}")
    return json.loads(done.stdout)


def worker(kind: str, directory: Path, groups: Sequence[str], quick: bool) -> dict[str, Any]:
    import onnxruntime as ort

    import acl
    from ascendsim.cpu import describe

    from . import ascendc, kernels, models, runtime, sessions

    sessions.check(acl.init(), "acl.init")
    sessions.check(acl.rt.set_device(0), "acl.rt.set_device")
    threads = int(os.environ["ASCENDSIM_NUM_THREADS"])
    effort = QUICK if quick else FULL
    providers: list[str] = []
    figures: dict[str, Figure]
    notes: dict[str, str] = {}
    if kind == "runtime":
        figures = {**runtime.c_figures(groups, effort), **runtime.python_figures(groups, effort)}
        ascendc_figures, notes = ascendc.figures(groups, effort, directory)
        figures.update(ascendc_figures)
    elif kind == "micro":
        figures, providers = models.micro_worker(directory, groups, effort)
    elif kind == "kernels":
        figures, notes = kernels.worker(directory, quick, effort)
        providers = ["CPUExecutionProvider"]
    else:
        figures, providers, notes = models.model_worker(directory, groups, threads, effort)
    environment = {"cpu": describe(), "openblas": openblas_info(), "ort_version": ort.__version__,
                   "ort_providers": providers,
                   "ASCENDSIM_NUM_THREADS": threads,
                   "variables": {k: v for k, v in sorted(os.environ.items()) if k.startswith(THREADING_PREFIXES)}}
    return {"figures": figures, "notes": notes, "environment": environment}


if __name__ == "__main__":
    KIND, DIRECTORY, EFFORT, GROUPS = sys.argv[1:5]
    print(json.dumps(worker(KIND, Path(DIRECTORY), GROUPS.split(","), EFFORT == "quick")))
