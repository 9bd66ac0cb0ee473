"""The intra-op thread pool (csrc/kernels/thread_pool.cpp), built from the sources with tests/c/
thread_pool_check.cpp: coverage, grains, nested and concurrent regions, with 1 and 3 threads
(ASCENDSIM_NUM_THREADS) and under ThreadSanitizer."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def build(tmp_path: Path, *flags: str) -> Path:
    program = tmp_path / "thread_pool_check"
    command = ["g++", "-std=c++17", "-O1", "-g", "-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Werror", *flags,
               f"-I{ROOT / 'include'}", f"-I{ROOT / 'csrc'}", str(ROOT / "tests" / "c" / "thread_pool_check.cpp"),
               str(ROOT / "csrc" / "kernels" / "thread_pool.cpp"), "-o", str(program), "-lpthread"]
    built = subprocess.run(command, capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stderr
    return program


@pytest.mark.parametrize("threads", ["1", "3"])
def test_thread_pool(tmp_path: Path, threads: str) -> None:
    result = subprocess.run([str(build(tmp_path))], capture_output=True, text=True, timeout=120, check=False,
                            env={**os.environ, "ASCENDSIM_NUM_THREADS": threads})
    assert result.returncode == 0 and result.stdout.strip() == "OK", result.stdout + result.stderr


def test_thread_pool_under_tsan(tmp_path: Path) -> None:
    probe = subprocess.run(["g++", "-fsanitize=thread", "-x", "c++", "-", "-o", str(tmp_path / "probe")],
                           input="int main() { return 0; }", capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        pytest.skip("the compiler cannot build with -fsanitize=thread")
    result = subprocess.run([str(build(tmp_path, "-fsanitize=thread"))], capture_output=True, text=True, timeout=300,
                            check=False, env={**os.environ, "ASCENDSIM_NUM_THREADS": "3"})
    assert result.returncode == 0 and result.stdout.strip() == "OK", result.stdout + result.stderr
