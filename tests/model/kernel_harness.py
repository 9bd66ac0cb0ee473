"""Runs single kernels of libascendcl's registry through tests/c/kernel_driver.cpp, built once per source
version from csrc/kernels/*.cpp and the kernel variants of csrc/kernels/simd (the kernels are not exported):
numpy makes the inputs, the driver writes the outputs, the tests compare with numpy/onnxruntime. A Driver runs
one kernel variant (ASCENDSIM_ISA); the `driver` fixture (conftest.py) gives each variant this CPU runs. For
another architecture's Target (kernel_build.py) the driver is cross-compiled and run through the target's runner
(an emulator such as qemu-user)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from kernel_build import HOST, OPTIMIZED, Target, cached_variant_objects, openblas_dir, sources_digest, target_key

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "csrc" / "core" / "json.cpp", ROOT / "csrc" / "core" / "log.cpp",
           ROOT / "csrc" / "core" / "log_file.cpp", ROOT / "csrc" / "core" / "env_choice.cpp",
           *sorted((ROOT / "csrc" / "kernels").glob("*.cpp"))]
DRIVER = ROOT / "tests" / "c" / "kernel_driver.cpp"
ACL = {np.dtype("float32"): 0, np.dtype("float16"): 1, np.dtype("int8"): 2, np.dtype("int32"): 3,
       np.dtype("uint8"): 4, np.dtype("int16"): 6, np.dtype("uint16"): 7, np.dtype("uint32"): 8,
       np.dtype("int64"): 9, np.dtype("uint64"): 10, np.dtype("float64"): 11, np.dtype("bool"): 12}
NUMPY = {v: k for k, v in ACL.items()}


class Refused(Exception):
    """The kernel factory refused the node; the message is the factory's."""


@dataclass(frozen=True)
class Driver:
    """The kernel driver program, run with kernel variant `isa`, through `runner` (the target's emulator, if any)."""
    program: Path
    isa: str
    runner: tuple[str, ...] = ()

    def command(self, *args: str) -> list[str]:
        return [*self.runner, str(self.program), *args]


def build_driver(cache: Path, target: Target = HOST) -> Path:
    digest = hashlib.sha256(sources_digest(*target_key(target)).encode())
    for path in [DRIVER, *SOURCES]:
        digest.update(path.read_bytes())
    program = cache / f"kernel_driver_{digest.hexdigest()[:16]}"
    if program.exists():
        return program
    objects = cached_variant_objects(cache, OPTIMIZED, target)
    blas = openblas_dir(target)
    lib = blas / "lib"
    command = [target.tool("g++"), "-std=c++17", "-fno-math-errno", *OPTIMIZED,
               f"-I{ROOT / 'include'}", f"-I{ROOT / 'csrc'}", f"-isystem{blas / 'include'}",
               str(DRIVER), *map(str, SOURCES), *map(str, objects), "-o", str(program) + ".tmp", f"-L{lib}",
               "-lscipy_openblas", f"-Wl,-rpath,{lib}", "-lpthread"]
    built = subprocess.run(command, capture_output=True, text=True, check=False)
    assert built.returncode == 0, f"compile failed:\n{' '.join(command)}\n{built.stderr}"
    Path(str(program) + ".tmp").rename(program)
    return program


def runnable_variants(program: Path, target: Target = HOST) -> list[str]:
    """The kernel variants this CPU (or the target's emulator) runs, lowest first (the driver asks kernels/isa.cpp)."""
    listed = subprocess.run([*target.runner, str(program), "--variants"], capture_output=True, text=True, check=True)
    return listed.stdout.split()


def attr_json(value: Any) -> dict[str, Any]:  # noqa: PLR0911
    if isinstance(value, bool | int | np.integer):
        return {"t": "int", "v": int(value)}
    if isinstance(value, float | np.floating):
        return {"t": "float", "v": float(value)}
    if isinstance(value, str):
        return {"t": "string", "v": value}
    if isinstance(value, np.ndarray):
        return {"t": "tensor", "v": {"dtype": ACL[value.dtype], "dims": list(value.shape),
                                     "bytes": list(value.tobytes())}}
    if isinstance(value, dict):
        return {"t": "dict", "v": {k: attr_json(v) for k, v in value.items()}}
    items = list(value)
    if items and all(isinstance(v, dict) for v in items):
        return {"t": "dicts", "v": [{k: attr_json(v) for k, v in d.items()} for d in items]}
    if all(isinstance(v, bool | int | np.integer) for v in items):
        return {"t": "ints", "v": [int(v) for v in items]}
    if all(isinstance(v, str) for v in items):
        return {"t": "strings", "v": items}
    return {"t": "floats", "v": [float(v) for v in items]}


def run_kernel(driver: Driver, work: Path, op: str, inputs: list[np.ndarray | None], outputs: list[tuple[Any, tuple]], *,
               attrs: dict[str, Any] | None = None, domain: str = "", flags: int = 0,
               inplace: tuple[int, int] | None = None, constant: tuple[int, ...] = ()) -> list[np.ndarray]:
    """Runs `op` on `inputs`; `outputs` gives (dtype, shape) per output. Raises Refused."""
    work.mkdir(parents=True, exist_ok=True)
    case: dict[str, Any] = {"op": op, "domain": domain, "flags": flags,
                            "attrs": {k: attr_json(v) for k, v in (attrs or {}).items() if v is not None},
                            "inputs": [], "outputs": []}
    for i, x in enumerate(inputs):
        if x is None:
            case["inputs"].append(None)
            continue
        array = x if x.flags.c_contiguous else np.ascontiguousarray(x)  # keeps 0-d arrays 0-d
        path = work / f"in{i}.bin"
        path.write_bytes(array.tobytes())
        case["inputs"].append({"dtype": ACL[array.dtype], "dims": list(array.shape), "file": str(path),
                               "constant": i in constant})
    for k, (dtype, shape) in enumerate(outputs):
        case["outputs"].append({"dtype": ACL[np.dtype(dtype)], "dims": list(shape), "file": str(work / f"out{k}.bin")})
    if inplace is not None:
        case["inplace"] = list(inplace)
    (work / "case.json").write_text(json.dumps(case))
    result = subprocess.run(driver.command(str(work / "case.json")), capture_output=True, text=True,
                            timeout=120, check=False, env={**os.environ, "ASCENDSIM_ISA": driver.isa})
    assert result.returncode == 0, result.stdout + result.stderr
    if result.stdout.startswith("REFUSED"):
        raise Refused(result.stdout.strip())
    assert result.stdout.strip() == "OK", result.stdout
    return [np.fromfile(work / f"out{k}.bin", dtype=np.dtype(dtype)).reshape(shape)
            for k, (dtype, shape) in enumerate(outputs)]
