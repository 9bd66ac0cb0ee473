"""White-box checks of the caching allocator (csrc/device): stream-aware reuse, segment sizes, the
out-of-memory retry, a randomized run against a shadow model and concurrent use. The checks live in
tests/c/allocator_check.cpp, built here from the library sources (the classes are not exported)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [ROOT / "csrc" / "core" / "error.cpp", *sorted((ROOT / "csrc" / "device").glob("*.cpp"))]


def build_and_run(tmp_path: Path, *flags: str) -> subprocess.CompletedProcess:
    program = tmp_path / "allocator_check"
    command = ["g++", "-std=c++17", "-O1", "-g", "-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Werror", *flags,
               f"-I{ROOT / 'include'}", f"-I{ROOT / 'csrc'}", str(ROOT / "tests" / "c" / "allocator_check.cpp"),
               *map(str, SOURCES), "-o", str(program), "-lpthread"]
    built = subprocess.run(command, capture_output=True, text=True, check=False)
    assert built.returncode == 0, f"compile failed:\n{' '.join(command)}\n{built.stderr}"
    return subprocess.run([str(program)], capture_output=True, text=True, timeout=300, check=False)


def test_allocator_checks(tmp_path: Path) -> None:
    result = build_and_run(tmp_path)
    assert result.returncode == 0 and result.stdout.strip() == "OK", result.stdout + result.stderr


@pytest.mark.parametrize("sanitizer", ["address,undefined", "thread"])
def test_allocator_checks_under_sanitizer(tmp_path: Path, sanitizer: str) -> None:
    probe = subprocess.run(["g++", f"-fsanitize={sanitizer}", "-x", "c++", "-", "-o", str(tmp_path / "probe")],
                           input="int main() { return 0; }", capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        pytest.skip(f"the compiler cannot build with -fsanitize={sanitizer}")
    result = build_and_run(tmp_path, f"-fsanitize={sanitizer}")
    assert result.returncode == 0 and result.stdout.strip() == "OK", result.stdout + result.stderr
