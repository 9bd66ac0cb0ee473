"""The log where CANN users look (core/log.h): every error is a line of a plog file under
$ASCEND_PROCESS_LOG_PATH/debug/plog/, in CANN's line format, created only when a line is written; the level comes
from ASCEND_GLOBAL_LOG_LEVEL and ASCEND_LOG_PRINT_TO_STDOUT=1 (or ASCEND_SLOG_PRINT_TO_STDOUT=1) prints the lines
instead. Also the C program of what official samples do that the real stack allows (tests/c/sample_fidelity.c),
whose deliberate errors the plog then holds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from model.exec_helpers import add_relu_add, compile_model

from acl_helpers import TESTS, Compiler, run_python

PLOG_NAME = re.compile(r"plog-(\d+)_(\d{17})\.log")
# [LEVEL] MODULE(pid,program):yyyy-mm-dd-hh:mm:ss.mmm.uuu [file:line]tid message
LINE = re.compile(
    r"\[(DEBUG|INFO|WARNING|ERROR)\] ([A-Z]+)\((\d+),([^)]+)\):"
    r"\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3} \[([\w.]+):(\d+)\](\d+) (.*)"
)

FAILING = """
    import numpy as np
    import ascendcl as C
    C.aclInit(""); C.aclrtSetDevice(0)
    assert C.aclrtMalloc(0, 0)[1] == 100000                      # an ACL-layer check
    assert C.aclrtMemset(np.zeros(8, np.uint8).ctypes.data, 8, 0, 8) == 107000  # a runtime one
    assert C.aclmdlUnload(12345) == 145003                       # GE's
    pointer, _ = C.aclrtMalloc(64, 0)
    host = np.zeros(64, np.uint8)
    assert C.aclrtMemcpy(pointer, 64, host.ctypes.data, 64, 2) == 0  # a kind the pointers correct: info
"""


def plog_files(root: Path) -> list[Path]:
    directory = root / "debug" / "plog"
    return sorted(directory.iterdir()) if directory.exists() else []


def lines_of(path: Path) -> list[re.Match[str]]:
    text = path.read_text()
    matches = [LINE.fullmatch(line) for line in text.splitlines()]
    assert all(matches), text
    return [m for m in matches if m is not None]


def run_failing(logs: Path, **env: str) -> str:
    """Runs FAILING with its logs under `logs` and `env`; returns its stdout."""
    result = run_python(FAILING, env={"ASCEND_PROCESS_LOG_PATH": str(logs), **env})
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_errors_are_lines_of_a_plog_file_in_canns_format(tmp_path: Path) -> None:
    assert run_failing(tmp_path) == ""  # the default: to the file only
    (path,) = plog_files(tmp_path)
    name = PLOG_NAME.fullmatch(path.name)
    assert name is not None, path.name
    lines = lines_of(path)
    assert [(m[1], m[2]) for m in lines] == [("ERROR", "ASCENDCL"), ("ERROR", "RUNTIME"), ("ERROR", "GE")]
    assert all(m[3] == name[1] and m[4].startswith("python") for m in lines)  # the process's pid and name
    assert lines[0][5] == "acl_memory.cpp" and lines[0][8] == "EE100000: aclrtMalloc: size is 0 (must be positive)"
    assert lines[2][8].startswith("EE145003: aclmdlUnload: model id 12345")


def test_levels_and_printing_to_stdout(tmp_path: Path) -> None:
    stdout = run_failing(tmp_path, ASCEND_GLOBAL_LOG_LEVEL="1", ASCEND_LOG_PRINT_TO_STDOUT="1")
    printed = [LINE.fullmatch(line) for line in stdout.splitlines()]
    assert all(printed) and plog_files(tmp_path) == [], stdout  # printed instead of written
    assert [m[1] for m in printed if m is not None] == ["ERROR", "ERROR", "ERROR", "INFO"]
    assert "kind ACL_MEMCPY_DEVICE_TO_HOST does not match the pointers" in stdout
    assert "copying as ACL_MEMCPY_HOST_TO_DEVICE" in stdout
    # the older switch, and level 4: nothing at all
    assert run_failing(tmp_path, ASCEND_GLOBAL_LOG_LEVEL="4", ASCEND_SLOG_PRINT_TO_STDOUT="1") == ""
    assert plog_files(tmp_path) == []


def test_a_run_that_logs_nothing_leaves_no_file(tmp_path: Path) -> None:
    result = run_python(
        """
        import ascendcl as C
        assert C.aclInit("") == 0 and C.aclrtSetDevice(0) == 0
        pointer, ret = C.aclrtMalloc(64, 0)
        assert ret == 0 and C.aclrtFree(pointer) == 0
    """,
        env={"ASCEND_PROCESS_LOG_PATH": str(tmp_path), "ASCEND_GLOBAL_LOG_LEVEL": "2"},
    )
    assert result.returncode == 0, result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.fixture(scope="module")
def wide_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_model(add_relu_add(width=64), tmp_path_factory.mktemp("wide"), "wide")


def test_c_sample_fidelity_flow(compiler: Compiler, wide_model: Path, tmp_path: Path) -> None:
    program = compiler.build(TESTS / "c" / "sample_fidelity.c")
    logs = tmp_path / "logs"
    result = compiler.run(
        program, str(wide_model), env={"ASCEND_PROCESS_LOG_PATH": str(logs), "ASCEND_GLOBAL_LOG_LEVEL": "2"}
    )
    assert result.returncode == 0 and result.stdout == "ok\n", result.stdout + result.stderr
    (path,) = plog_files(logs)
    lines = lines_of(path)
    assert all(m[4] == "sample_fidelity" for m in lines)
    messages = [(m[1], m[2], m[8]) for m in lines]
    assert any(level == "ERROR" and "host memory the ACL did not allocate" in text for level, _, text in messages)
    e13025 = [(module, text) for level, module, text in messages if text.startswith("E13025")]
    assert len(e13025) == 1 and e13025[0][0] == "GE" and "191 bytes" in e13025[0][1], messages
    larger = [text for level, _, text in messages if level == "WARNING" and "more than the 256" in text]
    assert len(larger) == 1 and "the buffer has 320 bytes" in larger[0], messages
