"""White-box checks of the executor's concurrency parts, built from their sources with the checks in
tests/c/: the intra-op thread pool (coverage, grains, nested and concurrent regions) with 1 and 3 threads
(ASCENDSIM_NUM_THREADS), and the multi-stream runner (events ordering plain memory between streams, a reused
event id, the subscriber loop, the event sync timeout), and the packed weights' huge-page pool (alignment, chunks
released with their last allocation, threads allocating at once) — each also under ThreadSanitizer, which reports
any access the synchronisation fails to order."""

from __future__ import annotations

from pathlib import Path

import pytest

from acl_helpers import ROOT, run_unit_check

CHECKS = {
    "thread_pool_check": [ROOT / "csrc" / "kernels" / "thread_pool.cpp"],
    "weight_pool_check": [ROOT / "csrc" / "kernels" / "page_memory.cpp"],
    "stream_runner_check": [ROOT / "csrc" / "executor" / "stream_runner.cpp",
                            ROOT / "csrc" / "executor" / "sequential_executor.c"],
}


@pytest.mark.parametrize("check", sorted(CHECKS))
@pytest.mark.parametrize(("threads", "sanitizer"), [("1", None), ("3", None), ("3", "thread")])
def test_executor_unit(tmp_path: Path, check: str, threads: str, sanitizer: str | None) -> None:
    flags = [f"-fsanitize={sanitizer}"] if sanitizer else []
    result = run_unit_check(tmp_path, check, CHECKS[check], *flags, env={"ASCENDSIM_NUM_THREADS": threads})
    assert result.returncode == 0 and result.stdout.strip() == "OK", result.stdout + result.stderr
