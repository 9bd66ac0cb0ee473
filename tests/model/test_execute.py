"""aclmdlExecute end to end: models compiled by ascendsim.compile, run through the C API (sync, async with a
callback, V2, user memory, dynamic batch, several streams, two threads), numbers against onnxruntime.

Tolerances: elementwise models in fp32 compute the same float operations as onnxruntime: rtol 1e-6,
atol 1e-6. Models with reductions (MatMul, Gemm, Conv) sum in another order: rtol 1e-4, atol 1e-5.

A model whose op has no kernel yet in the registry is skipped with the loader's message (the kernels land
family by family); the no-kernel error itself is tested with a patched model."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import onnx
import pytest
from exec_helpers import (
    DeviceBuffers,
    add_relu_add,
    compile_model,
    const,
    execute_from_two_threads,
    execute_once,
    reference,
    tensor,
)
from onnx import helper

import acl
from ascendcl import (
    ACL_ERROR_API_NOT_SUPPORT,
    ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID,
    ACL_ERROR_GE_EXEC_LOAD_KERNEL_PARTITION_FAILED,
    ACL_ERROR_GE_EXEC_MODEL_ID_INVALID,
    ACL_ERROR_GE_PARAM_INVALID,
    ACL_ERROR_INVALID_PARAM,
    ACL_SUCCESS,
    aclGetRecentErrMsg,
    aclmdlExecute,
    aclmdlExecuteAsync,
    aclmdlLoadFromFile,
    aclmdlLoadFromMem,
    aclmdlUnload,
    aclrtGetCurrentContext,
    aclrtSetCurrentContext,
    aclrtSynchronizeStream,
)

OPSET = [helper.make_opsetid("", 17)]
EXACT = {"rtol": 1e-6, "atol": 1e-6}
REDUCE = {"rtol": 1e-4, "atol": 1e-5}


def load(path: Path) -> int:
    model_id, ret = aclmdlLoadFromFile(str(path))
    if ret == ACL_ERROR_GE_EXEC_LOAD_KERNEL_PARTITION_FAILED:
        pytest.skip(f"kernel not available yet: {aclGetRecentErrMsg()}")
    assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
    assert model_id >= 1
    return model_id



@pytest.fixture
def add_model(tmp_path: Path, device: int) -> Iterator[tuple[int, onnx.ModelProto]]:
    model = add_relu_add()
    model_id = load(compile_model(model, tmp_path, "add_relu_add"))
    yield model_id, model
    assert aclmdlUnload(model_id) == ACL_SUCCESS


def test_elementwise_model_matches_onnxruntime(add_model: tuple[int, onnx.ModelProto]) -> None:
    model_id, model = add_model
    x = np.random.default_rng(1).standard_normal((1, 16)).astype(np.float32)
    expected = reference(model, {"x": x})
    np.testing.assert_allclose(execute_once(model_id, [x], expected)[0], expected[0], **EXACT)
    x2 = -x  # a second execution with other data: the user's buffers are bound at each call (zero copy)
    np.testing.assert_allclose(execute_once(model_id, [x2], expected)[0], reference(model, {"x": x2})[0], **EXACT)


@pytest.mark.parametrize("op", ["MatMul", "Gemm", "Conv"])
def test_cube_models_match_onnxruntime(tmp_path: Path, device: int, op: str) -> None:
    rng = np.random.default_rng(2)
    if op == "Conv":
        w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
        node = helper.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
        x_shape, y_shape = [2, 3, 8, 8], [2, 4, 8, 8]
    else:
        w = rng.standard_normal((24, 10)).astype(np.float32)
        node = helper.make_node(op, ["x", "w"], ["y"])
        x_shape, y_shape = [5, 24], [5, 10]
    graph = helper.make_graph([node], op.lower(), [tensor("x", x_shape)], [tensor("y", y_shape)], [const("w", w)])
    model = helper.make_model(graph, opset_imports=OPSET)
    model_id = load(compile_model(model, tmp_path, op.lower()))
    try:
        x = rng.standard_normal(x_shape).astype(np.float32)
        expected = reference(model, {"x": x})
        np.testing.assert_allclose(execute_once(model_id, [x], expected)[0], expected[0], **REDUCE)
    finally:
        aclmdlUnload(model_id)


def test_model_ids_start_at_one_and_are_not_reused(tmp_path: Path, device: int) -> None:
    path = compile_model(add_relu_add(), tmp_path, "m")
    first = load(path)
    second = load(path)
    assert first >= 1 and second > first
    assert aclmdlUnload(first) == ACL_SUCCESS
    third = load(path)
    assert third > second
    assert aclmdlUnload(second) == ACL_SUCCESS and aclmdlUnload(third) == ACL_SUCCESS
    assert aclmdlUnload(third) == ACL_ERROR_GE_EXEC_MODEL_ID_INVALID
    assert "model id" in aclGetRecentErrMsg()


def test_load_from_mem(tmp_path: Path, device: int) -> None:
    model = add_relu_add()
    image = compile_model(model, tmp_path, "m").read_bytes()
    model_id, ret = aclmdlLoadFromMem(acl.util.bytes_to_ptr(image), len(image))
    if ret == ACL_ERROR_GE_EXEC_LOAD_KERNEL_PARTITION_FAILED:
        pytest.skip(aclGetRecentErrMsg())
    assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
    del image  # the loaded model does not keep the caller's image
    x = np.linspace(-1, 1, 16, dtype=np.float32).reshape(1, 16)
    expected = reference(model, {"x": x})
    np.testing.assert_allclose(execute_once(model_id, [x], expected)[0], expected[0], **EXACT)
    assert aclmdlUnload(model_id) == ACL_SUCCESS


def test_async_execute_with_callback(add_model: tuple[int, onnx.ModelProto], stream: int) -> None:
    from stream_helpers import reporter

    model_id, model = add_model
    xs = [np.full((1, 16), v, np.float32) for v in (-2.0, 0.5, 3.0)]
    seen: list[np.ndarray] = []
    with reporter() as serving:
        serving.subscribe(stream)
        buffers = [(DeviceBuffers([x]), DeviceBuffers([np.zeros((1, 16), np.float32)])) for x in xs]
        for ins, outs in buffers:
            assert aclmdlExecuteAsync(model_id, ins.dataset, outs.dataset, stream) == ACL_SUCCESS
            # the callback runs when the stream reaches it, after the model: the output is complete there
            assert acl.rt.launch_callback(lambda o: seen.append(o.read()[0]), outs, 1, stream) == ACL_SUCCESS
        assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
    assert len(seen) == 3
    for x, got in zip(xs, seen):
        np.testing.assert_allclose(got, reference(model, {"x": x})[0], **EXACT)
    for ins, outs in buffers:
        ins.close()
        outs.close()


def test_input_count_and_size_errors(add_model: tuple[int, onnx.ModelProto]) -> None:
    model_id, _ = add_model
    x = np.zeros((1, 16), np.float32)
    y = np.zeros((1, 16), np.float32)
    outs = DeviceBuffers([y])
    none, two = DeviceBuffers([]), DeviceBuffers([x, x])
    big = DeviceBuffers([np.zeros((1, 32), np.float32)])
    small_out = DeviceBuffers([y], sizes=[60])
    try:
        assert aclmdlExecute(model_id, none.dataset, outs.dataset) == ACL_ERROR_GE_PARAM_INVALID
        assert "has 1 inputs, the input dataset has 0 buffers" in aclGetRecentErrMsg()
        assert aclmdlExecute(model_id, two.dataset, outs.dataset) == ACL_ERROR_GE_PARAM_INVALID
        # (a short input is GE's leniency: test_input_buffers_follow_ge_size_allowance); outputs must be whole
        assert aclmdlExecute(model_id, big.dataset, small_out.dataset) == ACL_ERROR_GE_PARAM_INVALID
        assert "output 0: model expects 64 bytes, given 60" in aclGetRecentErrMsg()
        assert aclmdlExecute(model_id, big.dataset, outs.dataset) == ACL_SUCCESS  # larger buffers are fine
        assert aclmdlExecute(model_id + 1000, big.dataset, outs.dataset) == ACL_ERROR_GE_EXEC_MODEL_ID_INVALID
        assert aclmdlExecute(model_id, 0, outs.dataset) == ACL_ERROR_INVALID_PARAM
        assert aclmdlExecute(model_id, big.dataset, 0) == ACL_ERROR_INVALID_PARAM
    finally:
        for b in (outs, none, two, big, small_out):
            b.close()


def test_input_buffers_follow_ge_size_allowance(tmp_path: Path, stream: int) -> None:
    """GE's CheckUserAndModelSize: an input buffer may be up to 64 bytes smaller than the model's input (E13025,
    ACL_ERROR_GE_FAILURE beyond). The model reads the input's full size where the allocation has it, zeros past
    the allocation's end (its rounding included), read when the execution runs."""
    from ascendcl import (
        ACL_ERROR_GE_FAILURE,
        ACL_MEMCPY_HOST_TO_DEVICE,
        aclCreateDataBuffer,
        aclDestroyDataBuffer,
        aclmdlAddDatasetBuffer,
        aclmdlCreateDataset,
        aclmdlDestroyDataset,
        aclrtFree,
        aclrtMalloc,
        aclrtMallocAlign32,
        aclrtMemcpyAsync,
        aclrtMemset,
    )
    from stream_helpers import PinnedBuffer, gated, reporter

    model = add_relu_add(width=64)  # a 256-byte input
    model_id = load(compile_model(model, tmp_path, "wide"))
    x = np.random.default_rng(7).standard_normal((1, 64)).astype(np.float32)
    outs = DeviceBuffers([np.zeros((1, 64), np.float32)])
    whole = DeviceBuffers([x], sizes=[192])  # says 192 bytes; its allocation (aclrtMalloc: padded) has all 256
    # An allocation of exactly 192 bytes (no rounding to read past) in a block that held other data before: what
    # lies past its end in the block is not zeros.
    used, ret = aclrtMalloc(400, 0)
    assert ret == ACL_SUCCESS and aclrtMemset(used, 400, 0x7F, 400) == ACL_SUCCESS and aclrtFree(used) == 0
    short, ret = aclrtMallocAlign32(192, 0)
    assert ret == ACL_SUCCESS and short == used
    dataset = aclmdlCreateDataset()
    buffers = [aclCreateDataBuffer(short, 192)]
    assert aclmdlAddDatasetBuffer(dataset, buffers[0]) == ACL_SUCCESS
    too_short = DeviceBuffers([x], sizes=[191])
    pinned = PinnedBuffer(192)
    try:
        assert aclmdlExecute(model_id, whole.dataset, outs.dataset) == ACL_SUCCESS, aclGetRecentErrMsg()
        np.testing.assert_allclose(outs.read()[0], reference(model, {"x": x})[0], **EXACT)
        # The allocation ends 64 bytes early: those are zeros. Queued behind the copy that fills the buffer, the
        # execution reads what the copy wrote, not what the buffer held at the call.
        pinned.array[:] = x.view(np.uint8).reshape(-1)[:192]
        with reporter() as serving, gated(stream, serving) as gate:
            assert aclrtMemcpyAsync(short, 192, pinned.address, 192, ACL_MEMCPY_HOST_TO_DEVICE, stream) == 0
            assert aclmdlExecuteAsync(model_id, dataset, outs.dataset, stream) == ACL_SUCCESS, aclGetRecentErrMsg()
            gate.open()
            assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
        head = x.copy()
        head[:, 48:] = 0
        np.testing.assert_allclose(outs.read()[0], reference(model, {"x": head})[0], **EXACT)
        assert aclmdlExecute(model_id, too_short.dataset, outs.dataset) == ACL_ERROR_GE_FAILURE
        message = aclGetRecentErrMsg()
        assert message.startswith("E13025: Input tensor is invalid") and "191 bytes" in message, message
        assert "256 bytes" in message and "aclmdlGetInputSizeByIndex" in message, message
    finally:
        pinned.free()
        aclDestroyDataBuffer(buffers[0])
        aclmdlDestroyDataset(dataset)
        aclrtFree(short)
        for b in (outs, whole, too_short):
            b.close()
        assert aclmdlUnload(model_id) == ACL_SUCCESS


