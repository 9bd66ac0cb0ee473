"""Peak feature-map memory of the v2 runtime (ascendsim.model_memory, ascendsimGetModelMemory) against the static
planner's arena for the same shape, on a graph whose peaks are known by hand:

    a = Relu(x); b = Neg(a); c = Add(a, b); y = Relu(c)        x, y: [1, N] float

v2: AllocOutputs of the Add runs before the FreeInputs of a and b, so a, b and c are live at once: 3 feature maps.
The static planner writes c in place over a (or b; the Add is their last use): 2 feature maps. Each is counted
as the planner counts it, 4N bytes rounded up to 512."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from dynamic_shape_helpers import execute_dynamic
from exec_helpers import compile_model, tensor
from onnx import helper

import ascendsim
from ascendcl import ACL_SUCCESS, aclGetRecentErrMsg, aclmdlLoadFromFile, aclmdlUnload
from ascendsim.compiler.om_reader import read_om


def feature_maps(n: int) -> int:
    return (4 * n + 511) // 512 * 512


def diamond(n: int | str) -> onnx.ModelProto:
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="relu_a"), helper.make_node("Neg", ["a"], ["b"], name="neg"),
             helper.make_node("Add", ["a", "b"], ["c"], name="add"), helper.make_node("Relu", ["c"], ["y"], name="relu_y")]
    graph = helper.make_graph(nodes, "diamond", [tensor("x", [1, n])], [tensor("y", [1, n])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.fixture(scope="module")
def oms(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("dynamic_memory")
    paths = {"dynamic": compile_model(diamond("n"), directory, "dynamic", input_shape="x:1,-1",
                                      disabled_passes=("elementwise_fusion",)),
             "static": compile_model(diamond(1000), directory, "static", disabled_passes=("elementwise_fusion",))}
    for path in paths.values():  # the hand count needs the four nodes
        assert [node["op_type"] for node in read_om(path).plans[0]["nodes"]] == ["Relu", "Neg", "Add", "Relu"]
    return paths


def load(path: Path) -> int:
    model_id, ret = aclmdlLoadFromFile(str(path))
    assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
    return model_id


def run(model_id: int, n: int) -> None:
    x = np.linspace(-1, 1, n, dtype=np.float32)[None, :]
    ret, [y] = execute_dynamic(model_id, [x], [(np.float32, n)])
    assert ret == ACL_SUCCESS, aclGetRecentErrMsg()
    np.testing.assert_array_equal(y, np.zeros_like(x))  # relu(a - a)


def test_v2_peak_follows_the_shape_and_compares_with_the_static_arena(device: int, oms: dict[str, Path],
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      capfd: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ASCENDSIM_NODE_TIMING", "1")  # read at load: the unload report shows the peaks too
    dynamic, static = load(oms["dynamic"]), load(oms["static"])
    try:
        assert ascendsim.model_memory(dynamic) == {"runtime": 2, "planned_bytes": 0, "last_peak_bytes": 0,
                                                   "max_peak_bytes": 0, "executions": 0}
        for n in (1000, 100, 1000, 3):
            run(dynamic, n)
        memory = ascendsim.model_memory(dynamic)
        assert memory == {"runtime": 2, "planned_bytes": 0, "last_peak_bytes": 3 * feature_maps(3),
                          "max_peak_bytes": 3 * feature_maps(1000), "executions": 4}
        # The static model of N = 1000: c in place over a, so two feature maps; the same figure as the .om's arena.
        planned = ascendsim.model_memory(static)
        assert planned == {"runtime": 1, "planned_bytes": 2 * feature_maps(1000), "last_peak_bytes": 2 * feature_maps(1000),
                           "max_peak_bytes": 2 * feature_maps(1000), "executions": 0}
        assert planned["planned_bytes"] == read_om(oms["static"]).plans[0]["feature_map_size"]
    finally:
        assert aclmdlUnload(dynamic) == ACL_SUCCESS
        assert aclmdlUnload(static) == ACL_SUCCESS
    err = capfd.readouterr().err
    assert f"peak feature-map memory: {3 * feature_maps(3)} bytes in the latest execution, " \
           f"{3 * feature_maps(1000)} at most" in err, err


def test_an_unloaded_model_is_refused(device: int, oms: dict[str, Path]) -> None:
    model_id = load(oms["dynamic"])
    assert aclmdlUnload(model_id) == ACL_SUCCESS
    with pytest.raises(RuntimeError, match=f"ascendsimGetModelMemory: model id {model_id} is not loaded"):
        ascendsim.model_memory(model_id)
