"""aclmdlExecuteV2 / aclmdlExecuteAsyncV2 with ACL_MDL_WORK_ADDR_PTR + ACL_MDL_WORK_SIZET in the exec config:
the execution keeps its intermediate tensors in the user's memory (the model's own feature map is not used),
executions sharing one work memory are serialised on it, several work memories in turn all work, and a work
memory that is too small, not device memory or too short for its size is refused with a message."""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from exec_helpers import DeviceBuffers, add_relu_add, compile_model, reference

import ascendsim
from ascendcl import (
    ACL_ERROR_GE_PARAM_INVALID,
    ACL_MDL_WORK_ADDR_PTR,
    ACL_MDL_WORK_SIZET,
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    ACL_SUCCESS,
    aclGetRecentErrMsg,
    aclmdlCreateExecConfigHandle,
    aclmdlDestroyExecConfigHandle,
    aclmdlExecuteAsyncV2,
    aclmdlExecuteV2,
    aclmdlLoadFromFile,
    aclmdlQuerySize,
    aclmdlSetExecConfigOpt,
    aclmdlUnload,
    aclrtFree,
    aclrtGetCurrentContext,
    aclrtMalloc,
    aclrtMemcpy,
    aclrtSetCurrentContext,
    aclrtSynchronizeStream,
)

EXACT = {"rtol": 1e-6, "atol": 1e-6}
PATTERN = 0x5A


class Model:
    def __init__(self, tmp_path: Path) -> None:
        self.onnx = add_relu_add(width=256)
        # no fusion: the chain keeps intermediate tensors, which live in the feature map
        self.path = compile_model(self.onnx, tmp_path, "work", disabled_passes=["elementwise_fusion"])
        self.work_size, _, ret = aclmdlQuerySize(str(self.path))
        assert ret == ACL_SUCCESS and self.work_size > 0
        self.id, ret = aclmdlLoadFromFile(str(self.path))
        assert ret == ACL_SUCCESS, aclGetRecentErrMsg()


@pytest.fixture
def model(tmp_path: Path, device: int) -> Iterator[Model]:
    m = Model(tmp_path)
    yield m
    assert aclmdlUnload(m.id) == ACL_SUCCESS


