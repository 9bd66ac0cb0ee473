"""Builds the kernel variants outside CMake, for the tests that compile library sources themselves (the kernel
driver, the ThreadSanitizer chaos program, the spill check): every csrc/kernels/simd/*.cpp once per variant of
the target architecture, with the flags of csrc/kernels/simd/variants.txt (what CMakeLists.txt reads). The target
is this machine (HOST) unless a caller passes another, such as aarch64 through a cross compiler."""

from __future__ import annotations

import hashlib
import os
import platform
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIMD = ROOT / "csrc" / "kernels" / "simd"
VARIANTS = SIMD / "variants.txt"
# As the library is built (Release), with its warnings as errors.
OPTIMIZED = ["-O3", "-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Werror"]
JOBS = min(2, os.cpu_count() or 1)  # the CI machine has two CPUs, shared


@dataclass(frozen=True)
class Target:
    """An architecture to build for: its name in variants.txt, the prefix of its GNU tools (g++, gcc, objdump,
    nm: "aarch64-linux-gnu-" for Debian's cross compiler), the command prefix that runs its programs here (an
    emulator, or nothing), and the scipy_openblas32 package directory (include/, lib/) to link against (None:
    the one installed in this Python)."""
    arch: str
    prefix: str = ""
    runner: tuple[str, ...] = ()
    openblas: Path | None = None

    def tool(self, name: str) -> str:
        return self.prefix + name


def _host_arch() -> str:
    machine = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)


HOST = Target(_host_arch())


def openblas_dir(target: Target) -> Path:
    """The scipy_openblas32 package directory (include/, lib/) that `target`'s programs build and link with."""
    if target.openblas is not None:
        return target.openblas
    import scipy_openblas32

    return Path(scipy_openblas32.get_lib_dir()).parent


def variants(target: Target = HOST) -> list[tuple[str, list[str]]]:
    """(name, flags) of the target architecture's variants, lowest first."""
    rows = [line.split() for line in VARIANTS.read_text().splitlines() if line.strip() and not line.startswith("#")]
    arch = target.arch if target.arch in {row[0] for row in rows} else "other"
    return [(row[1], row[2:]) for row in rows if row[0] == arch]


def simd_sources() -> list[Path]:
    return sorted(SIMD.glob("*.cpp"))


def sources_digest(*extra: str) -> str:
    """A digest of the variants' sources, the headers they can include and `extra` (flags): a build's cache key."""
    digest = hashlib.sha256()
    headers = sorted(p for d in (ROOT / "csrc" / "kernels", SIMD) for p in d.glob("*.h"))
    for path in [VARIANTS, *simd_sources(), *headers]:
        digest.update(path.read_bytes())
    for text in extra:
        digest.update(text.encode())
    return digest.hexdigest()[:16]


def target_key(target: Target) -> tuple[str, ...]:
    """What a cache key adds for `target`: nothing for the host (so its caches keep their names), the
    architecture and compiler for another."""
    return () if target == HOST else (target.arch, target.prefix)


def cached_variant_objects(cache: Path, flags: list[str], target: Target = HOST) -> list[Path]:
    """build_variant_objects into a directory of `cache` named by the sources' digest, once."""
    out = cache / f"variants_{sources_digest(*flags, *target_key(target))}"
    done = out / "done"
    if done.exists():
        return [Path(line) for line in done.read_text().splitlines()]
    objects = build_variant_objects(out, flags, target)
    done.write_text("\n".join(map(str, objects)))
    return objects


def run_compiles(commands: list[list[str]]) -> None:
    """Runs independent compiler commands JOBS at a time (a whole library's sources take minutes one by one)."""
    def run(command: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(command, capture_output=True, text=True, check=False)

    with ThreadPoolExecutor(JOBS) as pool:
        for command, built in zip(commands, pool.map(run, commands)):
            assert built.returncode == 0, f"compile failed:\n{' '.join(command)}\n{built.stderr}"


def build_variant_objects(out: Path, flags: list[str], target: Target = HOST) -> list[Path]:
    """Compiles every variant's sources with `flags` (the caller's: optimisation, sanitizers, warnings) into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    objects, commands = [], []
    for name, variant_flags in variants(target):
        for source in simd_sources():
            obj = out / f"{name}_{source.stem}.o"
            commands.append([target.tool("g++"), "-std=c++17", "-c", *flags, "-fno-math-errno", *variant_flags,
                             f"-DASCENDSIM_ISA={name}", f"-I{ROOT / 'include'}", f"-I{ROOT / 'csrc'}", str(source),
                             "-o", str(obj)])
            objects.append(obj)
    run_compiles(commands)
    return objects
