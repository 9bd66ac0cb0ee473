"""Builds libascendcl.so outside CMake, as CMakeLists.txt does (its sources, Release flags, warnings, hidden
visibility, the kernel variants, the export map and -Wl,--no-undefined), for a Target (kernel_build.py): the
aarch64 portability test cross-compiles the whole library with its warnings as errors. The Python extension
(csrc/python) is not part of it."""

from __future__ import annotations

import hashlib
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from kernel_build import ROOT, Target, cached_variant_objects, openblas_dir, target_key, variants

CSRC = ROOT / "csrc"
LIBRARY_DIRS = ("core", "device", "runtime", "api", "model", "kernels", "executor", "op")
# CMakeLists.txt's ASCENDSIM_WARNINGS, then its Release flags.
WARNINGS = ["-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Wno-missing-field-initializers"]
RELEASE = ["-O3", "-DNDEBUG", "-fPIC"]
JOBS = min(2, os.cpu_count() or 1)  # the CI machine has two CPUs, shared


def library_sources() -> list[Path]:
    """CMake's ASCENDCL_SOURCES: the .cpp and .c files of the library's folders, without the kernel variants'."""
    return sorted(p for d in LIBRARY_DIRS for pattern in ("*.cpp", "*.c") for p in (CSRC / d).rglob(pattern)
                  if "simd" not in p.relative_to(CSRC).parts)


def compile_command(target: Target, source: Path, obj: Path, openblas: Path, extra: list[str]) -> list[str]:
    """The compile of one library source as CMake runs it (C sources with the target's C compiler)."""
    language = ([target.tool("gcc")] if source.suffix == ".c"
                else [target.tool("g++"), "-std=c++17", "-fvisibility-inlines-hidden"])
    # The kernels compute without errno, so GCC vectorizes their exp/log/tanh loops (CMakeLists.txt).
    kernels = ["-fno-math-errno"] if source.parent == CSRC / "kernels" else []
    return [*language, *RELEASE, "-fvisibility=hidden", *WARNINGS, *extra, *kernels, "-DFUNC_VISIBILITY",
            f"-I{ROOT / 'include'}", f"-I{CSRC}", f"-isystem{openblas / 'include'}", "-c", str(source), "-o", str(obj)]


def _failure(command: list[str]) -> str:
    """Runs a build step; what it printed when it failed, else ""."""
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    return "" if done.returncode == 0 else f"{' '.join(command)}\n{done.stdout}{done.stderr}"


def check_variant_symbols(target: Target, name: str, objects: list[Path]) -> None:
    """cmake/check_isa_symbols.cmake: a variant's objects define nothing outside namespace isa_<variant>."""
    for obj in objects:
        listed = subprocess.run([target.tool("nm"), "--defined-only", "--extern-only", "-C", str(obj)],
                                capture_output=True, text=True, check=True).stdout
        outside = [line for line in listed.splitlines() if line and f" ascendsim::kernels::isa_{name}::" not in line]
        assert not outside, f"{obj.name} (variant {name}) defines symbols outside its namespace: {outside}"


def build_library(cache: Path, target: Target, extra: list[str]) -> Path:
    """libascendcl.so for `target`, its sources compiled with CMake's flags and `extra` (e.g. -Werror), linked
    against the target's OpenBLAS; cached in `cache` by the sources' digest."""
    openblas = openblas_dir(target)
    digest = hashlib.sha256("\0".join([*extra, *target_key(target), str(openblas)]).encode())
    for path in sorted(p for d in (CSRC, ROOT / "include") for p in d.rglob("*") if p.is_file()):
        digest.update(path.read_bytes())
    out = cache / f"libascendcl_{digest.hexdigest()[:16]}"
    library = out / "libascendcl.so"
    if library.exists():
        return library
    out.mkdir(parents=True, exist_ok=True)
    sources = library_sources()
    objects = [out / (str(s.relative_to(CSRC)).replace("/", "_") + ".o") for s in sources]
    with ThreadPoolExecutor(JOBS) as pool:  # every source, so that one run reports all that fail
        failures = [f for f in pool.map(_failure, [compile_command(target, s, o, openblas, extra)
                                                    for s, o in zip(sources, objects)]) if f]
    assert not failures, "\n".join([f"{len(failures)} sources failed to compile:", *failures])
    # The variants as CMake's object libraries compile them (position independent, default visibility).
    variant_objects = cached_variant_objects(cache, [*RELEASE, *WARNINGS, *extra], target)
    for name, _ in variants(target):
        check_variant_symbols(target, name, [o for o in variant_objects if o.name.startswith(name + "_")])
    lib = openblas / "lib"
    failure = _failure([target.tool("g++"), "-shared", "-o", f"{library}.tmp", *map(str, objects),
                        *map(str, variant_objects), f"-Wl,--version-script={CSRC / 'api' / 'exports.map'}",
                        "-Wl,--no-undefined", f"-L{lib}", "-lscipy_openblas", "-lpthread"])
    assert not failure, failure
    Path(f"{library}.tmp").rename(library)
    return library
