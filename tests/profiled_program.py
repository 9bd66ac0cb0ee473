"""The known program the profiler tests trace (run in a fresh interpreter by tests/test_profiler.py):

    python profiled_program.py <switch> <output dir> <model.om>

<switch> turns profiling on the way a CANN user would: `json` (the `profiler` section of aclInit's file), `api`
(aclprofInit / CreateConfig / Start ... Stop / Finalize), `env` (ASCENDSIM_PROFILE set by the caller), or
`off`. The program: stream A copies 4 MiB host to device and records an event; stream B waits for it, runs the
multi-stream model asynchronously, copies the result back and launches a callback; then one synchronous
aclmdlExecute. Prints the ids the tests look for as JSON on its last line.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

import numpy as np

from ascendcl import (
    ACL_AICORE_NONE,
    ACL_CALLBACK_NO_BLOCK,
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    ACL_PROF_ACL_API,
    ACL_PROF_TASK_TIME,
    aclCreateDataBuffer,
    aclDestroyDataBuffer,
    aclFinalize,
    aclGetRecentErrMsg,
    aclInit,
    aclmdlAddDatasetBuffer,
    aclmdlCreateDataset,
    aclmdlDestroyDataset,
    aclmdlExecute,
    aclmdlExecuteAsync,
    aclmdlLoadFromFile,
    aclmdlUnload,
    aclprofCreateConfig,
    aclprofDestroyConfig,
    aclprofFinalize,
    aclprofInit,
    aclprofStart,
    aclprofStop,
    aclrtCreateEvent,
    aclrtCreateStream,
    aclrtDestroyEvent,
    aclrtDestroyStream,
    aclrtFree,
    aclrtFreeHost,
    aclrtLaunchCallback,
    aclrtMalloc,
    aclrtMallocHost,
    aclrtMemcpyAsync,
    aclrtProcessReport,
    aclrtRecordEvent,
    aclrtResetDevice,
    aclrtSetDevice,
    aclrtStreamWaitEvent,
    aclrtSubscribeReport,
    aclrtSynchronizeStream,
    aclrtUnSubscribeReport,
)

COPY_BYTES = 4 << 20
INPUT_SHAPE = (1, 8, 12, 12)
OUTPUT_SHAPE = (1, 18, 12, 12)  # the four branches of inception_block, concatenated


def ok(ret: int) -> None:
    assert ret == 0, (ret, aclGetRecentErrMsg())


def value(result: tuple[int, int]) -> int:
    handle, ret = result
    ok(ret)
    return handle


def dataset(pointer: int, size: int) -> tuple[int, int]:
    data = aclmdlCreateDataset()
    buffer = aclCreateDataBuffer(pointer, size)
    ok(aclmdlAddDatasetBuffer(data, buffer))
    return data, buffer


def main(switch: str, output: str, om: str) -> None:
    config = ""
    if switch == "json":
        config = str(Path(output) / "acl.json")
        Path(config).write_text(json.dumps({"profiler": {"switch": "on", "output": output, "aicpu": "on"}}))
    ok(aclInit(config))
    ok(aclrtSetDevice(0))
    prof_config = 0
    if switch == "api":
        ok(aclprofInit(output, len(output)))
        prof_config = aclprofCreateConfig([0], ACL_AICORE_NONE, 0, ACL_PROF_ACL_API | ACL_PROF_TASK_TIME)
        assert prof_config != 0
        ok(aclprofStart(prof_config))

    stream_a, stream_b = value(aclrtCreateStream()), value(aclrtCreateStream())
    host = value(aclrtMallocHost(COPY_BYTES))
    device = value(aclrtMalloc(COPY_BYTES, ACL_MEM_MALLOC_HUGE_FIRST))
    in_bytes, out_bytes = int(np.prod(INPUT_SHAPE)) * 4, int(np.prod(OUTPUT_SHAPE)) * 4
    result_host = value(aclrtMallocHost(out_bytes))
    result_device = value(aclrtMalloc(out_bytes, ACL_MEM_MALLOC_HUGE_FIRST))
    model_id = value(aclmdlLoadFromFile(om))
    inputs, in_buffer = dataset(device, in_bytes)
    outputs, out_buffer = dataset(result_device, out_bytes)
    event = value(aclrtCreateEvent())
    ok(aclrtSubscribeReport(threading.get_ident(), stream_b))

    ok(aclrtMemcpyAsync(device, COPY_BYTES, host, COPY_BYTES, ACL_MEMCPY_HOST_TO_DEVICE, stream_a))
    ok(aclrtRecordEvent(event, stream_a))
    ok(aclrtStreamWaitEvent(stream_b, event))
    ok(aclmdlExecuteAsync(model_id, inputs, outputs, stream_b))
    ok(aclrtMemcpyAsync(result_host, out_bytes, result_device, out_bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream_b))
    called: list[object] = []
    ok(aclrtLaunchCallback(called.append, "done", ACL_CALLBACK_NO_BLOCK, stream_b))
    ok(aclrtSynchronizeStream(stream_b))
    ok(aclrtProcessReport(5000))
    assert called == ["done"]
    ok(aclmdlExecute(model_id, inputs, outputs))

    ok(aclrtUnSubscribeReport(threading.get_ident(), stream_b))
    for buffer, data in ((in_buffer, inputs), (out_buffer, outputs)):
        ok(aclDestroyDataBuffer(buffer))
        ok(aclmdlDestroyDataset(data))
    ok(aclmdlUnload(model_id))
    ok(aclrtDestroyEvent(event))
    for pointer in (device, result_device):
        ok(aclrtFree(pointer))
    for pointer in (host, result_host):
        ok(aclrtFreeHost(pointer))
    for stream in (stream_a, stream_b):
        ok(aclrtDestroyStream(stream))
    if switch == "api":
        ok(aclprofStop(prof_config))
        ok(aclprofDestroyConfig(prof_config))
        ok(aclprofFinalize())
    ok(aclrtResetDevice(0))
    ok(aclFinalize())
    print(json.dumps({"model_id": model_id, "copy_bytes": COPY_BYTES}))


if __name__ == "__main__":
    main(*sys.argv[1:4])
