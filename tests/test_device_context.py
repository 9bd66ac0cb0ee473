"""Devices and contexts: reference-counted default contexts, explicit contexts, the per-thread current
context, and their error paths."""

from __future__ import annotations

import threading

from acl_helpers import in_thread, run_python
from ascendcl import (
    ACL_ERROR_INVALID_PARAM,
    ACL_ERROR_RT_CONTEXT_NULL,
    ACL_ERROR_RT_INVALID_DEVICEID,
    ACL_ERROR_RT_PARAM_INVALID,
    ACL_ERROR_RT_SYSPARAMOPT_NOT_SET,
    ACL_HOST,
    ACL_OPT_DETERMINISTIC,
    ACL_RT_DEVICE_STATUS_NORMAL,
    ACL_RT_OVERFLOW_MODE_INFNAN,
    ACL_RT_OVERFLOW_MODE_SATURATION,
    ACL_SUCCESS,
    aclGetRecentErrMsg,
    aclrtCreateContext,
    aclrtCtxGetSysParamOpt,
    aclrtCtxSetSysParamOpt,
    aclrtDestroyContext,
    aclrtDeviceCanAccessPeer,
    aclrtGetCurrentContext,
    aclrtGetDevice,
    aclrtGetDeviceSatMode,
    aclrtGetDeviceUtilizationRate,
    aclrtGetRunMode,
    aclrtQueryDeviceStatus,
    aclrtResetDevice,
    aclrtResetDeviceForce,
    aclrtSetCurrentContext,
    aclrtSetDevice,
    aclrtSetDeviceSatMode,
    aclrtSetTsDevice,
    aclrtSynchronizeDevice,
)


def test_thread_without_context_gets_context_null() -> None:
    assert in_thread(aclrtGetCurrentContext) == (0, ACL_ERROR_RT_CONTEXT_NULL)
    assert in_thread(aclrtGetDevice) == (0, ACL_ERROR_RT_CONTEXT_NULL)
    assert in_thread(aclrtSynchronizeDevice) == ACL_ERROR_RT_CONTEXT_NULL
    message = in_thread(lambda: (aclrtGetDevice(), aclGetRecentErrMsg())[1])
    assert "no current context" in message


def test_set_device_gives_default_context(device: int) -> None:
    context, ret = aclrtGetCurrentContext()
    assert ret == ACL_SUCCESS and context != 0
    assert aclrtGetDevice() == (device, ACL_SUCCESS)
    assert aclrtGetRunMode() == (ACL_HOST, ACL_SUCCESS)
    # A second SetDevice of the same device shares the default context and needs its own reset.
    assert aclrtSetDevice(device) == ACL_SUCCESS
    assert aclrtGetCurrentContext() == (context, ACL_SUCCESS)
    assert aclrtResetDevice(device) == ACL_SUCCESS
    assert aclrtGetCurrentContext() == (context, ACL_SUCCESS)
    # The default context cannot be destroyed explicitly.
    assert aclrtDestroyContext(context) == ACL_ERROR_RT_PARAM_INVALID
    assert "default context" in aclGetRecentErrMsg()


def test_invalid_device_ids() -> None:
    for bad in (-1, 8, 1000):
        assert aclrtSetDevice(bad) == ACL_ERROR_RT_INVALID_DEVICEID
        message = aclGetRecentErrMsg()
        assert str(bad) in message and "ASCENDSIM_DEVICE_COUNT" in message  # what to change
        assert aclrtCreateContext(bad) == (0, ACL_ERROR_RT_INVALID_DEVICEID)
        assert aclrtResetDevice(bad) == ACL_ERROR_RT_INVALID_DEVICEID
    assert aclrtResetDevice(7) == ACL_ERROR_RT_PARAM_INVALID  # never set
    assert "not set" in aclGetRecentErrMsg()


def test_reset_releases_default_context_and_force() -> None:
    assert aclrtSetDevice(1) == ACL_SUCCESS
    assert aclrtSetDevice(1) == ACL_SUCCESS
    context, _ = aclrtGetCurrentContext()
    assert aclrtResetDeviceForce(1) == ACL_SUCCESS          # drops both references
    assert aclrtGetCurrentContext() == (0, ACL_ERROR_RT_CONTEXT_NULL)
    assert aclrtSetCurrentContext(context) == ACL_ERROR_RT_PARAM_INVALID
    assert aclrtResetDevice(1) == ACL_ERROR_RT_PARAM_INVALID


