"""Dynamic-shape models on the v2 runtime (docs/runtime.md "Dynamic shapes"), against onnxruntime: a conv net
with dynamic batch and H/W, a BERT-style encoder with dynamic batch and sequence length (Reshape targets
computed from shapes, Gather embeddings, the attention mask), an unknown-rank input, ranges and their errors,
many shapes in a row (a repeat allocates nothing new), two threads at once, the three executors, and the
model description (-1 dims, ranges, output size 0)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import onnx
import pytest
from dynamic_models import bert_feeds, elementwise_any_rank, index_ops, tiny_bert, tiny_convnet
from dynamic_shape_helpers import execute_dynamic, output_dims, set_input_descs
from exec_helpers import DeviceBuffers, compile_model, reference

import acl
import ascendsim
import ascendsim.profiling
from ascendcl import (
    ACL_ERROR_GE_PARAM_INVALID,
    ACL_ERROR_GE_SHAPE_INVALID,
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_SUCCESS,
    aclCreateDataBuffer,
    aclDestroyDataBuffer,
    aclGetDataBufferAddr,
    aclGetDataBufferSizeV2,
    aclGetRecentErrMsg,
    aclmdlAddDatasetBuffer,
    aclmdlCreateDataset,
    aclmdlDestroyDataset,
    aclmdlExecute,
    aclmdlExecuteAsync,
    aclmdlLoadFromFile,
    aclmdlLoadFromFileWithMem,
    aclmdlQuerySize,
    aclmdlUnload,
    aclrtFree,
    aclrtMalloc,
    aclrtMemcpy,
    aclrtSynchronizeStream,
)
from ascendsim.compiler.om_reader import read_om

TOL = {"rtol": 1e-4, "atol": 1e-4}
BERT_SHAPE = "input_ids:-1,-1;attention_mask:-1,-1;token_type_ids:-1,-1"


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[onnx.ModelProto, Path]]:
    directory = tmp_path_factory.mktemp("dynamic")
    conv, bert, any_rank = tiny_convnet(), tiny_bert(), elementwise_any_rank()
    return {"conv": (conv, compile_model(conv, directory, "conv", input_shape="image:-1,3,-1,-1")),
            "conv_range": (conv, compile_model(conv, directory, "conv_range", input_shape="image:1~4,3,8~32,8~32")),
            "bert": (bert, compile_model(bert, directory, "bert", input_shape=BERT_SHAPE)),
            "any": (any_rank, compile_model(any_rank, directory, "any", input_shape="x:-2")),
            "index": (index_ops(), compile_model(index_ops(), directory, "index", input_shape="x:-1,-1"))}


@pytest.fixture
def loaded(device: int, models: dict[str, tuple[onnx.ModelProto, Path]], request: pytest.FixtureRequest):
    ids: dict[str, int] = {}

    def load(key: str) -> int:
        model_id, ret = aclmdlLoadFromFile(str(models[key][1]))
        assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
        ids[key] = model_id
        return model_id

    yield load
    for model_id in ids.values():
        assert aclmdlUnload(model_id) == ACL_SUCCESS


def bert_inputs(batch: int, seq: int) -> list[np.ndarray]:
    feeds = bert_feeds(batch, seq)
    return [feeds["input_ids"], feeds["attention_mask"], feeds["token_type_ids"]]


def test_conv_net_dynamic_batch_and_hw(models, loaded) -> None:
    model_id = loaded("conv")
    rng = np.random.default_rng(1)
    for n, h, w in [(1, 16, 16), (3, 20, 28), (2, 9, 13), (1, 16, 16)]:
        x = rng.standard_normal((n, 3, h, w)).astype(np.float32)
        ret, (got,) = execute_dynamic(model_id, [x], [(np.float32, 64)])
        assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
        np.testing.assert_allclose(got, reference(models["conv"][0], {"image": x})[0], **TOL)


def test_bert_dynamic_batch_and_sequence(models, loaded) -> None:
    model_id = loaded("bert")
    for batch, seq in [(1, 8), (2, 13), (1, 40), (3, 5)]:
        inputs = bert_inputs(batch, seq)
        ret, (got,) = execute_dynamic(model_id, inputs, [(np.float32, 4096)])
        assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
        assert got.shape == (batch, seq, 32)
        want = reference(models["bert"][0], dict(zip(["input_ids", "attention_mask", "token_type_ids"], inputs)))[0]
        np.testing.assert_allclose(got, want, **TOL)


def test_unknown_rank_input_runs_at_any_rank(models, loaded) -> None:
    model_id = loaded("any")
    rng = np.random.default_rng(2)
    for shape in [(2, 3, 4), (5,), (2, 1, 3, 2), ()]:
        x = rng.standard_normal(shape).astype(np.float32)
        ret, (got,) = execute_dynamic(model_id, [x], [(np.float32, 64)])
        assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
        np.testing.assert_allclose(got, np.maximum(x * 2 + 1, 0), rtol=1e-6)


def test_async_execution_reports_dims_after_the_stream(models, loaded, stream: int) -> None:
    model_id = loaded("conv")
    x = np.random.default_rng(3).standard_normal((2, 3, 12, 18)).astype(np.float32)
    ins, outs = DeviceBuffers([x]), DeviceBuffers([np.zeros(40, np.float32)])
    try:
        set_input_descs(ins, [x])
        assert aclmdlExecuteAsync(model_id, ins.dataset, outs.dataset, stream) == ACL_SUCCESS, aclGetRecentErrMsg()
        assert aclrtSynchronizeStream(stream) == ACL_SUCCESS, aclGetRecentErrMsg()
        assert output_dims(outs, 0) == [2, 5]
        got = outs.read()[0][:10].reshape(2, 5)
        np.testing.assert_allclose(got, reference(models["conv"][0], {"image": x})[0], **TOL)
    finally:
        ins.close()
        outs.close()


def test_null_output_buffer_is_allocated_by_the_runtime(models, loaded, stream: int) -> None:
    """aclmdlGetOutputSizeByIndex is 0: CANN's first way out is a NULL data buffer of size 0, which
    aclmdlExecute (and aclmdlExecuteV2) fill with memory the runtime allocates and the user frees."""
    model_id = loaded("conv")
    x = np.random.default_rng(4).standard_normal((3, 3, 10, 10)).astype(np.float32)
    ins = DeviceBuffers([x])
    dataset = aclmdlCreateDataset()
    buffer = aclCreateDataBuffer(0, 0)
    assert aclmdlAddDatasetBuffer(dataset, buffer) == ACL_SUCCESS
    try:
        set_input_descs(ins, [x])
        assert aclmdlExecuteAsync(model_id, ins.dataset, dataset, stream) == ACL_ERROR_GE_PARAM_INVALID
        assert "supported by aclmdlExecute and aclmdlExecuteV2 only" in aclGetRecentErrMsg()
        assert aclmdlExecute(model_id, ins.dataset, dataset) == ACL_SUCCESS, aclGetRecentErrMsg()
        addr, size = aclGetDataBufferAddr(buffer), aclGetDataBufferSizeV2(buffer)
        assert addr != 0 and size == 3 * 5 * 4
        got = np.empty((3, 5), np.float32)
        assert aclrtMemcpy(got.ctypes.data, got.nbytes, addr, size, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS
        np.testing.assert_allclose(got, reference(models["conv"][0], {"image": x})[0], **TOL)
        assert aclrtFree(addr) == ACL_SUCCESS  # the user's to free
    finally:
        aclDestroyDataBuffer(buffer)
        aclmdlDestroyDataset(dataset)
        ins.close()


def test_load_with_user_weight_memory(models, device: int) -> None:
    """A dynamic-shape model needs no work memory (its feature maps come from the allocator); its weights go
    into the user's weight memory when one is given."""
    path = str(models["conv"][1])
    work_size, weight_size, ret = aclmdlQuerySize(path)
    assert ret == ACL_SUCCESS and work_size == 0 and weight_size > 0
    weight, ret = aclrtMalloc(weight_size, ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == ACL_SUCCESS
    model_id, ret = aclmdlLoadFromFileWithMem(path, 0, 0, weight, weight_size)
    assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
    try:
        x = np.random.default_rng(6).standard_normal((2, 3, 12, 12)).astype(np.float32)
        ret, (got,) = execute_dynamic(model_id, [x], [(np.float32, 10)])
        assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
        np.testing.assert_allclose(got, reference(models["conv"][0], {"image": x})[0], **TOL)
    finally:
        assert aclmdlUnload(model_id) == ACL_SUCCESS
        assert aclrtFree(weight) == ACL_SUCCESS  # the model never freed the user's memory


def test_padding_scan_and_index_ops(models, loaded) -> None:
    model_id = loaded("index")
    rng = np.random.default_rng(7)
    for n, c in [(3, 4), (1, 9), (5, 2)]:
        x = rng.standard_normal((n, c)).astype(np.float32)
        ret, got = execute_dynamic(model_id, [x], [(np.int64, 8), (np.float32, 8), (np.float32, 16)])
        assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
        want = reference(models["index"][0], {"x": x})
        np.testing.assert_array_equal(got[0], want[0])
        for g, w in zip(got[1:], want[1:]):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_ranges_and_their_errors(loaded) -> None:
    model_id = loaded("conv_range")
    ok = np.ones((4, 3, 32, 8), np.float32)
    assert execute_dynamic(model_id, [ok], [(np.float32, 64)])[0] == ACL_SUCCESS, aclGetRecentErrMsg()
    ret, _ = execute_dynamic(model_id, [np.ones((5, 3, 16, 16), np.float32)], [(np.float32, 64)])
    assert ret == ACL_ERROR_GE_PARAM_INVALID
    assert "input 0 ('image'): dim 0 is 5, outside the model's range [1, 4]" in aclGetRecentErrMsg()
    ret, _ = execute_dynamic(model_id, [np.ones((1, 3, 16, 40), np.float32)], [(np.float32, 64)])
    assert ret == ACL_ERROR_GE_PARAM_INVALID and "dim 3 is 40, outside the model's range [8, 32]" in aclGetRecentErrMsg()
    ret, _ = execute_dynamic(model_id, [np.ones((1, 4, 16, 16), np.float32)], [(np.float32, 64)])
    assert ret == ACL_ERROR_GE_PARAM_INVALID and "dim 1 is 4, outside the model's range 3" in aclGetRecentErrMsg()
    ret, _ = execute_dynamic(model_id, [np.ones((1, 3, 16), np.float32)], [(np.float32, 64)])
    assert ret == ACL_ERROR_GE_PARAM_INVALID and "have rank 3; the model's input [-1,3,-1,-1] has rank 4" in \
        aclGetRecentErrMsg()


def test_small_output_buffer_and_bad_shapes_are_refused(loaded) -> None:
    model_id = loaded("conv")
    ret, _ = execute_dynamic(model_id, [np.ones((4, 3, 16, 16), np.float32)], [(np.float32, 19)])
    assert ret == ACL_ERROR_GE_PARAM_INVALID
    assert "output 0 ('logits') of shape [4,5] needs 80 bytes; the output buffer has 76" in aclGetRecentErrMsg()
    ret, _ = execute_dynamic(model_id, [np.ones((1, 3, 2, 2), np.float32)], [(np.float32, 64)])  # below the window
    assert ret == ACL_ERROR_GE_SHAPE_INVALID
    assert "node '/AveragePool' (AveragePool): shape inference failed for inputs [1,8,1,1]" in aclGetRecentErrMsg()
    # without a description the dims are unknown
    ins, outs = DeviceBuffers([np.ones((1, 3, 8, 8), np.float32)]), DeviceBuffers([np.zeros(8, np.float32)])
    try:
        assert aclmdlExecute(model_id, ins.dataset, outs.dataset) == ACL_ERROR_GE_PARAM_INVALID
        assert "set its real dims with aclmdlSetDatasetTensorDesc" in aclGetRecentErrMsg()
    finally:
        ins.close()
        outs.close()
    # dims whose bytes overflow are refused before anything reads the buffer
    huge = acl.create_tensor_desc(0, [1 << 31, 3, 1 << 31, 1 << 31], 0)
    ins, outs = DeviceBuffers([np.ones((1, 3, 8, 8), np.float32)]), DeviceBuffers([np.zeros(8, np.float32)])
    try:
        assert acl.mdl.set_dataset_tensor_desc(ins.dataset, huge, 0)[1] == ACL_SUCCESS
        assert aclmdlExecute(model_id, ins.dataset, outs.dataset) == ACL_ERROR_GE_PARAM_INVALID
        assert "hold more bytes than a tensor can" in aclGetRecentErrMsg()
    finally:
        acl.destroy_tensor_desc(huge)
        ins.close()
        outs.close()
    # the model still runs afterwards
    assert execute_dynamic(model_id, [np.ones((1, 3, 8, 8), np.float32)], [(np.float32, 8)])[0] == ACL_SUCCESS


def test_repeated_shapes_allocate_nothing_new(loaded) -> None:
    model_id = loaded("bert")
    shapes = [(1, 8), (2, 16), (1, 8), (2, 16)]
    execute_dynamic(model_id, bert_inputs(*shapes[0]), [(np.float32, 4096)])
    execute_dynamic(model_id, bert_inputs(*shapes[1]), [(np.float32, 4096)])
    ascendsim.reset_peak_memory_stats(0)
    before = ascendsim.memory_stats(0)
    for batch, seq in shapes[2:] * 3:
        assert execute_dynamic(model_id, bert_inputs(batch, seq), [(np.float32, 4096)])[0] == ACL_SUCCESS
    after = ascendsim.memory_stats(0)
    assert after["reserved_bytes"] == before["reserved_bytes"]
    assert after["segment_count"] == before["segment_count"]
    assert after["allocated_bytes"] == before["allocated_bytes"]  # every feature map went back


def test_two_threads_at_once(models, loaded) -> None:
    model_id = loaded("bert")
    context, _ = acl.rt.get_context()
    failures: list[str] = []

    def work(seed: int) -> None:
        acl.rt.set_context(context)
        for k in range(4):
            batch, seq = 1 + (seed + k) % 2, 5 + 3 * seed + k
            inputs = bert_inputs(batch, seq)
            ret, outs = execute_dynamic(model_id, inputs, [(np.float32, 4096)])
            want = reference(models["bert"][0], dict(zip(["input_ids", "attention_mask", "token_type_ids"], inputs)))
            if ret != ACL_SUCCESS or not np.allclose(outs[0], want[0], **TOL):
                failures.append(f"thread {seed} shape {batch}x{seq}: {ret} {aclGetRecentErrMsg()}")

    threads = [threading.Thread(target=work, args=(s,)) for s in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


EXECUTORS_SCRIPT = """
import sys
sys.path[:0] = {paths!r}
import numpy as np
from ascendcl import (aclInit, aclFinalize, aclrtSetDevice, aclrtResetDevice, aclmdlLoadFromFile, aclmdlUnload,
                      aclGetRecentErrMsg)
from dynamic_shape_helpers import execute_dynamic, output_dims, set_input_descs
from dynamic_models import bert_feeds
assert aclInit("") == 0 and aclrtSetDevice(0) == 0
model_id, ret = aclmdlLoadFromFile({om!r})
assert ret == 0, aclGetRecentErrMsg()
for batch, seq in [(1, 8), (2, 11)]:
    f = bert_feeds(batch, seq)
    ret, (out,) = execute_dynamic(model_id, [f["input_ids"], f["attention_mask"], f["token_type_ids"]],
                                  [(np.float32, 4096)])
    assert ret == 0, aclGetRecentErrMsg()
    np.save({out!r} + f"_{{batch}}x{{seq}}.npy", out)
assert aclmdlUnload(model_id) == 0
assert aclrtResetDevice(0) == 0 and aclFinalize() == 0
"""


def test_three_executors_give_identical_results(models, tmp_path: Path) -> None:
    paths = [str(Path(__file__).parent), str(Path(__file__).parents[1])]
    results = {}
    for executor in ("sequential", "topological", "parallel"):
        out = str(tmp_path / executor)
        script = EXECUTORS_SCRIPT.format(paths=paths, om=str(models["bert"][1]), out=out)
        env = {**os.environ, "ASCENDSIM_V2_EXECUTOR": executor, "ASCENDSIM_NUM_THREADS": "2",
               "ASCENDSIM_NODE_TIMING": "1" if executor == "sequential" else "0"}
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env,
                              check=False)
        assert done.returncode == 0, done.stderr
        if executor == "sequential":  # ASCENDSIM_NODE_TIMING=1: each node's four steps at unload
            assert "(v2, sequential executor): 2 executions" in done.stderr, done.stderr
            assert "/embeddings/Slice (Slice): infer-shape " in done.stderr and ", launch " in done.stderr
        results[executor] = [np.load(f"{out}_{s}.npy") for s in ("1x8", "2x11")]
    for executor in ("topological", "parallel"):
        for got, want in zip(results[executor], results["sequential"]):
            np.testing.assert_array_equal(got, want)
    bad = subprocess.run([sys.executable, "-c", EXECUTORS_SCRIPT.format(paths=paths, om=str(models["bert"][1]),
                                                                         out=str(tmp_path / "bad"))],
                         capture_output=True, text=True, timeout=120, env={**os.environ, "ASCENDSIM_V2_EXECUTOR": "x"}, check=False)
    assert bad.returncode != 0 and "ASCENDSIM_V2_EXECUTOR='x' is not one of sequential, topological, parallel" in \
        bad.stderr


def test_profiling_shows_the_v2_steps(models, tmp_path: Path) -> None:
    """With profiling on, each execution is a "model" span holding a span per step: infer-shape, alloc,
    the launch (category "node", as v1's nodes, so the op summary counts it) and free, named after the node."""
    paths = [str(Path(__file__).parent), str(Path(__file__).parents[1])]
    script = EXECUTORS_SCRIPT.format(paths=paths, om=str(models["bert"][1]), out=str(tmp_path / "p"))
    output = tmp_path / "prof"
    output.mkdir()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "ASCENDSIM_PROFILE": str(output)}, check=False)
    assert done.returncode == 0, done.stderr
    [session] = ascendsim.profiling.sessions(output)
    events = [e for e in json.loads((session / "trace.json").read_text())["traceEvents"] if e.get("ph") == "X"]
    models_spans = [e for e in events if e["cat"] == "model"]
    assert len(models_spans) == 2  # two executions
    by_category = {cat: [e for e in events if e["cat"] == cat] for cat in ("infer-shape", "alloc", "node", "free")}
    nodes = len(read_om(models["bert"][1]).plans[0]["nodes"])
    assert all(len(spans) == 2 * nodes for spans in by_category.values()), {k: len(v) for k, v in by_category.items()}
    assert {e["args"]["op_type"] for e in by_category["node"]} >= {"MatMul", "Gather", "Reshape", "Softmax"}
    assert any(e["name"] == "/embeddings/Slice" for e in by_category["infer-shape"])


