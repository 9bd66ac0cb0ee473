"""The aarch64 build target of the portability tests (test_aarch64.py): Debian's cross compiler
(g++-aarch64-linux-gnu), qemu-user to run its programs here, and OpenBLAS for aarch64 from PyPI's manylinux
scipy-openblas32 wheel, unpacked once under build/ so that later runs need no network. The wheel is a
manylinux_2_28 one: the older manylinux2014 builds need a libgfortran that needs libz, which the cross
toolchain's sysroot lacks (Debian 12's glibc is 2.36, so 2.28 is no limit)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from dataclasses import replace
from pathlib import Path

from kernel_build import ROOT, Target

SYSROOT = Path("/usr/aarch64-linux-gnu")  # the cross toolchain's libc, which qemu's loader needs (-L)
CACHE = ROOT / "build" / "aarch64"
PREFIX = "aarch64-linux-gnu-"
COMPILERS = [PREFIX + "g++", PREFIX + "gcc", PREFIX + "objdump", PREFIX + "nm"]
# A Neoverse N1 (Graviton 2's core: NEON, no SVE or SME) rather than qemu's default "max" CPU: on that one
# OpenBLAS 0.3.34 picks its armv9sme kernels, whose sgemm with alpha != 1 reaches an unimplemented stub
# ("empty sgemm_alpha_beta2x2 should never get called") and leaves C wrong.
QEMU = ("qemu-aarch64", "-cpu", "neoverse-n1", "-L", str(SYSROOT))
# The target without OpenBLAS: enough to compile and disassemble the kernel variants (the spill check).
TOOLCHAIN = Target("aarch64", PREFIX, runner=QEMU)


def openblas() -> Path:
    """The unpacked scipy_openblas32 package directory for aarch64 (include/, lib/), downloaded on first use."""
    package = CACHE / "openblas" / "scipy_openblas32"
    if (package / "lib" / "libscipy_openblas.so").exists():
        return package
    wheels = CACHE / "wheels"
    downloaded = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:", "--platform",
         "manylinux_2_28_aarch64", "--no-deps", "scipy-openblas32", "-d", str(wheels)],
        capture_output=True, text=True, timeout=300, check=False)
    found = sorted(wheels.glob("scipy_openblas32-*aarch64*.whl"))
    if downloaded.returncode != 0 or not found:
        raise FileNotFoundError(f"no aarch64 scipy-openblas32 wheel: {downloaded.stderr.strip()[-500:]}")
    # Unpacked beside, then renamed: an interrupted unpack is never taken for a finished one.
    partial = CACHE / "openblas.partial"
    shutil.rmtree(partial, ignore_errors=True)
    with zipfile.ZipFile(found[-1]) as wheel:
        wheel.extractall(partial)
    shutil.rmtree(CACHE / "openblas", ignore_errors=True)
    partial.rename(CACHE / "openblas")
    return package


def missing_compilers() -> str | None:
    """Why the aarch64 kernel variants cannot be compiled and disassembled here, or None."""
    missing = [tool for tool in COMPILERS if shutil.which(tool) is None]
    return f"needs {', '.join(missing)} (apt-get install g++-aarch64-linux-gnu)" if missing else None


def unavailable() -> str | None:
    """Why aarch64 programs cannot be built and run here (compilers, qemu, libc, OpenBLAS), or None."""
    if reason := missing_compilers():
        return reason
    if shutil.which(QEMU[0]) is None:
        return "needs qemu-aarch64 (apt-get install qemu-user)"
    if not (SYSROOT / "lib").is_dir():
        return f"needs the aarch64 libc at {SYSROOT} (apt-get install g++-aarch64-linux-gnu)"
    try:
        openblas()
    except (OSError, subprocess.SubprocessError) as error:
        return f"needs OpenBLAS for aarch64 (the scipy-openblas32 manylinux_2_28_aarch64 wheel): {error}"
    return None


def target() -> Target:
    """The aarch64 target with its OpenBLAS; call unavailable() first."""
    return replace(TOOLCHAIN, openblas=openblas())