def test_buffer_must_be_device_memory_large_enough(add_model: tuple[int, onnx.ModelProto]) -> None:
    from ascendcl import aclCreateDataBuffer, aclDestroyDataBuffer, aclmdlAddDatasetBuffer, aclmdlCreateDataset

    model_id, _ = add_model
    host = np.zeros((1, 16), np.float32)
    outs = DeviceBuffers([host])
    dataset = aclmdlCreateDataset()
    buffer = aclCreateDataBuffer(host.ctypes.data, host.nbytes)  # host memory: not for the device
    assert aclmdlAddDatasetBuffer(dataset, buffer) == ACL_SUCCESS
    assert aclmdlExecute(model_id, dataset, outs.dataset) == ACL_ERROR_GE_PARAM_INVALID
    assert "not device memory" in aclGetRecentErrMsg()
    # a buffer whose size claims more than its device allocation holds: no reading past it
    lying = DeviceBuffers([np.zeros((1, 8), np.float32)], sizes=[64])
    assert aclmdlExecute(model_id, lying.dataset, outs.dataset) == ACL_ERROR_GE_PARAM_INVALID
    assert "has only 32 bytes" in aclGetRecentErrMsg()
    aclDestroyDataBuffer(buffer)
    from ascendcl import aclmdlDestroyDataset

    aclmdlDestroyDataset(dataset)
    outs.close()
    lying.close()