def test_description_of_a_dynamic_model(models, loaded) -> None:
    model_id = loaded("conv_range")
    desc = acl.mdl.create_desc()
    assert acl.mdl.get_desc(desc, model_id) == ACL_SUCCESS
    dims, ret = acl.mdl.get_input_dims(desc, 0)
    assert ret == ACL_SUCCESS and dims["dims"] == [-1, 3, -1, -1]
    ranges, ret = acl.mdl.get_input_dims_range(desc, 0)
    assert ret == ACL_SUCCESS and ranges["range"] == [[1, 4], [3, 3], [8, 32], [8, 32]]
    assert acl.mdl.get_input_size_by_index(desc, 0) == 4 * 3 * 32 * 32 * 4  # bounded: the largest shape
    assert acl.mdl.get_output_size_by_index(desc, 0) == 0  # the output's shape range is unknown
    out_dims, ret = acl.mdl.get_output_dims(desc, 0)
    assert ret == ACL_SUCCESS and out_dims["dims"] == [-1, 5]
    acl.mdl.destroy_desc(desc)


def test_shapes_from_values_follow_the_values(device: int, tmp_path: Path) -> None:
    """Regression (the steps' memos): a Reshape whose target is a model input changes its output's dims while
    every input keeps its dims; the nodes after it must infer again and take the kernel for the new dims."""
    from onnx import TensorProto, helper

    nodes = [helper.make_node("Reshape", ["x", "target"], ["r"]), helper.make_node("Relu", ["r"], ["a"]),
             helper.make_node("ReduceSum", ["a", "axes"], ["y"], keepdims=0)]
    graph = helper.make_graph(
        nodes, "reshape_by_value",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"]),
         helper.make_tensor_value_info("target", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["rows"])],
        [helper.make_tensor("axes", TensorProto.INT64, [1], [1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model_id, ret = aclmdlLoadFromFile(str(compile_model(model, tmp_path, "by_value", input_shape="x:-1;target:2")))
    assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
    try:
        x = np.arange(-5, 7, dtype=np.float32)
        for rows, cols in [(3, 4), (2, 6), (3, 4), (12, 1), (2, 6)]:
            ret, (y,) = execute_dynamic(model_id, [x, np.array([rows, cols], np.int64)], [(np.float32, 12)])
            assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
            np.testing.assert_array_equal(y, np.maximum(x.reshape(rows, cols), 0).sum(axis=1))
    finally:
        assert aclmdlUnload(model_id) == ACL_SUCCESS
