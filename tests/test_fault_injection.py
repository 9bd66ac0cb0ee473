"""Fault injection (docs/fault-injection.md): every site from Python (the C names and pyACL), the exact codes,
the message that names the rule, and a runtime left consistent (the next call works, nothing leaks); the
grammar's errors; ASCENDSIM_FAULTS in a fresh process; and a C program that injects through the environment."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import acl
import ascendsim
from acl_helpers import TESTS, Compiler, run_python
from ascendcl import (
    ACL_ERROR_INVALID_PARAM,
    ACL_ERROR_RT_AICORE_EXCEPTION,
    ACL_ERROR_RT_EVENT_SYNC_TIMEOUT,
    ACL_ERROR_RT_MEMORY_ALLOCATION,
    ACL_ERROR_RT_MODEL_EXECUTE,
    ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
    ACL_HBM_MEM,
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    ACL_STOP_ON_FAILURE,
    ACL_SUCCESS,
    aclCreateDataBuffer,
    aclDestroyDataBuffer,
    aclGetRecentErrMsg,
    aclmdlAddDatasetBuffer,
    aclmdlCreateDataset,
    aclmdlDestroyDataset,
    aclmdlExecute,
    aclmdlExecuteAsync,
    aclmdlLoadFromFile,
    aclmdlUnload,
    aclrtCreateEvent,
    aclrtDestroyEvent,
    aclrtFree,
    aclrtGetMemInfo,
    aclrtMalloc,
    aclrtMallocAlign32,
    aclrtMallocCached,
    aclrtMemcpy,
    aclrtMemsetAsync,
    aclrtRecordEvent,
    aclrtSetStreamFailureMode,
    aclrtSynchronizeDevice,
    aclrtSynchronizeEvent,
    aclrtSynchronizeEventWithTimeout,
    aclrtSynchronizeStream,
    aclrtSynchronizeStreamWithTimeout,
)

MiB = 1 << 20


@pytest.fixture(autouse=True)
def no_faults_left() -> Iterator[None]:
    """Every test starts and ends with no rule installed, whatever it asserted."""
    ascendsim.clear_faults()
    yield
    ascendsim.clear_faults()


def allocated(device: int = 0) -> int:
    return ascendsim.memory_stats(device)["allocated_bytes"]


def malloc(size: int = 1024) -> int:
    ptr, ret = aclrtMalloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
    return ptr


def assert_injected(message: str, rule: str) -> None:
    assert "injected fault" in message and f"rule '{rule}'" in message, message


# ---- aclrtMalloc ------------------------------------------------------------------------------------------

def test_nth_malloc_fails_once_then_allocations_work(device: int) -> None:
    before = ascendsim.memory_stats(device)
    ascendsim.inject_fault("aclrtMalloc", nth=2)
    first = malloc()
    ptr, ret = aclrtMalloc(1024, ACL_MEM_MALLOC_HUGE_FIRST)
    assert (ptr, ret) == (0, ACL_ERROR_RT_MEMORY_ALLOCATION)
    message = aclGetRecentErrMsg()
    assert message.startswith("EE207001: aclrtMalloc: out of device memory")
    assert_injected(message, "aclrtMalloc:nth=2,count=1,code=207001")
    third = malloc()  # count 1: only the second call fails
    assert aclrtFree(first) == ACL_SUCCESS and aclrtFree(third) == ACL_SUCCESS
    after = ascendsim.memory_stats(device)
    assert after["allocated_bytes"] == before["allocated_bytes"]
    assert after["allocation_count"] - before["allocation_count"] == 2  # the failed call allocated nothing
    assert after["oom_count"] == before["oom_count"]


def test_malloc_family_count_and_code(device: int) -> None:
    ascendsim.inject_fault("aclrtMalloc", nth=1, count=2, code=ACL_ERROR_INVALID_PARAM)
    assert aclrtMallocAlign32(64, ACL_MEM_MALLOC_HUGE_FIRST) == (0, ACL_ERROR_INVALID_PARAM)
    assert "rule 'aclrtMalloc:nth=1,count=2,code=100000'" in aclGetRecentErrMsg()
    assert aclrtMallocCached(64, ACL_MEM_MALLOC_HUGE_FIRST) == (0, ACL_ERROR_INVALID_PARAM)
    assert aclrtFree(malloc()) == ACL_SUCCESS


def test_every_malloc_from_the_nth_fails_until_cleared(device: int) -> None:
    ascendsim.inject_fault("aclrtMalloc", nth=2, count=None)
    kept = malloc()
    for _ in range(3):
        assert aclrtMalloc(32, ACL_MEM_MALLOC_HUGE_FIRST)[1] == ACL_ERROR_RT_MEMORY_ALLOCATION
    assert "count=all" in aclGetRecentErrMsg()
    ascendsim.clear_faults()
    assert aclrtFree(malloc()) == ACL_SUCCESS and aclrtFree(kept) == ACL_SUCCESS


def test_pyacl_face_sees_the_same_fault(device: int) -> None:
    with ascendsim.injected_faults("aclrtMalloc:nth=1"):
        ptr, ret = acl.rt.malloc(256, 0)
        assert (ptr, ret) == (0, ACL_ERROR_RT_MEMORY_ALLOCATION)
        assert "injected fault" in acl.get_recent_err_msg()
    ptr, ret = acl.rt.malloc(256, 0)  # the context manager cleared the rule
    assert ret == ACL_SUCCESS and acl.rt.free(ptr) == ACL_SUCCESS


# ---- stream tasks and synchronizes ------------------------------------------------------------------------

def test_stream_task_fails_with_an_aicore_exception_at_the_next_synchronize(stream: int) -> None:
    buffer = malloc(4096)
    ascendsim.inject_fault("stream_task", nth=2)
    for value in (1, 2, 3):
        assert aclrtMemsetAsync(buffer, 4096, value, 4096, stream) == ACL_SUCCESS  # the launch itself succeeds
    assert aclrtSynchronizeStream(stream) == ACL_ERROR_RT_AICORE_EXCEPTION
    message = aclGetRecentErrMsg()
    assert "task 2 failed with error 507015" in message and "AI Core exception: task 2 on stream" in message
    assert_injected(message, "stream_task:nth=2,count=1,code=507015")
    assert aclrtSynchronizeStream(stream) == ACL_SUCCESS  # reported once (ACL_CONTINUE_ON_FAILURE)
    host = np.zeros(4096, np.uint8)
    assert aclrtMemcpy(host.ctypes.data, 4096, buffer, 4096, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS
    assert (host == 3).all()  # the tasks after the failed one ran
    assert aclrtMemsetAsync(buffer, 4096, 4, 4096, stream) == ACL_SUCCESS
    assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
    assert aclrtFree(buffer) == ACL_SUCCESS


def test_stream_task_fault_stops_a_stop_on_failure_stream_and_reaches_synchronize_device(stream: int) -> None:
    assert aclrtSetStreamFailureMode(stream, ACL_STOP_ON_FAILURE) == ACL_SUCCESS
    buffer = malloc(64)
    event, ret = aclrtCreateEvent()
    assert ret == ACL_SUCCESS
    ascendsim.inject_fault("stream_task", code=ACL_ERROR_RT_AICORE_EXCEPTION)
    assert aclrtMemsetAsync(buffer, 64, 0, 64, stream) == ACL_SUCCESS
    assert aclrtRecordEvent(event, stream) == ACL_SUCCESS  # discarded: the stream stopped
    assert aclrtSynchronizeDevice() == ACL_ERROR_RT_AICORE_EXCEPTION
    message = aclGetRecentErrMsg()
    assert "aclrtSynchronizeDevice: device 0: task 1" in message
    assert_injected(message, "stream_task:nth=1,count=1,code=507015")
    assert aclrtSynchronizeEvent(event) == ACL_ERROR_RT_AICORE_EXCEPTION  # released with the stream's error
    assert aclrtSynchronizeStream(stream) == ACL_ERROR_RT_AICORE_EXCEPTION  # sticky, as a real abort
    assert aclrtDestroyEvent(event) == ACL_SUCCESS
    assert aclrtFree(buffer) == ACL_SUCCESS


def test_stream_synchronize_times_out_then_works(stream: int) -> None:
    ascendsim.inject_fault("stream_sync")
    assert aclrtSynchronizeStreamWithTimeout(stream, 1000) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    message = aclGetRecentErrMsg()
    assert "aclrtSynchronizeStreamWithTimeout: stream" in message and "after 1000 ms" in message
    assert_injected(message, "stream_sync:nth=1,count=1,code=507046")
    assert aclrtSynchronizeStreamWithTimeout(stream, 1000) == ACL_SUCCESS


def test_event_wait_times_out_then_works(stream: int) -> None:
    event, ret = aclrtCreateEvent()
    assert ret == ACL_SUCCESS
    assert aclrtRecordEvent(event, stream) == ACL_SUCCESS
    ascendsim.inject_fault("event_sync", count=2)
    assert aclrtSynchronizeEvent(event) == ACL_ERROR_RT_EVENT_SYNC_TIMEOUT
    assert_injected(aclGetRecentErrMsg(), "event_sync:nth=1,count=2,code=507047")
    assert aclrtSynchronizeEventWithTimeout(event, 500) == ACL_ERROR_RT_EVENT_SYNC_TIMEOUT
    assert "did not complete within 500 ms" in aclGetRecentErrMsg()
    assert aclrtSynchronizeEvent(event) == ACL_SUCCESS
    assert aclrtDestroyEvent(event) == ACL_SUCCESS


# ---- model execution --------------------------------------------------------------------------------------

@pytest.fixture
def relu_model(tmp_path: Path, device: int) -> Iterator[int]:
    """A loaded one-node model: y = Relu(x), x and y float32 [1, 8]."""
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    result = ascendsim.compile(model, str(tmp_path / "relu"), soc_version="Ascend910B1", precision_mode="force_fp32")
    model_id, ret = aclmdlLoadFromFile(str(result.output))
    assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
    yield model_id
    assert aclmdlUnload(model_id) == ACL_SUCCESS


class Buffer:
    """One device buffer in its own dataset."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array
        self.ptr = malloc(array.nbytes)
        assert aclrtMemcpy(self.ptr, array.nbytes, array.ctypes.data, array.nbytes,
                           ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS
        self.data = aclCreateDataBuffer(self.ptr, array.nbytes)
        self.dataset = aclmdlCreateDataset()
        assert aclmdlAddDatasetBuffer(self.dataset, self.data) == ACL_SUCCESS

    def read(self) -> np.ndarray:
        host = np.empty_like(self.array)
        assert aclrtMemcpy(host.ctypes.data, host.nbytes, self.ptr, host.nbytes,
                           ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS
        return host

    def close(self) -> None:
        assert aclDestroyDataBuffer(self.data) == ACL_SUCCESS
        assert aclmdlDestroyDataset(self.dataset) == ACL_SUCCESS
        assert aclrtFree(self.ptr) == ACL_SUCCESS


def test_model_execute_fails_with_the_device_code_then_runs(relu_model: int, stream: int) -> None:
    before = allocated()
    x = Buffer(np.linspace(-1, 1, 8, dtype=np.float32).reshape(1, 8))
    y = Buffer(np.full((1, 8), 7, np.float32))
    ascendsim.inject_fault("model_execute", nth=1, count=2)
    assert aclmdlExecute(relu_model, x.dataset, y.dataset) == ACL_ERROR_RT_MODEL_EXECUTE
    message = aclGetRecentErrMsg()
    assert f"aclmdlExecute: model {relu_model} failed on the device" in message
    assert_injected(message, "model_execute:nth=1,count=2,code=507011")
    assert (y.read() == 7).all()  # the model did not run
    # asynchronous: the launch succeeds, the task fails, the synchronize reports it with the message
    assert aclmdlExecuteAsync(relu_model, x.dataset, y.dataset, stream) == ACL_SUCCESS
    assert aclrtSynchronizeStream(stream) == ACL_ERROR_RT_MODEL_EXECUTE
    assert "aclmdlExecuteAsync: model" in aclGetRecentErrMsg()
    assert aclmdlExecute(relu_model, x.dataset, y.dataset) == ACL_SUCCESS
    np.testing.assert_array_equal(y.read(), np.maximum(x.array, 0))
    x.close()
    y.close()
    assert allocated() == before


# ---- device memory cap ------------------------------------------------------------------------------------

def test_memory_cap_mid_run_makes_later_allocations_fail_as_out_of_memory(device: int) -> None:
    before = ascendsim.memory_stats(device)
    early = malloc(4 * MiB)
    ascendsim.inject_fault("memory_cap", nth=2, bytes=8 * MiB, device=device)
    second = malloc(1 * MiB)  # the 1st allocation since: the cap is not in force yet
    free, total, ret = aclrtGetMemInfo(ACL_HBM_MEM)
    assert ret == ACL_SUCCESS and total == before["capacity_bytes"]
    ptr, ret = aclrtMalloc(4 * MiB, ACL_MEM_MALLOC_HUGE_FIRST)  # the 2nd: 9 MiB would be live under an 8 MiB cap
    assert (ptr, ret) == (0, ACL_ERROR_RT_MEMORY_ALLOCATION)
    message = aclGetRecentErrMsg()
    assert message.startswith("EE207001: aclrtMalloc: device 0 out of memory") and "capped at 8.00 MiB" in message
    assert_injected(message, f"memory_cap:nth=2,bytes={8 * MiB},device={device}")
    free, total, ret = aclrtGetMemInfo(ACL_HBM_MEM)
    assert ret == ACL_SUCCESS and total == 8 * MiB and free == total - allocated()
    assert ascendsim.memory_stats(device)["oom_count"] == before["oom_count"] + 1
    assert aclrtFree(early) == ACL_SUCCESS  # freeing makes room under the cap, as on a full device
    third = malloc(4 * MiB)
    ascendsim.clear_faults()
    big = malloc(64 * MiB)
    for ptr in (second, third, big):
        assert aclrtFree(ptr) == ACL_SUCCESS
    assert allocated() == before["allocated_bytes"]


def test_memory_cap_bounds_what_the_allocator_reserves(device: int) -> None:
    ascendsim.empty_cache(device)
    before = ascendsim.memory_stats(device)
    assert before["reserved_bytes"] == 0
    ascendsim.inject_fault("memory_cap", bytes="8M")
    ptrs = [malloc(3 * MiB), malloc(3 * MiB)]  # each would take a 20 MiB segment on an uncapped device
    assert ascendsim.memory_stats(device)["reserved_bytes"] <= 8 * MiB
    assert aclrtMalloc(3 * MiB, ACL_MEM_MALLOC_HUGE_FIRST)[1] == ACL_ERROR_RT_MEMORY_ALLOCATION
    assert "rule 'memory_cap:nth=1,bytes=8388608'" in aclGetRecentErrMsg()
    for ptr in ptrs:
        assert aclrtFree(ptr) == ACL_SUCCESS
    assert allocated() == before["allocated_bytes"]


def test_memory_cap_on_another_device_leaves_this_one_alone(device: int) -> None:
    ascendsim.inject_fault("memory_cap", bytes="2M", device=1)
    assert aclrtFree(malloc(16 * MiB)) == ACL_SUCCESS


# ---- the grammar ------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("spec", "says"), [
    ("aclrtMallok:nth=1", "unknown site 'aclrtMallok'"),
    ("aclrtMalloc:nth=0", "invalid value '0' for nth"),
    ("aclrtMalloc:nth=x", "invalid value 'x' for nth"),
    ("aclrtMalloc:count=-1", "invalid value '-1' for count"),
    ("aclrtMalloc:code=0", "invalid value '0' for code"),
    ("aclrtMalloc:nth", "is not key=value"),
    ("aclrtMalloc:bytes=1M", "takes no parameter 'bytes'"),
    ("memory_cap:nth=1", "memory_cap needs bytes="),
    ("memory_cap:bytes=lots", "invalid value 'lots' for bytes"),
    ("memory_cap:bytes=1M,code=207001", "takes no parameter 'code'"),
])
def test_malformed_rules_are_refused_with_a_message_and_install_nothing(device: int, spec: str, says: str) -> None:
    with pytest.raises(ValueError, match="ascendsimInjectFaults: rule 2") as error:
        ascendsim.inject_faults(f"aclrtMalloc:nth=1; {spec}")
    assert says in str(error.value) and "nothing was injected" in str(error.value)
    assert aclrtFree(malloc()) == ACL_SUCCESS  # the valid first rule was not installed either


