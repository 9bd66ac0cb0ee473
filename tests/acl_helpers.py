"""Helpers shared by the runtime tests: subprocess runners for tests that need a fresh process
(init/finalize, environment variables), threads, streams, and a C/C++ compiler against the installed
headers and library. (Fixtures live in conftest.py; this module is imported by name, which a conftest
module must not be, since every test directory may have one.)"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import ascendsim
from ascendcl import ACL_SUCCESS, aclrtCreateStream, aclrtDestroyStream

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

@contextmanager
def new_stream() -> Iterator[int]:
    stream, ret = aclrtCreateStream()
    assert ret == ACL_SUCCESS and stream != 0
    try:
        yield stream
    finally:
        aclrtDestroyStream(stream)  # may already be destroyed by the test

WAIT = 30.0  # seconds: an upper bound on host-side waits, so that a broken runtime fails instead of hanging


def in_thread(function: Callable[[], object]) -> object:
    """Runs `function` on a fresh thread (which starts with no current context) and returns its result."""
    results: list[object] = []
    thread = threading.Thread(target=lambda: results.append(function()))
    thread.start()
    thread.join(WAIT)
    assert results, "the thread failed"
    return results[0]


def run_python(code: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter (so the runtime starts from nothing); returns the result."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=full_env, timeout=timeout, check=False)


def toolkit_env() -> dict[str, str]:
    """The environment `eval "$(ascendsim env)"` gives."""
    from ascendsim.__main__ import environment, search_paths

    env = {**os.environ, **environment()}
    for name, value in search_paths().items():
        env[name] = value + (":" + os.environ[name] if os.environ.get(name) else "")
    return env


def require_sanitizer(tmp_path: Path, flag: str) -> None:
    """Skips the calling test when g++ cannot build with `flag` (e.g. "-fsanitize=thread")."""
    probe = subprocess.run(["g++", flag, "-x", "c++", "-", "-o", str(tmp_path / "probe")],
                           input="int main() { return 0; }", capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        import pytest

        pytest.skip(f"the compiler cannot build with {flag}")


def run_unit_check(tmp_path: Path, check: str, sources: list[Path], *flags: str,
                   env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Builds the white-box check tests/c/<check>.cpp with library `sources` (internal classes, not exported)
    and `flags` (warnings are errors) and runs it. Skips when the compiler cannot build with a -fsanitize flag."""
    for flag in flags:
        if flag.startswith("-fsanitize="):
            require_sanitizer(tmp_path, flag)
    program = tmp_path / check
    command = ["g++", "-std=c++17", "-O1", "-g", "-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Werror", *flags,
               f"-I{ROOT / 'include'}", f"-I{ROOT / 'csrc'}", str(ROOT / "tests" / "c" / f"{check}.cpp"),
               *map(str, sources), "-o", str(program), "-lpthread"]
    built = subprocess.run(command, capture_output=True, text=True, check=False)
    assert built.returncode == 0, f"compile failed:\n{' '.join(command)}\n{built.stderr}"
    return subprocess.run([str(program)], capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, **(env or {})})


class Compiler:
    """Builds C and C++ programs against the installed AscendCL headers and libascendcl.so."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir

    def build(self, source: Path | str, name: str | None = None, cxx: bool | None = None,
              extra: list[str] | None = None) -> Path:
        if isinstance(source, Path):
            path = source
        else:  # inline source text
            path = self.workdir / f"{name or 'program'}{'.cpp' if cxx else '.c'}"
            path.write_text(textwrap.dedent(source))
        is_cxx = path.suffix in (".cpp", ".cc") if cxx is None else cxx
        output = self.workdir / (name or path.stem)
        compiler = ["g++", "-std=c++17"] if is_cxx else ["gcc", "-std=c11"]
        command = [*compiler, "-Wall", "-Wextra", "-Werror", str(path), "-o", str(output),
                   f"-I{ascendsim.get_include()}", f"-L{ascendsim.get_library_dir()}", "-lascendcl", "-lpthread",
                   *(extra or [])]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        assert result.returncode == 0, f"compile failed:\n{' '.join(command)}\n{result.stderr}"
        return output

    def run(self, program: Path, *args: str, env: dict[str, str] | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess:
        return subprocess.run([str(program), *args], capture_output=True, text=True, timeout=timeout,
                              env={**toolkit_env(), **(env or {})}, check=False)
