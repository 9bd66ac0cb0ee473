"""Bad input to the frontend: each unsupported op, attribute value or construct, each contradicting input
shape and each unreadable file gives a CompileError naming what is wrong and what is supported."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from frontend_cases import F, f32, i64, single_op
from onnx import TensorProto, helper, numpy_helper

from ascendsim.compiler.errors import CompileError
from ascendsim.compiler.onnx_import import import_onnx
from onnx_models import MODEL_BUILDERS


def rejects(model: onnx.ModelProto | str | Path | bytes, *fragments: str, **kwargs: object) -> CompileError:
    with pytest.raises(CompileError) as info:
        import_onnx(model, **kwargs)  # type: ignore[arg-type]
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)
    return info.value


def test_unsupported_op_names_node_op_and_list() -> None:
    error = rejects(single_op("Multinomial", [F(3, 3)]), "node 'the_Multinomial' (Multinomial)", "not supported",
                    "supported ops:", "Conv")
    assert error.node == "the_Multinomial" and error.op_type == "Multinomial"


def test_unknown_domain() -> None:
    model = single_op("Relu", [F(2)])
    model.graph.node[0].domain = "com.microsoft"
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    rejects(model, "the_Relu", "domain 'com.microsoft' is not supported")


def test_control_flow_subgraph() -> None:
    """If and Loop compile (tests/model/test_control_flow.py); Scan is still refused, naming the node."""
    body = helper.make_graph([helper.make_node("Neg", ["xi"], ["yi"])], "b",
                             [helper.make_tensor_value_info("xi", TensorProto.FLOAT, [])],
                             [helper.make_tensor_value_info("yi", TensorProto.FLOAT, [])])
    node = helper.make_node("Scan", ["x"], ["out"], name="the_scan", body=body, num_scan_inputs=1)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("out", TensorProto.FLOAT, [2])])
    rejects(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), "'the_scan' (Scan)",
            "control flow (subgraphs) is not supported for this op; supported: If and Loop")


def test_sparse_initializer() -> None:
    model = single_op("Relu", [F(2)])
    sparse = helper.make_sparse_tensor(numpy_helper.from_array(f32(1.0), "w"), numpy_helper.from_array(i64(0)), [3])
    model.graph.sparse_initializer.append(sparse)
    rejects(model, "sparse initializer", "dense initializers")


@pytest.mark.parametrize("opset", [10, 22])
def test_opset_out_of_range(opset: int) -> None:
    model = single_op("Relu", [F(2)], opset=min(opset, 21))
    model.opset_import[0].version = opset
    rejects(model, f"opset {opset} is not supported", "11 to 21")


@pytest.mark.parametrize(("shapes", "fragments"), [
    ({"x": [1, 4, 6]}, ("input 'x'", "rank 3", "rank 4")),
    ({"x": [2, 5, 6, 6]}, ("input 'x'", "dim 1 is fixed at 4", "asks for 5")),
    ({"x": [2, -1, 6, 6]}, ("input 'x'", "dim 1 is fixed at 4")),
    ({"x": [-3, 4, 6, 6]}, ("input 'x'", "dim 0 is -3")),
    ({"y": [1]}, ("['y']", "its inputs are ['x']")),
])
def test_bad_input_shapes(shapes: dict[str, list[int]], fragments: tuple[str, ...]) -> None:
    rejects(MODEL_BUILDERS["shape_arith"](), *fragments, input_shapes=shapes)


def test_missing_and_corrupt_files(tmp_path: Path) -> None:
    rejects(tmp_path / "missing.onnx", "does not exist")
    corrupt = tmp_path / "corrupt.onnx"
    corrupt.write_bytes(b"\x08\x07\xff\xff garbage")
    rejects(corrupt, "cannot read ONNX model", "corrupt.onnx")
    rejects(b"\xff\xfe not protobuf", "not a valid ONNX model")


@pytest.mark.parametrize(("model", "fragments"), [
    (single_op("Resize", [F(1, 1, 2, 2), None, f32(1, 1, 2, 2)], opset=13, mode="area"),
     ("the_Resize", "mode='area' is not supported", "'nearest', 'linear', 'cubic'")),
    (single_op("Resize", [F(1, 1, 2, 2), None, f32(1, 1, 2, 2)], opset=18, antialias=1), ("antialias=1",)),
    (single_op("Resize", [F(1, 1, 2, 2), None, f32(1, 1, 2, 2)], opset=13,
               coordinate_transformation_mode="tf_crop_and_resize"), ("tf_crop_and_resize",)),
    (single_op("Unsqueeze", [F(2, 3), ("i", (1,))], opset=13, out_rank=3), ("the_Unsqueeze", "axes", "computed at run time")),
    (single_op("Pad", [F(2, 3), ("i", (4,))]), ("the_Pad", "pads", "computed at run time")),
    (single_op("BatchNormalization", [F(2, 3, 4), f32(1, 1, 1), f32(0, 0, 0), f32(0, 0, 0), f32(1, 1, 1)],
               opset=15, training_mode=1, outputs=3), ("training_mode=1",)),
    (single_op("Gelu", [F(2)], opset=20, approximate="fast"), ("approximate='fast'",)),
    (single_op("Reshape", [F(2, 3), i64(4, -1)], out_rank=2), ("cannot reshape",)),
    (single_op("Add", [F(2, 3), F(4)], out_rank=2), ("cannot be broadcast",)),
    (single_op("Cast", [F(2)], to=TensorProto.BFLOAT16), ("'to'", "BFLOAT16 is not supported")),
])
def test_unsupported_attribute_values(model: onnx.ModelProto, fragments: tuple[str, ...]) -> None:
    rejects(model, *fragments)


def test_maxpool_indices_output_used() -> None:
    model = single_op("MaxPool", [F(1, 1, 4, 4)], kernel_shape=[2, 2], outputs=2)
    rejects(model, "output 'out1' is used", "only the first output")


def test_string_initializer() -> None:
    model = single_op("Identity", [np.array(["a"], dtype=object)])
    rejects(model, "STRING is not supported")
