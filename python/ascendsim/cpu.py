"""What CPU this is, which kernel variant runs on it and which kernel path each node of a model got
(docs/kernels.md), for benchmark headers, demos and users checking what their model runs on."""

from __future__ import annotations

import json
import platform
from pathlib import Path
from typing import Any

from . import _core

# The vector extensions worth naming, in the order a reader compares CPUs by (x86 flags, then aarch64 features).
X86_EXTENSIONS = ("sse2", "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512cd", "avx512dq",
                  "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile")
ARM_EXTENSIONS = ("asimd", "asimdhp", "asimddp", "i8mm", "bf16", "sve", "sve2")


def _cpuinfo() -> list[dict[str, str]]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return []
    processors = []
    for block in text.split("\n\n"):
        fields = {}
        for line in block.splitlines():
            key, _, value = line.partition(":")
            fields[key.strip()] = value.strip()
        if fields:
            processors.append(fields)
    return processors


def cpu_model() -> str:
    """The CPU's model name ("AMD EPYC 9B14", "Neoverse-N1"), or the machine type when the system does not say."""
    for fields in _cpuinfo():
        for key in ("model name", "Model Name", "Hardware"):
            if fields.get(key):
                return fields[key]
    return platform.processor() or platform.machine()


def vector_extensions() -> list[str]:
    """The vector instruction-set extensions the CPU reports, of those that decide a kernel's speed."""
    processors = _cpuinfo()
    reported = set((processors[0].get("flags") or processors[0].get("Features") or "").split()) if processors else set()
    return [name for name in (*X86_EXTENSIONS, *ARM_EXTENSIONS) if name in reported]


def kernel_variant() -> str:
    """The kernel variant this process runs: the best the CPU runs, or the one ASCENDSIM_ISA names."""
    return str(_core.ascendsimGetKernelVariant())


def kernel_variants() -> list[str]:
    """The kernel variants this CPU runs, lowest first."""
    return str(_core.ascendsimGetKernelVariants()).split()


def model_kernels(model_id: int) -> dict[str, Any]:
    """The kernels of a loaded model: {"model", "variant", "plans": [{"nodes": [{"name", "op", "path"}]}]}."""
    text, ret = _core.ascendsimGetModelKernels(model_id)
    if ret != 0:
        raise RuntimeError(_core.aclGetRecentErrMsg() or f"model_kernels failed with {ret}")
    return json.loads(text)


def describe() -> str:
    """One line: the CPU, its vector extensions and the kernel variant, e.g. for a benchmark header."""
    variants = kernel_variants()
    forced = "" if kernel_variant() == variants[-1] else f", forced by ASCENDSIM_ISA (best here: {variants[-1]})"
    return (f"{cpu_model()} ({platform.machine()}; {' '.join(vector_extensions()) or 'no vector extensions listed'}); "
            f"kernel variant {kernel_variant()}{forced}")
