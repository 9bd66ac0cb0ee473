"""Fixtures of the runtime tests: an initialized runtime with device 0 set, streams, a C compiler.
The helpers they use are in acl_helpers.py."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

# The runtime writes CANN's plog files for every error (core/log.h): into a directory of this run, for this process
# and every program a test starts, never into the user's ~/ascend/log. Set before the library logs anything.
os.environ["ASCEND_PROCESS_LOG_PATH"] = tempfile.mkdtemp(prefix="ascendsim-test-logs-")
atexit.register(shutil.rmtree, os.environ["ASCEND_PROCESS_LOG_PATH"], ignore_errors=True)

from acl_helpers import Compiler, new_stream
from ascendcl import ACL_ERROR_REPEAT_INITIALIZE, ACL_SUCCESS, aclInit, aclrtResetDevice, aclrtSetDevice


def pytest_addoption(parser: pytest.Parser) -> None:
    # Declared here, at the root, so that pytest knows it whichever test paths it is given.
    parser.addoption("--kernel-target", choices=["host", "aarch64"], default="host",
                     help="the architecture the kernel tests (tests/model/test_kernels_*.py) build their driver for; "
                          "aarch64 cross-compiles it and runs it under qemu-user (see tests/test_aarch64.py)")


@pytest.fixture(scope="session", autouse=True)
def acl_initialized() -> None:
    """aclInit once for the whole session (tests of init/finalize themselves run in subprocesses)."""
    assert aclInit("") in (ACL_SUCCESS, ACL_ERROR_REPEAT_INITIALIZE)


@pytest.fixture
def device() -> Iterator[int]:
    """Device 0 set (and its default context current) for the test; reset afterwards."""
    assert aclrtSetDevice(0) == ACL_SUCCESS
    yield 0
    assert aclrtResetDevice(0) == ACL_SUCCESS


@pytest.fixture
def stream(device: int) -> Iterator[int]:
    """A stream created on device 0's default context, destroyed afterwards."""
    with new_stream() as created:
        yield created


@pytest.fixture
def compiler(tmp_path: Path) -> Compiler:
    return Compiler(tmp_path)
