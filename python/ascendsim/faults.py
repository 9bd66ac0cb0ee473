"""Fault injection: make chosen runtime calls fail with chosen codes, to test a program's error paths.

A rule names a site and which of its calls fail: `inject_fault("aclrtMalloc", nth=3)` makes the third
aclrtMalloc from now fail with ACL_ERROR_RT_MEMORY_ALLOCATION. The same rules can be given to aclInit in the
ASCENDSIM_FAULTS environment variable ("aclrtMalloc:nth=3;stream_task:nth=2"); `inject_faults(spec)` takes
that text. The grammar, the sites and their codes are in docs/fault-injection.md. Each injected failure
leaves an aclGetRecentErrMsg() text that quotes its rule, and leaves the runtime as a real failure would.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from . import _core


def inject_faults(spec: str) -> None:
    """Installs the rules of `spec` (the ASCENDSIM_FAULTS grammar) after those already installed.

    Raises ValueError with the runtime's message if the spec is malformed (nothing is installed then)."""
    if _core.ascendsimInjectFaults(spec) != 0:
        raise ValueError(_core.aclGetRecentErrMsg())


def inject_fault(site: str, *, nth: int = 1, count: int | None = 1, code: int | None = None,
                 bytes: int | str | None = None, device: int | None = None) -> None:
    """Makes calls nth .. nth+count-1 of `site` (counted from now) fail with `code` (default: the site's code).

    Sites: "aclrtMalloc" (207001), "stream_task" (507015, reported by the next synchronize), "stream_sync"
    (507046), "event_sync" (507047), "model_execute" (507011), "memory_cap".

    count=None: every call from the nth on. For site "memory_cap", `bytes` (required; an int or a size such as
    "64M") caps the memory of `device` (default: every device) from the nth device allocation on, until
    clear_faults(). Raises ValueError for a rule the runtime refuses."""
    params = [f"nth={nth}"]
    if count != 1:
        params.append("count=all" if count is None else f"count={count}")
    for key, value in (("code", code), ("bytes", bytes), ("device", device)):
        if value is not None:
            params.append(f"{key}={value}")
    inject_faults(f"{site}:{','.join(params)}")


def clear_faults() -> None:
    """Removes every rule and device memory cap (ASCENDSIM_FAULTS's too)."""
    _core.ascendsimClearFaults()


@contextmanager
def injected_faults(spec: str) -> Iterator[None]:
    """`with injected_faults("aclrtMalloc:nth=2"):` the rules hold inside the block; every rule is cleared after."""
    inject_faults(spec)
    try:
        yield
    finally:
        clear_faults()
