"""aclInit / aclFinalize, configuration files, versions and the recent-error message. Each case runs in a
fresh interpreter so that the process-wide runtime starts uninitialized."""

from __future__ import annotations

from pathlib import Path

import pytest

from acl_helpers import run_python


def run_checks(body: str) -> None:
    result = run_python("from ascendcl import *\nimport acl\n" + body)
    assert result.returncode == 0, result.stderr + result.stdout


def test_init_finalize_and_repeats(tmp_path: Path) -> None:
    run_checks("""
assert aclFinalize() == ACL_ERROR_REPEAT_FINALIZE          # never initialized
assert aclInit("") == ACL_SUCCESS
assert aclInit("") == ACL_ERROR_REPEAT_INITIALIZE
assert "already initialized" in aclGetRecentErrMsg()
assert aclFinalize() == ACL_SUCCESS
assert aclFinalize() == ACL_ERROR_REPEAT_FINALIZE
assert aclInit("") == ACL_SUCCESS                           # initialize again after finalize
assert aclFinalize() == ACL_SUCCESS
""")


def test_init_config_files(tmp_path: Path) -> None:
    good = tmp_path / "acl.json"
    good.write_text('{"dump": {"dump_list": []}, "err_msg_mode": "1", "profiler": {"switch": "off"}}')
    empty = tmp_path / "empty.json"
    empty.write_text("")
    bad = tmp_path / "bad.json"
    bad.write_text('{"dump": [1, 2,]}')
    not_object = tmp_path / "list.json"
    not_object.write_text("[1, 2]")
    run_checks(f"""
assert aclInit({str(tmp_path / 'missing.json')!r}) == ACL_ERROR_INVALID_FILE
assert "cannot open" in aclGetRecentErrMsg()
assert aclInit({str(bad)!r}) == ACL_ERROR_PARSE_FILE
message = aclGetRecentErrMsg()
assert "not valid JSON" in message and "bad.json" in message, message
assert aclInit({str(not_object)!r}) == ACL_ERROR_PARSE_FILE
assert aclInit({str(empty)!r}) == ACL_SUCCESS and aclFinalize() == ACL_SUCCESS
assert aclInit({str(good)!r}) == ACL_SUCCESS and aclFinalize() == ACL_SUCCESS
""")


def test_pyacl_init_forms() -> None:
    run_checks("""
try:
    acl.init(None)
except TypeError:
    pass
else:
    raise AssertionError("acl.init(None) must raise TypeError")
assert acl.init() == 0
assert acl.init("") == ACL_ERROR_REPEAT_INITIALIZE
assert acl.finalize() == 0
""")


def test_runtime_works_before_init_and_finalize_releases_devices() -> None:
    # The real runtime has no init check in aclrt*: acllite calls get_run_mode at import time.
    run_checks("""
assert acl.rt.get_run_mode() == (ACL_HOST, ACL_SUCCESS)
assert aclrtSetDevice(0) == ACL_SUCCESS
ctx, ret = aclrtGetCurrentContext()
assert ret == ACL_SUCCESS and ctx
assert aclInit("") == ACL_SUCCESS
assert aclFinalize() == ACL_SUCCESS
ctx, ret = aclrtGetCurrentContext()
assert ret == ACL_ERROR_RT_CONTEXT_NULL, ret                # finalize released the device's contexts
assert aclrtResetDevice(0) == ACL_ERROR_RT_PARAM_INVALID    # and its reference count
""")


def test_version() -> None:
    run_checks("""
assert aclrtGetVersion() == (ACL_MAJOR_VERSION, ACL_MINOR_VERSION, ACL_PATCH_VERSION, ACL_SUCCESS)
assert acl.get_version() == (ACL_MAJOR_VERSION, ACL_MINOR_VERSION, ACL_PATCH_VERSION, ACL_SUCCESS)
assert (ACL_MAJOR_VERSION, ACL_MINOR_VERSION) == (1, 10)
""")


def test_recent_error_message_is_per_thread_and_cleared_on_read() -> None:
    run_checks("""
import threading
assert aclGetRecentErrMsg() == ""          # never NULL
assert acl.get_recent_err_msg() is None    # pyACL gives None when there is nothing
assert aclrtSetDevice(99) == ACL_ERROR_RT_INVALID_DEVICEID
seen = []
thread = threading.Thread(target=lambda: seen.append(aclGetRecentErrMsg()))
thread.start(); thread.join()
assert seen == [""]                        # another thread does not see this thread's error
message = acl.get_recent_err_msg()
assert "aclrtSetDevice" in message and "99" in message, message
assert acl.get_recent_err_msg() is None    # cleared by reading
""")


@pytest.mark.parametrize("count", ["1", "3"])
def test_device_count_and_soc_from_environment(count: str) -> None:
    result = run_python("""
from ascendcl import *
print(aclrtGetDeviceCount()[0], aclrtGetSocName())
assert aclrtSetDevice(int(__import__('os').environ['ASCENDSIM_DEVICE_COUNT'])) == ACL_ERROR_RT_INVALID_DEVICEID
""", env={"ASCENDSIM_DEVICE_COUNT": count, "ASCENDSIM_SOC_NAME": "Ascend310P3"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [count, "Ascend310P3"]


def test_defaults() -> None:
    result = run_python("""
from ascendcl import *
import acl
assert aclrtGetDeviceCount() == (8, 0)
assert acl.get_soc_name() == aclrtGetSocName() == "Ascend910B1"
aclrtSetDevice(0)
free, total, ret = aclrtGetMemInfo(ACL_HBM_MEM)
assert ret == 0 and total == 32 << 30 and free <= total, (free, total, ret)
""", env={"ASCENDSIM_DEVICE_COUNT": "", "ASCENDSIM_SOC_NAME": "", "ASCENDSIM_DEVICE_MEMORY": ""})
    assert result.returncode == 0, result.stderr
