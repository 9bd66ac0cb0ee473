"""acl.rt: devices, contexts, streams, events, callbacks and memory, with pyACL's names."""

from __future__ import annotations

from ascendsim import _core

# devices
set_device = _core.aclrtSetDevice
reset_device = _core.aclrtResetDevice
reset_device_force = _core.aclrtResetDeviceForce
get_device = _core.aclrtGetDevice
get_device_count = _core.aclrtGetDeviceCount
get_run_mode = _core.aclrtGetRunMode
synchronize_device = _core.aclrtSynchronizeDevice
set_ts_device = _core.aclrtSetTsDevice
query_device_status = _core.aclrtQueryDeviceStatus
device_can_access_peer = _core.aclrtDeviceCanAccessPeer
device_enable_peer_access = _core.aclrtDeviceEnablePeerAccess
device_disable_peer_access = _core.aclrtDeviceDisablePeerAccess
set_op_wait_timeout = _core.aclrtSetOpWaitTimeout
set_op_execute_time_out = _core.aclrtSetOpExecuteTimeOut
set_device_sat_mode = _core.aclrtSetDeviceSatMode
get_device_sat_mode = _core.aclrtGetDeviceSatMode

# contexts
create_context = _core.aclrtCreateContext
destroy_context = _core.aclrtDestroyContext
set_context = _core.aclrtSetCurrentContext
get_context = _core.aclrtGetCurrentContext
ctx_get_sys_param_opt = _core.aclrtCtxGetSysParamOpt
ctx_set_sys_param_opt = _core.aclrtCtxSetSysParamOpt

# streams
create_stream = _core.aclrtCreateStream
create_stream_with_config = _core.aclrtCreateStreamWithConfig
destroy_stream = _core.aclrtDestroyStream
destroy_stream_force = _core.aclrtDestroyStreamForce
synchronize_stream = _core.aclrtSynchronizeStream
synchronize_stream_with_timeout = _core.aclrtSynchronizeStreamWithTimeout
stream_query = _core.aclrtStreamQuery
stream_wait_event = _core.aclrtStreamWaitEvent
set_stream_failure_mode = _core.aclrtSetStreamFailureMode
set_stream_overflow_switch = _core.aclrtSetStreamOverflowSwitch
get_stream_overflow_switch = _core.aclrtGetStreamOverflowSwitch

# events
create_event = _core.aclrtCreateEvent
create_event_with_flag = _core.aclrtCreateEventWithFlag
create_event_ex_with_flag = _core.aclrtCreateEventExWithFlag
destroy_event = _core.aclrtDestroyEvent
record_event = _core.aclrtRecordEvent
reset_event = _core.aclrtResetEvent
query_event = _core.aclrtQueryEvent
query_event_status = _core.aclrtQueryEventStatus
query_event_wait_status = _core.aclrtQueryEventWaitStatus
synchronize_event = _core.aclrtSynchronizeEvent
synchronize_event_with_timeout = _core.aclrtSynchronizeEventWithTimeout
event_elapsed_time = _core.aclrtEventElapsedTime

# callbacks
subscribe_report = _core.aclrtSubscribeReport
unsubscribe_report = _core.aclrtUnSubscribeReport
process_report = _core.aclrtProcessReport
launch_callback = _core.aclrtLaunchCallback
set_exception_info_callback = _core.aclrtSetExceptionInfoCallback
get_task_id_from_exception_info = _core.aclrtGetTaskIdFromExceptionInfo
get_stream_id_from_exception_info = _core.aclrtGetStreamIdFromExceptionInfo
get_thread_id_from_exception_info = _core.aclrtGetThreadIdFromExceptionInfo
get_device_id_from_exception_info = _core.aclrtGetDeviceIdFromExceptionInfo
get_error_code_from_exception_info = _core.aclrtGetErrorCodeFromExceptionInfo

# memory
malloc = _core.aclrtMalloc
malloc_align32 = _core.aclrtMallocAlign32
malloc_cached = _core.aclrtMallocCached
mem_flush = _core.aclrtMemFlush
mem_invalidate = _core.aclrtMemInvalidate
free = _core.aclrtFree
malloc_host = _core.aclrtMallocHost
free_host = _core.aclrtFreeHost
memcpy = _core.aclrtMemcpy
memcpy_async = _core.aclrtMemcpyAsync
memcpy2d = _core.aclrtMemcpy2d
memcpy2d_async = _core.aclrtMemcpy2dAsync
memset = _core.aclrtMemset
memset_async = _core.aclrtMemsetAsync
get_mem_info = _core.aclrtGetMemInfo


def get_device_utilization_rate(device_id: int, /, *, _get=_core.aclrtGetDeviceUtilizationRate) -> tuple[dict, int]:
    """(utilization dict, ret) with pyACL's snake_case keys (the C face keeps the C field names)."""
    info, ret = _get(device_id)
    return {
        "cube_utilization": info["cubeUtilization"],
        "vector_utilization": info["vectorUtilization"],
        "aicpu_utilization": info["aicpuUtilization"],
        "memory_utilization": info["memoryUtilization"],
        "utilization_extend": 0,
    }, ret
