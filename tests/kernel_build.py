"""Builds the kernel variants outside CMake, for the tests that compile library sources themselves (the kernel
driver, the ThreadSanitizer chaos program, the spill check): every csrc/kernels/simd/*.cpp once per variant of
this machine's architecture, with the flags of csrc/kernels/simd/variants.txt (what CMakeLists.txt reads)."""

from __future__ import annotations

import hashlib
import platform
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIMD = ROOT / "csrc" / "kernels" / "simd"
VARIANTS = SIMD / "variants.txt"
# As the library is built (Release), with its warnings as errors.
OPTIMIZED = ["-O3", "-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Werror"]


def variants() -> list[tuple[str, list[str]]]:
    """(name, flags) of this architecture's variants, lowest first."""
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(platform.machine().lower(), platform.machine().lower())
    rows = [line.split() for line in VARIANTS.read_text().splitlines() if line.strip() and not line.startswith("#")]
    if machine not in {row[0] for row in rows}:
        machine = "other"
    return [(row[1], row[2:]) for row in rows if row[0] == machine]


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


def cached_variant_objects(cache: Path, flags: list[str]) -> list[Path]:
    """build_variant_objects into a directory of `cache` named by the sources' digest, once."""
    out = cache / f"variants_{sources_digest(*flags)}"
    done = out / "done"
    if done.exists():
        return [Path(line) for line in done.read_text().splitlines()]
    objects = build_variant_objects(out, flags)
    done.write_text("\n".join(map(str, objects)))
    return objects


def build_variant_objects(out: Path, flags: list[str]) -> list[Path]:
    """Compiles every variant's sources with `flags` (the caller's: optimisation, sanitizers, warnings) into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    objects = []
    for name, variant_flags in variants():
        for source in simd_sources():
            obj = out / f"{name}_{source.stem}.o"
            command = ["g++", "-std=c++17", "-c", *flags, "-fno-math-errno", *variant_flags, f"-DASCENDSIM_ISA={name}",
                       f"-I{ROOT / 'include'}", f"-I{ROOT / 'csrc'}", str(source), "-o", str(obj)]
            built = subprocess.run(command, capture_output=True, text=True, check=False)
            assert built.returncode == 0, f"compile failed:\n{' '.join(command)}\n{built.stderr}"
            objects.append(obj)
    return objects
