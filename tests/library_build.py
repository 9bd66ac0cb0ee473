"""Builds libascendcl.so for a Target (kernel_build.py) with the project's own CMakeLists.txt, the library alone
(-DASCENDSIM_PYTHON=OFF) against the target's OpenBLAS, as a cross build when the target is another
architecture: the aarch64 portability test cross-compiles the whole library with its warnings as errors. And the
library's sources, for the tests that compile them into a program of their own (the ThreadSanitizer chaos run)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from kernel_build import HOST, JOBS, ROOT, Target, openblas_dir

CSRC = ROOT / "csrc"
LIBRARY_DIRS = ("core", "device", "prof", "runtime", "api", "model", "kernels", "executor", "op", "ascendc")


def library_sources() -> list[Path]:
    """The .cpp and .c files of the library's folders (CMakeLists.txt's ASCENDCL_SOURCES), without the kernel
    variants' (kernel_build.py builds those, once per variant)."""
    return sorted(p for d in LIBRARY_DIRS for pattern in ("*.cpp", "*.c") for p in (CSRC / d).rglob(pattern)
                  if "simd" not in p.relative_to(CSRC).parts)


def cmake_available() -> bool:
    return shutil.which("cmake") is not None and shutil.which("make") is not None


def build_library(cache: Path, target: Target, flags: list[str]) -> Path:
    """libascendcl.so for `target`, built by CMake in a directory of `cache` (incremental across runs), every
    source compiled with `flags` too (e.g. -Werror)."""
    build = cache / f"cmake_{target.arch}"
    options = ["-DCMAKE_BUILD_TYPE=Release", "-DASCENDSIM_PYTHON=OFF", f"-DASCENDSIM_OPENBLAS_DIR={openblas_dir(target)}",
               f"-DCMAKE_C_FLAGS={' '.join(flags)}", f"-DCMAKE_CXX_FLAGS={' '.join(flags)}"]
    if target != HOST:
        options += ["-DCMAKE_SYSTEM_NAME=Linux", f"-DCMAKE_SYSTEM_PROCESSOR={target.arch}",
                    f"-DCMAKE_C_COMPILER={target.tool('gcc')}", f"-DCMAKE_CXX_COMPILER={target.tool('g++')}"]
    for command in (["cmake", "-S", str(ROOT), "-B", str(build), "-G", "Unix Makefiles", *options],
                    ["cmake", "--build", str(build), "--target", "ascendcl", "--parallel", str(JOBS)]):
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"{' '.join(command)}\n{done.stdout[-20000:]}{done.stderr[-20000:]}"
    return build / "libascendcl.so"