def device_memory(size: int) -> int:
    ptr, ret = aclrtMalloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == ACL_SUCCESS
    filled = np.full(size, PATTERN, np.uint8)
    assert aclrtMemcpy(ptr, size, filled.ctypes.data, size, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS
    return ptr


def read_device(ptr: int, size: int) -> np.ndarray:
    host = np.empty(size, np.uint8)
    assert aclrtMemcpy(host.ctypes.data, size, ptr, size, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS
    return host


def exec_config(work: int, size: int) -> int:
    config = aclmdlCreateExecConfigHandle()
    address, length = ctypes.c_void_p(work), ctypes.c_size_t(size)
    assert aclmdlSetExecConfigOpt(config, ACL_MDL_WORK_ADDR_PTR, ctypes.addressof(address), 8) == ACL_SUCCESS
    assert aclmdlSetExecConfigOpt(config, ACL_MDL_WORK_SIZET, ctypes.addressof(length), 8) == ACL_SUCCESS
    return config


def test_execution_uses_the_given_work_memory(model: Model, stream: int) -> None:
    x = np.random.default_rng(0).standard_normal((1, 256)).astype(np.float32)
    expected = reference(model.onnx, {"x": x})[0]
    work = device_memory(model.work_size)
    config = exec_config(work, model.work_size)
    ins, outs = DeviceBuffers([x]), DeviceBuffers([np.zeros_like(x)])
    try:
        before = ascendsim.memory_stats(0)["allocation_count"]
        assert aclmdlExecuteV2(model.id, ins.dataset, outs.dataset, 0, config) == ACL_SUCCESS, aclGetRecentErrMsg()
        assert ascendsim.memory_stats(0)["allocation_count"] == before  # nothing allocated for the execution
        np.testing.assert_allclose(outs.read()[0], expected, **EXACT)
        used = read_device(work, model.work_size)
        assert (used != PATTERN).any()  # the intermediate tensors were written there
        # an intermediate result (x + c1, then relu) is in the work memory, as float32 bytes
        c1 = np.frombuffer(model.onnx.graph.initializer[0].raw_data, np.float32).reshape(1, 256)
        assert np.maximum(x + c1, 0).tobytes() in used.tobytes() or (x + c1).tobytes() in used.tobytes()
        for run_async in (False, True):
            outs.write(0, np.zeros_like(x))
            if run_async:
                assert aclmdlExecuteAsyncV2(model.id, ins.dataset, outs.dataset, stream, config) == ACL_SUCCESS
                assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
            else:
                assert aclmdlExecuteV2(model.id, ins.dataset, outs.dataset, stream, config) == ACL_SUCCESS
            np.testing.assert_allclose(outs.read()[0], expected, **EXACT)
    finally:
        ins.close()
        outs.close()
        assert aclmdlDestroyExecConfigHandle(config) == ACL_SUCCESS
        assert aclrtFree(work) == ACL_SUCCESS


def test_many_work_memories_and_threads(model: Model) -> None:
    """Six work memories used in turn by two threads (more than the instances remembered per plan, so some
    are forgotten and rebuilt), two threads sharing each: every result right."""
    works = [device_memory(model.work_size) for _ in range(6)]
    configs = [exec_config(w, model.work_size) for w in works]
    context, _ = aclrtGetCurrentContext()
    errors: list[str] = []

    def worker(seed: int) -> None:
        aclrtSetCurrentContext(context)
        rng = np.random.default_rng(seed)
        for i in range(30):
            x = rng.standard_normal((1, 256)).astype(np.float32)
            ins, outs = DeviceBuffers([x]), DeviceBuffers([np.zeros_like(x)])
            ret = aclmdlExecuteV2(model.id, ins.dataset, outs.dataset, 0, configs[i % len(configs)])
            if ret != ACL_SUCCESS:
                errors.append(f"ret {ret}: {aclGetRecentErrMsg()}")
            elif not np.allclose(outs.read()[0], reference(model.onnx, {"x": x})[0], **EXACT):
                errors.append(f"thread {seed} execution {i}: wrong result")
            ins.close()
            outs.close()

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    for config, work in zip(configs, works):
        assert aclmdlDestroyExecConfigHandle(config) == ACL_SUCCESS
        assert aclrtFree(work) == ACL_SUCCESS


def test_bad_work_memory_is_refused(model: Model) -> None:
    x = np.ones((1, 256), np.float32)
    ins, outs = DeviceBuffers([x]), DeviceBuffers([np.zeros_like(x)])
    work = device_memory(model.work_size)
    host = np.zeros(model.work_size, np.uint8)
    label = "work memory (ACL_MDL_WORK_ADDR_PTR, ACL_MDL_WORK_SIZET)"
    cases = [
        (work, model.work_size - 1, f"{label}: model expects {model.work_size} bytes, given {model.work_size - 1}"),
        (work, 0, f"{label}: model expects {model.work_size} bytes, given 0"),
        (host.ctypes.data, model.work_size, "is not device memory"),
        (work + 64, model.work_size, f"model expects {model.work_size} bytes, but the buffer at"),
    ]
    try:
        for address, size, message in cases:
            config = exec_config(address, size)
            assert aclmdlExecuteV2(model.id, ins.dataset, outs.dataset, 0, config) == ACL_ERROR_GE_PARAM_INVALID
            assert message in aclGetRecentErrMsg()
            assert aclmdlDestroyExecConfigHandle(config) == ACL_SUCCESS
        assert (host == 0).all()  # nothing written to memory that was refused
    finally:
        ins.close()
        outs.close()
        assert aclrtFree(work) == ACL_SUCCESS
