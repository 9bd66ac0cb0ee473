"""Importable helpers for the model execution tests: compile an ONNX model with ascendsim.compile, its
onnxruntime reference, and device buffers + datasets for aclmdlExecute (built from numpy arrays, so the
tests do not depend on the model description API)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from ascendcl import (
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    ACL_SUCCESS,
    aclCreateDataBuffer,
    aclDestroyDataBuffer,
    aclGetRecentErrMsg,
    aclmdlAddDatasetBuffer,
    aclmdlCreateDataset,
    aclmdlDestroyDataset,
    aclmdlExecute,
    aclmdlExecuteAsync,
    aclrtCreateStream,
    aclrtDestroyStream,
    aclrtFree,
    aclrtGetCurrentContext,
    aclrtMalloc,
    aclrtMemcpy,
    aclrtSetCurrentContext,
    aclrtSynchronizeStream,
)
from ascendsim.compiler.build import compile as compile_om

OPSET = [helper.make_opsetid("", 17)]


def compile_model(model: onnx.ModelProto, directory: Path, name: str, **options: Any) -> Path:
    """Compiles `model` to directory/name.om (force_fp32 unless precision_mode is given)."""
    options.setdefault("precision_mode", "force_fp32")
    result = compile_om(model, directory / name, soc_version="Ascend910B1", **options)
    return Path(result.output)  # type: ignore[arg-type]


def reference(model: onnx.ModelProto, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return [np.asarray(o) for o in session.run(None, inputs)]


def tensor(name: str, shape: list[Any], dtype: int = TensorProto.FLOAT) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, dtype, shape)


def const(name: str, array: np.ndarray) -> onnx.TensorProto:
    return numpy_helper.from_array(array, name)


def add_relu_add(width: int = 16, batch: int | str = 1, seed: int = 0) -> onnx.ModelProto:
    """y = Relu(x + c1) + c2: two feature-map tensors between three nodes."""
    rng = np.random.default_rng(seed)
    c1 = rng.standard_normal((1, width)).astype(np.float32)
    c2 = rng.standard_normal((1, width)).astype(np.float32)
    nodes = [helper.make_node("Add", ["x", "c1"], ["a"], name="add1"), helper.make_node("Relu", ["a"], ["r"]),
             helper.make_node("Add", ["r", "c2"], ["y"], name="add2")]
    graph = helper.make_graph(nodes, "add_relu_add", [tensor("x", [batch, width])], [tensor("y", [batch, width])],
                              [const("c1", c1), const("c2", c2)])
    return helper.make_model(graph, opset_imports=OPSET)


class DeviceBuffers:
    """Device buffers holding `arrays`, wrapped in aclDataBuffers in one dataset. `sizes` overrides the byte
    size given to aclCreateDataBuffer (to test too-small buffers)."""

    def __init__(self, arrays: list[np.ndarray], sizes: list[int] | None = None) -> None:
        self.arrays = [np.ascontiguousarray(a) for a in arrays]
        self.ptrs: list[int] = []
        self.buffers: list[int] = []
        self.dataset = aclmdlCreateDataset()
        assert self.dataset != 0
        for i, array in enumerate(self.arrays):
            ptr, ret = aclrtMalloc(max(array.nbytes, 1), ACL_MEM_MALLOC_HUGE_FIRST)
            assert ret == ACL_SUCCESS
            self.ptrs.append(ptr)
            if array.nbytes:
                assert aclrtMemcpy(ptr, array.nbytes, array.ctypes.data, array.nbytes,
                                   ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS
            buffer = aclCreateDataBuffer(ptr, array.nbytes if sizes is None else sizes[i])
            self.buffers.append(buffer)
            assert aclmdlAddDatasetBuffer(self.dataset, buffer) == ACL_SUCCESS

    def write(self, index: int, array: np.ndarray) -> None:
        array = np.ascontiguousarray(array)
        assert aclrtMemcpy(self.ptrs[index], self.arrays[index].nbytes, array.ctypes.data, array.nbytes,
                           ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS

    def read(self) -> list[np.ndarray]:
        out = []
        for ptr, like in zip(self.ptrs, self.arrays):
            host = np.empty_like(like)
            if like.nbytes:
                assert aclrtMemcpy(host.ctypes.data, host.nbytes, ptr, host.nbytes,
                                   ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS
            out.append(host)
        return out

    def close(self) -> None:
        for buffer in self.buffers:
            aclDestroyDataBuffer(buffer)
        for ptr in self.ptrs:
            aclrtFree(ptr)
        aclmdlDestroyDataset(self.dataset)


Feeds = list[dict[str, np.ndarray]]


def execute_from_two_threads(model_id: int, mode: str, make_feeds: Callable[[np.random.Generator], Feeds], *,
                             output_shape: tuple[int, ...],
                             check: Callable[[str, dict[str, np.ndarray], np.ndarray], None],
                             seeds: tuple[int, int] = (10, 11), timeout: float = 120) -> list[str]:
    """Two threads, each with its own stream and buffers, execute one loaded model at once ("sync" or
    "async"), started together at a barrier; `check(label, feed, output)` verifies every execution. Returns
    the failures seen in the threads (empty when all is well)."""
    context, ret = aclrtGetCurrentContext()
    assert ret == ACL_SUCCESS
    errors: list[str] = []
    barrier = threading.Barrier(len(seeds))

    def worker(seed: int) -> None:
        try:
            assert aclrtSetCurrentContext(context) == ACL_SUCCESS
            stream, r = aclrtCreateStream()
            assert r == ACL_SUCCESS
            feeds = make_feeds(np.random.default_rng(seed))
            pairs = [(DeviceBuffers(list(f.values())), DeviceBuffers([np.zeros(output_shape, np.float32)]))
                     for f in feeds]
            barrier.wait()
            for ins, outs in pairs:
                if mode == "async":
                    assert aclmdlExecuteAsync(model_id, ins.dataset, outs.dataset, stream) == ACL_SUCCESS
                else:
                    assert aclmdlExecute(model_id, ins.dataset, outs.dataset) == ACL_SUCCESS
            assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
            for i, (feed, (ins, outs)) in enumerate(zip(feeds, pairs)):
                check(f"thread {seed} execution {i}", feed, outs.read()[0])
                ins.close()
                outs.close()
            assert aclrtDestroyStream(stream) == ACL_SUCCESS
        except BaseException as e:  # noqa: BLE001 - reported by the caller
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in seeds]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    return errors


def random_inputs(model: onnx.ModelProto, rng: np.random.Generator, shapes: dict[str, list[int]] | None = None
                  ) -> dict[str, np.ndarray]:
    """Random feeds for every model input (`shapes` overrides some); token ids stay below 50."""
    inputs = {}
    for value in model.graph.input:
        t = value.type.tensor_type
        shape = (shapes or {}).get(value.name) or [d.dim_value for d in t.shape.dim]
        dtype = onnx.helper.tensor_dtype_to_np_dtype(t.elem_type)
        if value.name == "input_ids":
            inputs[value.name] = rng.integers(0, 50, shape).astype(dtype)
        elif np.issubdtype(dtype, np.integer):
            inputs[value.name] = rng.integers(0, 2, shape).astype(dtype)
        else:
            inputs[value.name] = rng.standard_normal(shape).astype(dtype)
    return inputs


def execute_once(model_id: int, inputs: list[np.ndarray], like: list[np.ndarray]) -> list[np.ndarray]:
    """One aclmdlExecute with fresh device buffers: the outputs, shaped and typed like `like`."""
    ins, outs = DeviceBuffers(inputs), DeviceBuffers([np.zeros_like(w) for w in like])
    try:
        assert aclmdlExecute(model_id, ins.dataset, outs.dataset) == ACL_SUCCESS, aclGetRecentErrMsg()
        return outs.read()
    finally:
        ins.close()
        outs.close()
