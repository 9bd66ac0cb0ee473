"""acl.prof: profiling, with pyACL's names, argument order and return shapes (python/pyACL/prof in CANN).

`init(path)` -> ret, `create_config(device_list: list, aicore_metrics, aicore_events, data_type_config)` ->
config (0 on failure), `start(config)` / `stop(config)` / `destroy_config(config)` / `finalize()` -> ret.
`finalize()` writes the trace and summary (docs/profiling.md). msproftx: `create_stamp()` -> stamp,
`set_stamp_trace_message(stamp, msg, len)`, `mark(stamp)`, `push(stamp)`, `pop()`, `range_stop(id)` -> ret,
`range_start(stamp)` -> (id, ret), `destroy_stamp(stamp)` -> None. The subscription and step functions return
ACL_ERROR_API_NOT_SUPPORT (200001) with a message, in pyACL's shapes, as their C twins do.
"""

from __future__ import annotations

from ascendsim import _core


def init(profiler_result_path: str, /) -> int:
    """aclprofInit(path, length): pyACL passes the string's byte length itself."""
    if not isinstance(profiler_result_path, str):
        raise TypeError(f"init() argument 1 must be str, not {type(profiler_result_path).__name__}")
    return _core.aclprofInit(profiler_result_path, len(profiler_result_path.encode()))


create_config = _core.aclprofCreateConfig
destroy_config = _core.aclprofDestroyConfig
start = _core.aclprofStart
stop = _core.aclprofStop
finalize = _core.aclprofFinalize

# model subscription (not supported: each returns 200001 with a message)
model_subscribe = _core.aclprofModelSubscribe
model_un_subscribe = _core.aclprofModelUnSubscribe  # pyACL keeps this misspelt name for old code
model_unsubscribe = _core.aclprofModelUnSubscribe
create_subscribe_config = _core.aclprofCreateSubscribeConfig
destroy_subscribe_config = _core.aclprofDestroySubscribeConfig
get_op_desc_size = _core.aclprofGetOpDescSize
get_op_num = _core.aclprofGetOpNum
get_op_type_len = _core.aclprofGetOpTypeLen
get_op_name_len = _core.aclprofGetOpNameLen
get_op_start = _core.aclprofGetOpStart
get_op_end = _core.aclprofGetOpEnd
get_op_duration = _core.aclprofGetOpDuration
get_model_id = _core.aclprofGetModelId


def get_op_type(op_info: int, op_info_len: int, index: int, op_type_len: int, /) -> tuple[str, int]:
    _, ret = _core.aclprofGetOpType(op_info, op_info_len, index, op_type_len)
    return "", ret


def get_op_name(op_info: int, op_info_len: int, index: int, op_name_len: int, /) -> tuple[str, int]:
    _, ret = _core.aclprofGetOpName(op_info, op_info_len, index, op_name_len)
    return "", ret


def get_op_type_v2(op_info: int, op_info_len: int, index: int, /) -> tuple[str | None, int]:
    _, ret = _core.aclprofGetOpTypeLen(op_info, op_info_len, index)
    return None, ret


def get_op_name_v2(op_info: int, op_info_len: int, index: int, /) -> tuple[str | None, int]:
    _, ret = _core.aclprofGetOpNameLen(op_info, op_info_len, index)
    return None, ret


# training steps (not supported)
get_step_timestamp = _core.aclprofGetStepTimestamp
create_step_info = _core.aclprofCreateStepInfo
destroy_step_info = _core.aclprofDestroyStepInfo

# msproftx: the user's marks and ranges on the host timeline
create_stamp = _core.aclprofCreateStamp
destroy_stamp = _core.aclprofDestroyStamp
push = _core.aclprofPush
pop = _core.aclprofPop
range_start = _core.aclprofRangeStart
range_stop = _core.aclprofRangeStop
set_stamp_trace_message = _core.aclprofSetStampTraceMessage
mark = _core.aclprofMark
