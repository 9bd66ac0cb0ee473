"""Dynamic gears end to end (issue 3 point 8): --dynamic_batch_size / --dynamic_image_size / --dynamic_dims with
-1 in --input_shape give one plan per gear, the extra last input `ascend_mbatch_shape_data` (INT32
[gear values], as GE's MultiBatchClonePass creates it), -1 on the varying dims of MODEL_INOUT_INFO with the
largest gear's size, and every plan passes the memory checker; plus the atc command line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from backend_models import MODELS
from onnx import TensorProto, helper, numpy_helper

from ascendsim.compiler import om_format as F
from ascendsim.compiler.atc import SUCCESS, main
from ascendsim.compiler.build import CompileResult, compile
from ascendsim.compiler.memory import check_plan
from ascendsim.compiler.om_reader import OmFile, read_om


def conv_model() -> onnx.ModelProto:
    """[N, 3, H, W] -> Conv(3x3, pad 1) -> Relu -> [N, 4, H, W] with symbolic N, H, W."""
    w = numpy_helper.from_array(np.random.default_rng(1).standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["y"])]
    graph = helper.make_graph(nodes, "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, "H", "W"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])], [w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def two_input_model() -> onnx.ModelProto:
    """a [B, S, 8] @ w [8, 4] + b [B, 1, 4] -> [B, S, 4]: the dims B, S of two inputs vary together."""
    w = numpy_helper.from_array(np.ones((8, 4), np.float32), "w")
    nodes = [helper.make_node("MatMul", ["a", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["y"])]
    graph = helper.make_graph(nodes, "two", [helper.make_tensor_value_info("a", TensorProto.FLOAT, ["B", "S", 8]),
                                             helper.make_tensor_value_info("b", TensorProto.FLOAT, ["B", 1, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])], [w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def _check_common(result: CompileResult, om: OmFile, gears: list[tuple[int, ...]], dynamic_type: str) -> None:
    assert [p.gear for p in result.plans] == gears
    assert om.model["plan_count"] == len(gears) and om.model["flags"] & F.FLAG_DYNAMIC_GEARS
    assert om.model["dynamic_type"] == dynamic_type and om.model["gear_dim_count"] == len(gears[0])
    assert [p["gear"] for p in om.plans] == [list(g) for g in gears]
    assert len(om.tasks) == len(gears)
    for plan in result.plans:
        check_plan(plan.graph, plan.streams, plan.memory)
    inputs = om.inout["inputs"]
    shape_data = inputs[-1]
    assert shape_data["name"] == F.DYNAMIC_INPUT_NAME and om.model["dynamic_input_index"] == len(inputs) - 1
    assert shape_data["dtype"] == "INT32" and shape_data["format"] == "ND"
    assert shape_data["dims"] == [len(gears[0])] and shape_data["size"] == 4 * len(gears[0])
    assert all(p["inputs"][-1] == -1 for p in om.plans)  # no tensor behind ascend_mbatch_shape_data
    assert om.model["input_count"] == len(result.graph.inputs) + 1


def _largest(result: CompileResult, index: int) -> int:
    return max(p.graph.inputs[index].nbytes for p in result.plans)


def test_dynamic_batch(tmp_path: Path) -> None:
    result = compile(MODELS["resnet"](batch="N").SerializeToString(), tmp_path / "b", input_shape="input:-1,3,32,32",
                     dynamic_batch_size="1,2,8")
    om = read_om(result.output)  # type: ignore[arg-type]
    _check_common(result, om, [(1,), (2,), (8,)], "DYNAMIC_BATCH")
    assert om.inout["dynamic_batch"] == [1, 2, 8]
    desc = om.inout["inputs"][0]
    assert desc["dims"] == [-1, 3, 32, 32] and desc["dims_v2"] == [8, 3, 32, 32]
    assert desc["size"] == 8 * 3 * 32 * 32 * 4 == _largest(result, 0)
    assert desc["shape_range"] == [[1, 8], [3, 3], [32, 32], [32, 32]]
    assert om.inout["outputs"][0]["dims"] == [-1, 10] and om.inout["outputs"][0]["size"] == 8 * 10 * 4
    sizes = [p["feature_map_size"] for p in om.plans]
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1]


def test_dynamic_image_size(tmp_path: Path) -> None:
    result = compile(conv_model().SerializeToString(), tmp_path / "hw", input_shape="x:1,3,-1,-1",
                     dynamic_image_size="16,16;32,24;8,40")
    om = read_om(result.output)  # type: ignore[arg-type]
    _check_common(result, om, [(16, 16), (32, 24), (8, 40)], "DYNAMIC_IMAGE")
    assert om.inout["dynamic_hw"] == [[16, 16], [32, 24], [8, 40]]
    desc = om.inout["inputs"][0]
    assert desc["dims"] == [1, 3, -1, -1] and desc["dims_v2"] == [1, 3, 32, 24]
    assert desc["size"] == 32 * 24 * 3 * 4 == _largest(result, 0)
    assert om.inout["outputs"][0]["dims"] == [1, 4, -1, -1] and om.inout["outputs"][0]["size"] == 32 * 24 * 4 * 4
    for plan, gear in zip(om.plans, [(16, 16), (32, 24), (8, 40)]):
        tensor = plan["tensors"][plan["inputs"][0]]
        assert tensor["kind"] == "INPUT" and tensor["dims"] == [1, 3, *gear]


def test_dynamic_dims_two_inputs(tmp_path: Path) -> None:
    result = compile(two_input_model().SerializeToString(), tmp_path / "dd", input_shape="a:-1,-1,8;b:-1,1,4",
                     dynamic_dims="1,4,1;2,8,2;4,2,4")
    om = read_om(result.output)  # type: ignore[arg-type]
    _check_common(result, om, [(1, 4, 1), (2, 8, 2), (4, 2, 4)], "DYNAMIC_DIMS")
    assert om.inout["dynamic_dims"] == [[1, 4, 1], [2, 8, 2], [4, 2, 4]]
    assert om.inout["shape_order"] == ["a", "b"]
    a, b = om.inout["inputs"][:2]
    assert a["dims"] == [-1, -1, 8] and b["dims"] == [-1, 1, 4]
    assert a["size"] == 2 * 8 * 8 * 4 == _largest(result, 0)  # the gear with the most bytes (2, 8)
    assert b["size"] == 4 * 4 * 4 == _largest(result, 1)
    assert [p["tensors"][p["inputs"][0]]["dims"] for p in om.plans] == [[1, 4, 8], [2, 8, 8], [4, 2, 8]]


def test_gear_weights_shared(tmp_path: Path) -> None:
    result = compile(conv_model().SerializeToString(), tmp_path / "w", input_shape="x:-1,3,8,8",
                     dynamic_batch_size="1,4")
    om = read_om(result.output)  # type: ignore[arg-type]
    weights = {t["name"] for p in om.plans for t in p["tensors"] if t["kind"] == "WEIGHT"}
    assert weights == {"w"} and om.model["weight_size"] == 512


@pytest.mark.parametrize(("option", "shape", "kind"), [
    ("--dynamic_batch_size=1,2,4", "x:-1,3,8,8", "DYNAMIC_BATCH"),
    ("--dynamic_image_size=8,8;16,16", "x:1,3,-1,-1", "DYNAMIC_IMAGE"),
    ("--dynamic_dims=1,8,8;2,16,16", "x:-1,3,-1,-1", "DYNAMIC_DIMS"),
])
def test_atc_cli(option: str, shape: str, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "conv.onnx"
    onnx.save(conv_model(), model)
    code = main([f"--model={model}", "--framework=5", f"--output={tmp_path / 'out'}", "--soc_version=Ascend910B",
                 f"--input_shape={shape}", option])
    out = capsys.readouterr().out
    assert code == 0 and SUCCESS in out
    om = read_om(tmp_path / "out.om")
    flag, value = option.split("=")
    gears = value.split(",") if flag == "--dynamic_batch_size" else value.split(";")
    assert om.model["dynamic_type"] == kind and om.model["plan_count"] == len(gears)
    assert om.inout["inputs"][-1]["name"] == F.DYNAMIC_INPUT_NAME


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"input_shape": "x:1,3,-1,-1", "dynamic_image_size": "8,8,8;16,16,16"}, "2 positive"),
    ({"input_shape": "x:1,3,-1,8", "dynamic_image_size": "8,8;16,16"}, "two -1"),
    ({"input_shape": "x:-1,3,-1,-1", "dynamic_dims": "1,8;2,16"}, "3 positive"),
    ({"input_shape": "x:-1,3,8,8", "dynamic_batch_size": "1,1"}, "distinct"),
    ({"input_shape": "x:-1,3,8,8", "dynamic_batch_size": "1,x"}, "integers"),
])
def test_bad_gears(kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(Exception, match=message):
        compile(conv_model().SerializeToString(), **kwargs)
