"""ascendsim: a CPU emulator of Huawei's CANN stack (AscendCL runtime, pyACL, GE compiler and atc).

The AscendCL runtime is one shared library, `libascendcl.so`, inside a CANN-like toolkit tree shipped
in this package; `ascendsim env` prints the environment that official samples' build files read.
"""

from __future__ import annotations

from pathlib import Path

from . import _core
from .cpu import kernel_variant, kernel_variants, model_kernels
from .faults import clear_faults, inject_fault, inject_faults, injected_faults
from .leaks import format_leak_report, leak_report
from .memory_snapshot import format_memory_snapshot, memory_snapshot, save_memory_snapshot
from .profiling import load_trace, profile_summary

__all__ = [
    "ascendc", "clear_faults", "compile", "empty_cache", "format_leak_report", "format_memory_snapshot", "get_include",
    "get_library_dir", "inject_fault", "inject_faults", "injected_faults", "kernel_variant", "kernel_variants",
    "leak_report", "load_trace", "memory_snapshot", "memory_stats", "model_kernels", "model_memory", "op_cache_stats",
    "profile_summary", "reset_peak_memory_stats", "save_memory_snapshot", "toolkit_root",
]


def __getattr__(name: str) -> object:
    # `ascendsim.compile` loads the compiler (and onnx) on first use, so that `import acl` stays light.
    if name == "compile":
        from .compiler.build import compile as compile_model

        return compile_model
    if name == "ascendc":  # Ascend C kernels (docs/ascendc.md), loaded on first use like the compiler
        import importlib

        return importlib.import_module(".ascendc", __name__)
    raise AttributeError(f"module 'ascendsim' has no attribute {name!r}")


def toolkit_root() -> Path:
    """The CANN-like tree: include/, lib64/, runtime/include/, runtime/lib64/stub/, compiler/include/,
    compiler/lib64/(stub/)."""
    return Path(_core.__file__).resolve().parent / "cann"


def get_include() -> str:
    """The directory to add to the include path so that `#include "acl/acl.h"` works."""
    return str(toolkit_root() / "include")


def get_library_dir() -> str:
    """The directory holding libascendcl.so (link with -lascendcl)."""
    return str(toolkit_root() / "lib64")


def memory_stats(device_id: int) -> dict[str, int]:
    """Device memory statistics of the caching allocator (allocated, reserved, peaks, counts, ...)."""
    stats, ret = _core.ascendsimGetMemoryStats(device_id)
    if ret != 0:
        raise RuntimeError(_core.aclGetRecentErrMsg() or f"memory_stats failed with {ret}")
    return stats


def model_memory(model_id: int) -> dict[str, int]:
    """Feature-map memory of a loaded model: {"runtime": 1 or 2, "planned_bytes" (v1: the static arena),
    "last_peak_bytes", "max_peak_bytes" (v2: the most feature-map bytes live at once in the latest execution and
    since load, each rounded to 512 bytes as the static planner counts them), "executions"}."""
    memory, ret = _core.ascendsimGetModelMemory(model_id)
    if ret != 0:
        raise RuntimeError(_core.aclGetRecentErrMsg() or f"model_memory failed with {ret}")
    return memory


def reset_peak_memory_stats(device_id: int) -> None:
    """Start the peak figures of memory_stats() again from the current values."""
    if _core.ascendsimResetPeakMemoryStats(device_id) != 0:
        raise RuntimeError(_core.aclGetRecentErrMsg())


def op_cache_stats() -> dict[str, int]:
    """The single-operator cache: kernel lookups that hit or missed (built a kernel), the kernels cached, and
    the operator signatures registered by single-op models and aclopCompile*."""
    stats, ret = _core.ascendsimGetOpCacheStats()
    if ret != 0:
        raise RuntimeError(_core.aclGetRecentErrMsg())
    return stats


def empty_cache(device_id: int) -> None:
    """Return the device's unused cached memory segments (like torch.cuda.empty_cache)."""
    if _core.ascendsimEmptyCache(device_id) != 0:
        raise RuntimeError(_core.aclGetRecentErrMsg())
