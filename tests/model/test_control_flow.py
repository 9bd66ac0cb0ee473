"""ONNX If and Loop (subgraphs) compiled by atc and run by the v2 runtime, against onnxruntime: an If whose
data-dependent condition picks branches with different output shapes, an If reading outer-scope tensors, a
Loop with a trip count and carried state (a matrix power) and scan outputs, a while loop whose carried value
grows, zero iterations, an If nested in a Loop; under the three executors (the results must be identical);
through pyACL, from C and from two threads at once; and the compile errors (an op without a runtime shape function inside a subgraph
names the node). About 3 s."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import control_flow_models as cf
import numpy as np
import onnx
import pytest
from dynamic_shape_helpers import execute_dynamic
from exec_helpers import compile_model, reference
from onnx import helper

import acl
from acl_helpers import TESTS, Compiler
from ascendcl import ACL_SUCCESS, aclGetRecentErrMsg, aclmdlLoadFromFile, aclmdlUnload
from ascendsim.compiler.errors import CompileError
from ascendsim.compiler.om_reader import read_om

X = np.arange(6, dtype=np.float32).reshape(2, 3) - 1.0
EYE = np.eye(3, dtype=np.float32)
CASES: dict[str, tuple[Any, list[dict[str, np.ndarray]]]] = {
    "if_shapes": (cf.if_shapes, [{"x": X, "w": -X}, {"x": -X, "w": X}]),
    "if_outer_scope": (cf.if_outer_scope, [{"flag": np.array(True), "x": np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)},
                                           {"flag": np.array(False), "x": np.ones((2, 4), np.float32)}]),
    "loop_matrix_power": (cf.loop_matrix_power, [
        {"M": np.array(4), "a": EYE * 0.5 + 0.25, "p0": EYE, "s0": np.array(1, np.float32)},
        {"M": np.array(0), "a": EYE, "p0": EYE * 3, "s0": np.array(2, np.float32)}]),  # zero iterations
    "loop_while": (cf.loop_while, [
        {"go": np.array(True), "x0": np.ones(2, np.float32), "limit": np.array(20, np.float32), "g0": np.zeros(1, np.float32)},
        {"go": np.array(False), "x0": np.ones(2, np.float32), "limit": np.array(20, np.float32),
         "g0": np.zeros(1, np.float32)}]),  # the condition false from the start: zero iterations
    "loop_nested_if": (cf.loop_nested_if, [
        {"M": np.array(6), "go": np.array(True), "acc0": np.ones(4, np.float32), "v": np.arange(4, dtype=np.float32),
         "limit": np.array(100, np.float32)},
        {"M": np.array(9), "go": np.array(True), "acc0": np.ones(4, np.float32),  # stops early on the condition
         "v": np.arange(4, dtype=np.float32) * 10, "limit": np.array(50, np.float32)}]),
}


def _run_all(model: onnx.ModelProto, om: Path, feeds: list[dict[str, np.ndarray]]) -> list[list[np.ndarray]]:
    model_id, ret = aclmdlLoadFromFile(str(om))
    assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
    results = []
    try:
        for feed in feeds:
            want = reference(model, feed)
            ret, got = execute_dynamic(model_id, [feed[i.name] for i in model.graph.input],
                                       [(w.dtype, max(w.size, 1)) for w in want])
            assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
            for g, w in zip(got, want):
                assert g.shape == w.shape
                np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
            results.append(got)
    finally:
        assert aclmdlUnload(model_id) == ACL_SUCCESS
    return results


@pytest.mark.parametrize("case", sorted(CASES))
def test_control_flow_against_onnxruntime_under_three_executors(case: str, device: int, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    make, feeds = CASES[case]
    model = make()
    om = compile_model(model, tmp_path, case)
    info = read_om(om)
    assert info.model["format_version"] == "1.5" and info.model["dynamic_shape"]  # v2 although inputs are static
    assert info.model["subgraph_count"] >= 1
    runs = {}
    for executor in ("sequential", "topological", "parallel"):  # read at load
        monkeypatch.setenv("ASCENDSIM_V2_EXECUTOR", executor)
        runs[executor] = _run_all(model, om, feeds)
    for executor in ("topological", "parallel"):
        for got, want in zip(runs[executor], runs["sequential"]):
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g, w)


def test_two_threads_run_one_control_flow_model(device: int, tmp_path: Path) -> None:
    """Each execution takes its own instance, with its own subgraph instances: two threads at once, each feed
    checked against onnxruntime."""
    make, feeds = CASES["loop_nested_if"]
    model = make()
    model_id, ret = aclmdlLoadFromFile(str(compile_model(model, tmp_path, "threads")))
    assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
    context, _ = acl.rt.get_context()
    wants = [reference(model, feed) for feed in feeds]
    failures: list[str] = []

    def work(first: int) -> None:
        acl.rt.set_context(context)
        for k in range(6):
            which = (first + k) % len(feeds)
            ret, got = execute_dynamic(model_id, [feeds[which][i.name] for i in model.graph.input],
                                       [(w.dtype, max(w.size, 1)) for w in wants[which]])
            if ret != ACL_SUCCESS or not all(np.allclose(g, w, rtol=1e-5, atol=1e-5) for g, w in zip(got, wants[which])):
                failures.append(f"thread {first} run {k}: {ret} {aclGetRecentErrMsg()}")

    try:
        threads = [threading.Thread(target=work, args=(first,)) for first in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        assert aclmdlUnload(model_id) == ACL_SUCCESS
    assert not failures


def test_if_from_c(compiler: Compiler, device: int, tmp_path: Path) -> None:
    model = cf.if_shapes()
    om = compile_model(model, tmp_path, "if_shapes")
    program = compiler.build(TESTS / "c" / "control_flow_flow.c")
    for x, rows in ((X, 2), (-X, 4)):
        np.concatenate([x, -x]).tofile(tmp_path / "in.bin")
        done = compiler.run(program, str(om), str(tmp_path / "in.bin"), str(tmp_path / "out.bin"))
        assert done.returncode == 0 and done.stdout.rstrip().endswith("ok"), done.stdout + done.stderr
        assert f"output dims 2: {rows},3" in done.stdout
        got = np.fromfile(tmp_path / "out.bin", np.float32).reshape(rows, 3)
        np.testing.assert_allclose(got, reference(model, {"x": x, "w": -x})[0], rtol=1e-6)


def test_unsupported_op_in_a_subgraph_names_the_node(tmp_path: Path) -> None:
    model = cf.if_shapes()
    then = next(a.g for a in model.graph.node[2].attribute if a.name == "then_branch")
    then.node[0].CopyFrom(helper.make_node("GatherND", ["x", "rows"], ["t"], name="gather_in_branch"))
    then.initializer.append(onnx.numpy_helper.from_array(np.array([[1], [0]], np.int64), "rows"))
    with pytest.raises(CompileError, match=r"node 'gather_in_branch' \(GatherND\): op GatherND has no runtime "
                                           r"shape function"):
        compile_model(model, tmp_path, "bad")


def test_static_and_dynamic_files_keep_their_format(tmp_path: Path) -> None:
    """Models without control flow keep formats 1.3 (static) and 1.4 (dynamic shape), with no subgraph table."""
    model = cf.if_outer_scope()
    plain = helper.make_model(helper.make_graph([helper.make_node("Tanh", ["x"], ["y"])], "g",
                                                [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["n", 4])],
                                                [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["n", 4])]),
                              opset_imports=model.opset_import)
    static = read_om(compile_model(plain, tmp_path, "s", input_shape="x:2,4"))
    dynamic = read_om(compile_model(plain, tmp_path, "d", input_shape="x:-1,4"))
    assert (static.model["format_version"], dynamic.model["format_version"]) == ("1.3", "1.4")
    assert static.model["subgraph_count"] == dynamic.model["subgraph_count"] == 0