def test_node_without_kernel_fails_the_load_naming_it(tmp_path: Path, device: int) -> None:
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="the_relu")], "nokernel",
                              [tensor("x", [1, 4])], [tensor("y", [1, 4])])
    image = bytearray(compile_model(helper.make_model(graph, opset_imports=OPSET), tmp_path, "m").read_bytes())
    at = image.find(b"\x00Relu\x00")
    assert at > 0
    image[at + 1:at + 5] = b"Nope"  # an op type no kernel serves
    image[81] = 1  # is_checksum = 1: no checksum (docs/om-format.md §2)
    import ascendsim

    before = ascendsim.memory_stats(0)["allocated_bytes"]
    kept = bytes(image)  # named: a temporary would be freed before the load reads it
    _, ret = aclmdlLoadFromMem(acl.util.bytes_to_ptr(kept), len(kept))
    assert ret == ACL_ERROR_GE_EXEC_LOAD_KERNEL_PARTITION_FAILED
    assert "node 'the_relu' (Nope): no kernel for op type 'Nope'" in aclGetRecentErrMsg()
    assert ascendsim.memory_stats(0)["allocated_bytes"] == before  # the failed load released what it took


def test_view_nodes_are_elided(tmp_path: Path, device: int) -> None:
    c = np.arange(12, dtype=np.float32).reshape(1, 12)
    nodes = [helper.make_node("Add", ["x", "c"], ["a"], name="add"),
             helper.make_node("Reshape", ["a", "s"], ["r"], name="reshape"),
             helper.make_node("Relu", ["r"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "view", [tensor("x", [1, 12])], [tensor("y", [3, 4])],
                              [const("c", c), const("s", np.array([3, 4], np.int64))])
    model = helper.make_model(graph, opset_imports=OPSET)
    path = compile_model(model, tmp_path, "view")
    model_id = load(path)
    x = np.linspace(-10, 3, 12, dtype=np.float32).reshape(1, 12)
    expected = reference(model, {"x": x})
    np.testing.assert_allclose(execute_once(model_id, [x], expected)[0], expected[0], **EXACT)
    assert aclmdlUnload(model_id) == ACL_SUCCESS
    # The Reshape is a VIEW whose output coincides with its input: the executor leaves it out, so even an op
    # type without kernel in its place loads and runs.
    image = bytearray(path.read_bytes())
    at = image.find(b"\x00Reshape\x00")
    assert at > 0
    image[at + 1:at + 8] = b"NoSuchO"
    image[81] = 1  # no checksum
    kept = bytes(image)  # named: a temporary would be freed before the load reads it
    model_id, ret = aclmdlLoadFromMem(acl.util.bytes_to_ptr(kept), len(kept))
    assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
    np.testing.assert_allclose(execute_once(model_id, [x], expected)[0], expected[0], **EXACT)
    assert aclmdlUnload(model_id) == ACL_SUCCESS


def test_force_fp16_rounds_outputs_after_each_node(tmp_path: Path, device: int) -> None:
    model = add_relu_add()
    model_id = load(compile_model(model, tmp_path, "fp16", precision_mode="force_fp16"))
    x = np.random.default_rng(3).standard_normal((1, 16)).astype(np.float32)
    got = execute_once(model_id, [x], [x])[0]
    assert np.array_equal(got, got.astype(np.float16).astype(np.float32))  # every value is an fp16 value
    np.testing.assert_allclose(got, reference(model, {"x": x})[0], rtol=2e-3, atol=2e-3)
    assert aclmdlUnload(model_id) == ACL_SUCCESS


@pytest.mark.parametrize("mode", ["async", "sync"])
def test_two_threads_execute_the_same_model_at_once(add_model: tuple[int, onnx.ModelProto], mode: str) -> None:
    model_id, model = add_model

    def feeds(rng: np.random.Generator) -> list[dict[str, np.ndarray]]:
        return [{"x": rng.standard_normal((1, 16)).astype(np.float32)} for _ in range(50)]

    def check(label: str, feed: dict[str, np.ndarray], output: np.ndarray) -> None:
        np.testing.assert_allclose(output, reference(model, feed)[0], **EXACT, err_msg=label)

    assert execute_from_two_threads(model_id, mode, feeds, output_shape=(1, 16), check=check, timeout=60) == []


def test_dynamic_batch_gears(tmp_path: Path, device: int) -> None:
    from ascendcl import aclmdlSetDynamicBatchSize

    model = add_relu_add(batch="N")
    model_id = load(compile_model(model, tmp_path, "batch", input_shape="x:-1,16", dynamic_batch_size="1,2,4"))
    rng = np.random.default_rng(5)
    x_max = np.zeros((4, 16), np.float32)
    ins = DeviceBuffers([x_max, np.zeros(1, np.int32)])
    outs = DeviceBuffers([np.zeros((4, 16), np.float32)])
    try:
        for batch in (2, 1, 4):
            x = rng.standard_normal((batch, 16)).astype(np.float32)
            ins.write(0, x)
            assert aclmdlSetDynamicBatchSize(model_id, ins.dataset, 1, batch) == ACL_SUCCESS, aclGetRecentErrMsg()
            assert aclmdlExecute(model_id, ins.dataset, outs.dataset) == ACL_SUCCESS, aclGetRecentErrMsg()
            got = outs.read()[0][:batch]
            np.testing.assert_allclose(got, reference(model, {"x": x})[0], **EXACT)
        assert aclmdlSetDynamicBatchSize(model_id, ins.dataset, 1, 3) == ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID
        assert "not one of the model's gears" in aclGetRecentErrMsg()
        assert aclmdlSetDynamicBatchSize(model_id, ins.dataset, 0, 2) == ACL_ERROR_GE_PARAM_INVALID
        ins.write(1, np.array([3], np.int32))  # a gear written by hand that the model does not have
        assert aclmdlExecute(model_id, ins.dataset, outs.dataset) == ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID
        # GE skips its input size rule for gear models: a buffer sized for batch 1 runs gear 4
        small = DeviceBuffers([x_max, np.zeros(1, np.int32)], sizes=[64, 4])
        assert aclmdlSetDynamicBatchSize(model_id, small.dataset, 1, 4) == ACL_SUCCESS
        assert aclmdlExecute(model_id, small.dataset, outs.dataset) == ACL_SUCCESS, aclGetRecentErrMsg()
        small.close()
    finally:
        ins.close()
        outs.close()
        assert aclmdlUnload(model_id) == ACL_SUCCESS


def test_load_with_user_memory_uses_exactly_that_memory(tmp_path: Path, device: int) -> None:
    import ascendsim
    from ascendcl import (
        ACL_MEM_MALLOC_HUGE_FIRST,
        aclmdlLoadFromFileWithMem,
        aclmdlLoadFromMemWithMem,
        aclmdlQuerySize,
        aclrtFree,
        aclrtMalloc,
    )

    model = add_relu_add(width=256)
    path = compile_model(model, tmp_path, "mem", disabled_passes=["elementwise_fusion"])
    work_size, weight_size, ret = aclmdlQuerySize(str(path))
    assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
    assert work_size > 0 and weight_size > 0
    work, ret = aclrtMalloc(work_size, ACL_MEM_MALLOC_HUGE_FIRST)
    weight, ret2 = aclrtMalloc(weight_size, ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == ret2 == ACL_SUCCESS
    before = ascendsim.memory_stats(0)["allocation_count"]
    model_id, ret = aclmdlLoadFromFileWithMem(str(path), work, work_size, weight, weight_size)
    assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
    assert ascendsim.memory_stats(0)["allocation_count"] == before  # no allocation of its own
    x = np.random.default_rng(6).standard_normal((1, 256)).astype(np.float32)
    expected = reference(model, {"x": x})
    np.testing.assert_allclose(execute_once(model_id, [x], expected)[0], expected[0], **EXACT)
    # the weights live in the user's weight memory
    from ascendcl import ACL_MEMCPY_DEVICE_TO_HOST, aclrtMemcpy

    host = np.empty(weight_size, np.uint8)
    assert aclrtMemcpy(host.ctypes.data, weight_size, weight, weight_size, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS
    c1 = onnx.numpy_helper.to_array(model.graph.initializer[0]).tobytes()
    assert c1 in host.tobytes()
    # concurrent executions in user memory are serialised on it (still correct)
    errors: list[str] = []
    context, _ = aclrtGetCurrentContext()

    def worker() -> None:
        aclrtSetCurrentContext(context)
        for _ in range(20):
            got = execute_once(model_id, [x], expected)[0]
            if not np.allclose(got, expected[0], **EXACT):
                errors.append("wrong result")

    before = ascendsim.memory_stats(0)["allocation_count"]
    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert ascendsim.memory_stats(0)["allocation_count"] == before + 2 * 20 * 2  # only the test's own buffers
    assert aclmdlUnload(model_id) == ACL_SUCCESS
    # too small, or not device memory
    image = path.read_bytes()
    _, ret = aclmdlLoadFromMemWithMem(acl.util.bytes_to_ptr(image), len(image), work, work_size - 1, weight,
                                      weight_size)
    assert ret == ACL_ERROR_GE_PARAM_INVALID
    assert f"workSize {work_size - 1} is smaller than the {work_size} bytes" in aclGetRecentErrMsg()
    host_work = np.zeros(work_size, np.uint8)
    _, ret = aclmdlLoadFromFileWithMem(str(path), host_work.ctypes.data, work_size, weight, weight_size)
    assert ret != ACL_SUCCESS
    assert "is not device memory" in aclGetRecentErrMsg()
    assert aclrtFree(work) == ACL_SUCCESS and aclrtFree(weight) == ACL_SUCCESS


def test_load_with_config_and_execute_v2(tmp_path: Path, device: int, stream: int) -> None:
    import ctypes

    from ascendcl import (
        ACL_MDL_LOAD_FROM_FILE,
        ACL_MDL_LOAD_TYPE_SIZET,
        ACL_MDL_PATH_PTR,
        ACL_MDL_STREAM_SYNC_TIMEOUT,
        aclmdlCreateConfigHandle,
        aclmdlCreateExecConfigHandle,
        aclmdlDestroyConfigHandle,
        aclmdlDestroyExecConfigHandle,
        aclmdlExecuteAsyncV2,
        aclmdlExecuteV2,
        aclmdlLoadWithConfig,
        aclmdlSetConfigOpt,
        aclmdlSetExecConfigOpt,
    )

    model = add_relu_add()
    path = compile_model(model, tmp_path, "cfg")
    handle = aclmdlCreateConfigHandle()
    load_type = ctypes.c_size_t(ACL_MDL_LOAD_FROM_FILE)
    path_bytes = ctypes.create_string_buffer(str(path).encode())
    path_ptr = ctypes.c_void_p(ctypes.addressof(path_bytes))
    assert aclmdlSetConfigOpt(handle, ACL_MDL_LOAD_TYPE_SIZET, ctypes.addressof(load_type), 8) == ACL_SUCCESS
    assert aclmdlSetConfigOpt(handle, ACL_MDL_LOAD_TYPE_SIZET, ctypes.addressof(load_type), 4) == \
        ACL_ERROR_INVALID_PARAM
    model_id, ret = aclmdlLoadWithConfig(handle)
    assert ret == ACL_ERROR_INVALID_PARAM and "ACL_MDL_PATH_PTR" in aclGetRecentErrMsg()
    assert aclmdlSetConfigOpt(handle, ACL_MDL_PATH_PTR, ctypes.addressof(path_ptr), 8) == ACL_SUCCESS
    model_id, ret = aclmdlLoadWithConfig(handle)
    assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
    assert aclmdlDestroyConfigHandle(handle) == ACL_SUCCESS

    exec_config = aclmdlCreateExecConfigHandle()
    timeout = ctypes.c_int32(5000)
    assert aclmdlSetExecConfigOpt(exec_config, ACL_MDL_STREAM_SYNC_TIMEOUT, ctypes.addressof(timeout), 4) == \
        ACL_SUCCESS
    x = np.linspace(-3, 3, 16, dtype=np.float32).reshape(1, 16)
    expected = reference(model, {"x": x})[0]
    ins, outs = DeviceBuffers([x]), DeviceBuffers([np.zeros_like(x)])
    assert aclmdlExecuteV2(model_id, ins.dataset, outs.dataset, stream, exec_config) == ACL_SUCCESS
    np.testing.assert_allclose(outs.read()[0], expected, **EXACT)
    outs.write(0, np.zeros_like(x))
    assert aclmdlExecuteAsyncV2(model_id, ins.dataset, outs.dataset, stream, exec_config) == ACL_SUCCESS
    assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
    np.testing.assert_allclose(outs.read()[0], expected, **EXACT)
    assert aclmdlDestroyExecConfigHandle(exec_config) == ACL_SUCCESS
    assert aclmdlDestroyExecConfigHandle(exec_config) == ACL_ERROR_INVALID_PARAM
    ins.close()
    outs.close()
    assert aclmdlUnload(model_id) == ACL_SUCCESS


def test_cur_output_dims_follow_the_gear(tmp_path: Path, device: int) -> None:
    from ascendcl import (
        aclmdlCreateDesc,
        aclmdlDestroyDesc,
        aclmdlGetCurOutputDims,
        aclmdlGetDesc,
        aclmdlSetDynamicBatchSize,
    )

    model_id = load(compile_model(add_relu_add(batch="N"), tmp_path, "cur", input_shape="x:-1,16",
                                  dynamic_batch_size="1,2,4"))
    desc = aclmdlCreateDesc()
    ret = aclmdlGetDesc(desc, model_id)
    if ret == ACL_ERROR_API_NOT_SUPPORT:
        aclmdlUnload(model_id)
        pytest.skip("aclmdlGetDesc is not implemented yet")
    assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
    ins = DeviceBuffers([np.zeros((4, 16), np.float32), np.zeros(1, np.int32)])
    outs = DeviceBuffers([np.zeros((4, 16), np.float32)])
    for batch in (2, 4, 1):
        assert aclmdlSetDynamicBatchSize(model_id, ins.dataset, 1, batch) == ACL_SUCCESS
        assert aclmdlExecute(model_id, ins.dataset, outs.dataset) == ACL_SUCCESS
        dims, ret = aclmdlGetCurOutputDims(desc, 0)
        assert ret == ACL_SUCCESS
        assert dims["dims"] == [batch, 16]
    _, ret = aclmdlGetCurOutputDims(desc, 5)
    assert ret == ACL_ERROR_INVALID_PARAM
    ins.close()
    outs.close()
    assert aclmdlDestroyDesc(desc) == ACL_SUCCESS
    assert aclmdlUnload(model_id) == ACL_SUCCESS


def test_per_node_timing_subscriber(tmp_path: Path) -> None:
    from acl_helpers import run_python

    path = compile_model(add_relu_add(), tmp_path, "timing", disabled_passes=["elementwise_fusion"])
    code = f"""
        import numpy as np, sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from exec_helpers import DeviceBuffers
        from ascendcl import aclInit, aclrtSetDevice, aclmdlLoadFromFile, aclmdlExecute, aclmdlUnload
        aclInit(""); aclrtSetDevice(0)
        model_id, ret = aclmdlLoadFromFile({str(path)!r}); assert ret == 0
        ins, outs = DeviceBuffers([np.ones((1, 16), np.float32)]), DeviceBuffers([np.zeros((1, 16), np.float32)])
        for _ in range(10):
            assert aclmdlExecute(model_id, ins.dataset, outs.dataset) == 0
        assert aclmdlUnload(model_id) == 0
    """
    result = run_python(code, env={"ASCENDSIM_NODE_TIMING": "1"})
    assert result.returncode == 0, result.stderr
    assert "model 'add_relu_add' plan 0: 10 executions" in result.stderr
    assert "add1 (Add)" in result.stderr and "add2 (Add)" in result.stderr
    quiet = run_python(code)
    assert quiet.returncode == 0 and "executions" not in quiet.stderr


def test_dynamic_hw_and_dynamic_dims(tmp_path: Path, device: int) -> None:
    from model_helpers import conv_model, two_input_model

    from ascendcl import aclmdlSetDynamicHWSize, aclmdlSetInputDynamicDims

    rng = np.random.default_rng(7)
    hw_model = conv_model(batch=1, height="h", width="w")
    model_id = load(compile_model(hw_model, tmp_path, "hw", input_shape="x:1,3,-1,-1",
                                  dynamic_image_size="8,8;16,12"))
    ins = DeviceBuffers([np.zeros((1, 3, 16, 12), np.float32), np.zeros(2, np.int32)])
    outs = DeviceBuffers([np.zeros((1, 4, 16, 12), np.float32)])
    for h, w in ((16, 12), (8, 8)):
        x = rng.standard_normal((1, 3, h, w)).astype(np.float32)
        ins.write(0, x)
        assert aclmdlSetDynamicHWSize(model_id, ins.dataset, 1, h, w) == ACL_SUCCESS, aclGetRecentErrMsg()
        assert aclmdlExecute(model_id, ins.dataset, outs.dataset) == ACL_SUCCESS, aclGetRecentErrMsg()
        got = outs.read()[0].reshape(-1)[:4 * h * w].reshape(1, 4, h, w)
        np.testing.assert_allclose(got, reference(hw_model, {"x": x})[0], **REDUCE)
    assert aclmdlSetDynamicHWSize(model_id, ins.dataset, 1, 8, 12) == ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID
    ins.close()
    outs.close()
    assert aclmdlUnload(model_id) == ACL_SUCCESS

    dims_model = two_input_model()
    model_id = load(compile_model(dims_model, tmp_path, "dims", input_shape="a:-1,-1,8;b:-1,1,4",
                                  dynamic_dims="1,4,1;2,8,2;4,2,4"))
    ins = DeviceBuffers([np.zeros((4, 8, 8), np.float32), np.zeros((4, 1, 4), np.float32), np.zeros(3, np.int32)])
    outs = DeviceBuffers([np.zeros((4, 8, 4), np.float32)])
    for n, m in ((2, 8), (4, 2)):
        a = rng.standard_normal((n, m, 8)).astype(np.float32)
        b = rng.standard_normal((n, 1, 4)).astype(np.float32)
        ins.write(0, a)
        ins.write(1, b)
        dims = {"name": "", "dimCount": 6, "dims": [n, m, 8, n, 1, 4]}
        assert aclmdlSetInputDynamicDims(model_id, ins.dataset, 2, dims) == ACL_SUCCESS, aclGetRecentErrMsg()
        assert aclmdlExecute(model_id, ins.dataset, outs.dataset) == ACL_SUCCESS, aclGetRecentErrMsg()
        got = outs.read()[0].reshape(-1)[:n * m * 4].reshape(n, m, 4)
        np.testing.assert_allclose(got, reference(dims_model, {"a": a, "b": b})[0], **REDUCE)
    bad = {"name": "", "dimCount": 6, "dims": [3, 3, 8, 3, 1, 4]}
    assert aclmdlSetInputDynamicDims(model_id, ins.dataset, 2, bad) == ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID
    short = {"name": "", "dimCount": 2, "dims": [2, 8]}
    assert aclmdlSetInputDynamicDims(model_id, ins.dataset, 2, short) == ACL_ERROR_GE_PARAM_INVALID
    ins.close()
    outs.close()
    assert aclmdlUnload(model_id) == ACL_SUCCESS


def test_load_stages_are_timed_in_the_debug_log(tmp_path: Path) -> None:
    from acl_helpers import run_python

    path = compile_model(add_relu_add(), tmp_path, "stages")
    code = f"""
        from ascendcl import aclInit, aclrtSetDevice, aclmdlLoadFromFile, aclmdlUnload
        aclInit(""); aclrtSetDevice(0)
        model_id, ret = aclmdlLoadFromFile({str(path)!r}); assert ret == 0
        assert aclmdlUnload(model_id) == 0
    """
    result = run_python(code, env={"ASCEND_GLOBAL_LOG_LEVEL": "0", "ASCEND_SLOG_PRINT_TO_STDOUT": "1"})
    assert result.returncode == 0, result.stderr
    log = result.stdout + result.stderr
    for stage in ("stage model memory", "stage I/O nodes", "stage nodes", "stage task sink"):
        assert stage in log, log


def test_pyacl_face(tmp_path: Path, device: int, stream: int) -> None:
    model = add_relu_add()
    path = compile_model(model, tmp_path, "pyacl")
    model_id, ret = acl.mdl.load_from_file(str(path))
    if ret == ACL_ERROR_GE_EXEC_LOAD_KERNEL_PARTITION_FAILED:
        pytest.skip(aclGetRecentErrMsg())
    assert ret == ACL_SUCCESS
    x = np.linspace(-1, 1, 16, dtype=np.float32).reshape(1, 16)
    expected = reference(model, {"x": x})[0]
    ins, outs = DeviceBuffers([x]), DeviceBuffers([np.zeros_like(x)])
    assert acl.mdl.execute(model_id, ins.dataset, outs.dataset) == ACL_SUCCESS
    np.testing.assert_allclose(outs.read()[0], expected, **EXACT)
    outs.write(0, np.zeros_like(x))
    assert acl.mdl.execute_async(model_id, ins.dataset, outs.dataset, stream) == ACL_SUCCESS
    assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
    np.testing.assert_allclose(outs.read()[0], expected, **EXACT)
    ins.close()
    outs.close()
    assert acl.mdl.unload(model_id) == ACL_SUCCESS
    assert acl.mdl.unload(model_id) == ACL_ERROR_GE_EXEC_MODEL_ID_INVALID


def test_unload_while_executions_are_queued(tmp_path: Path, device: int, stream: int) -> None:
    from stream_helpers import gated, reporter

    model = add_relu_add()
    model_id = load(compile_model(model, tmp_path, "queued"))
    x = np.linspace(-2, 2, 16, dtype=np.float32).reshape(1, 16)
    ins, outs = DeviceBuffers([x]), DeviceBuffers([np.zeros_like(x)])
    with reporter() as serving:
        serving.subscribe(stream)
        with gated(stream, serving) as gate:  # hold the stream so the execution is still queued at unload
            assert aclmdlExecuteAsync(model_id, ins.dataset, outs.dataset, stream) == ACL_SUCCESS
            assert aclmdlUnload(model_id) == ACL_SUCCESS
            gate.open()
        assert aclrtSynchronizeStream(stream) == ACL_SUCCESS
    np.testing.assert_allclose(outs.read()[0], reference(model, {"x": x})[0], **EXACT)
    assert aclmdlExecuteAsync(model_id, ins.dataset, outs.dataset, stream) == ACL_ERROR_GE_EXEC_MODEL_ID_INVALID
    ins.close()
    outs.close()