def test_explicit_contexts(device: int) -> None:
    default_context, _ = aclrtGetCurrentContext()
    context, ret = aclrtCreateContext(2)
    assert ret == ACL_SUCCESS and context not in (0, default_context)
    assert aclrtGetCurrentContext() == (context, ACL_SUCCESS)   # the new context becomes current
    assert aclrtGetDevice() == (2, ACL_SUCCESS)
    # Current context is per thread: another thread can adopt it.
    def adopt():
        assert aclrtSetCurrentContext(context) == ACL_SUCCESS
        return aclrtGetDevice()
    assert in_thread(adopt) == (2, ACL_SUCCESS)
    assert aclrtSetCurrentContext(default_context) == ACL_SUCCESS
    assert aclrtGetDevice() == (device, ACL_SUCCESS)
    assert aclrtDestroyContext(context) == ACL_SUCCESS
    # Use after destroy, double destroy, NULL, garbage.
    assert aclrtDestroyContext(context) == ACL_ERROR_RT_PARAM_INVALID
    assert hex(context)[2:] in aclGetRecentErrMsg()
    assert aclrtSetCurrentContext(context) == ACL_ERROR_RT_PARAM_INVALID
    assert aclrtDestroyContext(0) == ACL_ERROR_INVALID_PARAM
    assert aclrtSetCurrentContext(0x1234) == ACL_ERROR_RT_PARAM_INVALID


def test_destroyed_current_context_leaves_thread_without_context() -> None:
    def body():
        context, ret = aclrtCreateContext(3)
        assert ret == ACL_SUCCESS
        assert aclrtDestroyContext(context) == ACL_SUCCESS
        return aclrtGetCurrentContext()
    assert in_thread(body) == (0, ACL_ERROR_RT_CONTEXT_NULL)


def test_reset_device_releases_explicit_contexts() -> None:
    def body():
        assert aclrtSetDevice(4) == ACL_SUCCESS
        context, _ = aclrtCreateContext(4)
        assert aclrtResetDevice(4) == ACL_SUCCESS
        return aclrtSetCurrentContext(context)
    assert in_thread(body) == ACL_ERROR_RT_PARAM_INVALID


def test_sys_params(device: int) -> None:
    assert aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC) == (0, ACL_ERROR_RT_SYSPARAMOPT_NOT_SET)
    assert aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1) == ACL_SUCCESS
    assert aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC) == (1, ACL_SUCCESS)
    assert aclrtCtxSetSysParamOpt(7, 1) == ACL_ERROR_INVALID_PARAM
    assert "opt 7" in aclGetRecentErrMsg()


def test_device_queries(device: int) -> None:
    assert aclrtQueryDeviceStatus(device) == (ACL_RT_DEVICE_STATUS_NORMAL, ACL_SUCCESS)
    info, ret = aclrtGetDeviceUtilizationRate(device)
    assert ret == ACL_SUCCESS and set(info) == {"cubeUtilization", "vectorUtilization", "aicpuUtilization",
                                                "memoryUtilization"}
    assert aclrtDeviceCanAccessPeer(0, 1) == (1, ACL_SUCCESS)
    assert aclrtDeviceCanAccessPeer(0, 0)[1] == ACL_ERROR_RT_PARAM_INVALID
    assert aclrtDeviceCanAccessPeer(0, 9)[1] == ACL_ERROR_RT_INVALID_DEVICEID
    assert aclrtSetTsDevice(0) == ACL_SUCCESS and aclrtSetTsDevice(5) == ACL_ERROR_INVALID_PARAM
    assert aclrtGetDeviceSatMode() == (ACL_RT_OVERFLOW_MODE_SATURATION, ACL_SUCCESS)
    assert aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_INFNAN) == ACL_SUCCESS
    assert aclrtGetDeviceSatMode() == (ACL_RT_OVERFLOW_MODE_INFNAN, ACL_SUCCESS)
    assert aclrtSetDeviceSatMode(9) == ACL_ERROR_INVALID_PARAM
    assert aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION) == ACL_SUCCESS


def test_many_threads_with_their_own_contexts() -> None:
    errors: list[str] = []

    def worker(index: int) -> None:
        device_id = index % 4
        context, _ret = aclrtCreateContext(device_id)
        for _ in range(50):
            if aclrtGetDevice() != (device_id, ACL_SUCCESS) or aclrtGetCurrentContext() != (context, ACL_SUCCESS):
                errors.append(f"thread {index} lost its context")
                break
        if aclrtDestroyContext(context) != ACL_SUCCESS:
            errors.append(aclGetRecentErrMsg())

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_get_context_ignores_extra_arguments_like_pyacl() -> None:
    result = run_python("""
import acl
assert acl.rt.set_device(0) == 0
context, ret = acl.rt.get_context(0)       # public code passes a device id; pyACL ignores it
assert ret == 0 and context
""")
    assert result.returncode == 0, result.stderr


def test_last_reset_frees_the_device_memory() -> None:
    import ascendsim
    from ascendcl import aclrtFree, aclrtMalloc

    def body():
        assert aclrtSetDevice(5) == ACL_SUCCESS
        before = ascendsim.memory_stats(5)["allocated_bytes"]
        pointer, ret = aclrtMalloc(4096, 0)
        assert ret == ACL_SUCCESS
        assert aclrtResetDevice(5) == ACL_SUCCESS
        after = ascendsim.memory_stats(5)["allocated_bytes"]
        return before, after, aclrtFree(pointer)

    before, after, free_ret = in_thread(body)
    assert after == before
    assert free_ret == ACL_ERROR_RT_PARAM_INVALID      # the pointer died with the reset