def test_rules_accumulate_spaces_and_empty_rules_are_allowed(device: int) -> None:
    ascendsim.inject_faults(" aclrtMalloc : nth=2 ;; stream_sync ;")
    ascendsim.inject_fault("aclrtMalloc", nth=1)
    assert aclrtMalloc(32, ACL_MEM_MALLOC_HUGE_FIRST)[1] == ACL_ERROR_RT_MEMORY_ALLOCATION  # the second rule
    assert aclrtMalloc(32, ACL_MEM_MALLOC_HUGE_FIRST)[1] == ACL_ERROR_RT_MEMORY_ALLOCATION  # the first rule
    assert aclrtSynchronizeStream(0) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    assert aclrtFree(malloc()) == ACL_SUCCESS


# ---- ASCENDSIM_FAULTS -------------------------------------------------------------------------------------

def test_environment_variable_is_read_by_acl_init() -> None:
    result = run_python("""
        from ascendcl import *
        assert aclInit("") == 0
        assert aclrtSetDevice(0) == 0
        a, ret = aclrtMalloc(64, ACL_MEM_MALLOC_HUGE_FIRST)
        assert ret == 0
        b, ret = aclrtMalloc(64, ACL_MEM_MALLOC_HUGE_FIRST)
        assert (b, ret) == (0, 207001), ret
        message = aclGetRecentErrMsg()
        assert "rule 'aclrtMalloc:nth=2,count=1,code=207001'" in message, message
        assert aclrtSynchronizeDevice() == 0
        assert aclrtFree(a) == 0 and aclrtResetDevice(0) == 0 and aclFinalize() == 0
        print("ok")
    """, env={"ASCENDSIM_FAULTS": "aclrtMalloc:nth=2"})
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stdout + result.stderr


def test_malformed_environment_variable_fails_acl_init_clearly() -> None:
    result = run_python("""
        from ascendcl import *
        print(aclInit(""))
        print(aclGetRecentErrMsg())
    """, env={"ASCENDSIM_FAULTS": "aclrtMalloc:nth=2;stream_task:nth=soon"})
    assert result.returncode == 0, result.stderr
    code, message = result.stdout.strip().split("\n", 1)
    assert code == str(ACL_ERROR_INVALID_PARAM)
    assert "aclInit: ASCENDSIM_FAULTS: rule 2 'stream_task:nth=soon': invalid value 'soon' for nth" in message


def test_c_program_injects_through_the_environment(compiler: Compiler) -> None:
    program = compiler.build(TESTS / "c" / "fault_flow.c")
    faults = "aclrtMalloc:nth=2;stream_task:nth=2;event_sync:nth=1;memory_cap:nth=4,bytes=4M"
    result = compiler.run(program, env={"ASCENDSIM_FAULTS": faults})
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stdout + result.stderr
