"""White-box checks of the caching allocator (csrc/device): stream-aware reuse, segment sizes, the
out-of-memory retry, a randomized run against a shadow model and concurrent use. The checks live in
tests/c/allocator_check.cpp, built here from the library sources (the classes are not exported)."""

from __future__ import annotations

from pathlib import Path

import pytest

from acl_helpers import ROOT, run_unit_check

# The device memory reports errors (each one a log line), feeds the leak report's live objects and the profiler's
# memory counter, and asks the fault injection registry for a memory cap (both off in these checks).
SOURCES = [ROOT / "csrc" / "core" / "error.cpp", ROOT / "csrc" / "core" / "log.cpp",
           ROOT / "csrc" / "core" / "log_file.cpp", ROOT / "csrc" / "core" / "live_objects.cpp",
           ROOT / "csrc" / "core" / "fault_injection.cpp", ROOT / "csrc" / "core" / "byte_size.cpp",
           ROOT / "csrc" / "prof" / "profiler.cpp", *sorted((ROOT / "csrc" / "device").glob("*.cpp"))]


@pytest.mark.parametrize("sanitizer", [None, "address,undefined", "thread"])
def test_allocator_checks(tmp_path: Path, sanitizer: str | None) -> None:
    flags = [f"-fsanitize={sanitizer}"] if sanitizer else []
    result = run_unit_check(tmp_path, "allocator_check", SOURCES, *flags)
    assert result.returncode == 0 and result.stdout.strip() == "OK", result.stdout + result.stderr
