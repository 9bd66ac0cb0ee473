"""The exporter: fused forms of the compiler brief (Conv/Gemm/MatMul + activation, MatMul fused bias,
ascendsim::FusedElementwise as model-local functions), opset choice and down-conversion of IR forms, and
import details (external data, Constant nodes, initializers)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from frontend_cases import F, _w, single_op
from test_frontend_models import check_round_trip

from ascendsim.compiler.ir import ASCENDSIM_DOMAIN, DType, Graph
from ascendsim.compiler.onnx_export import export_onnx, save_onnx
from ascendsim.compiler.onnx_import import import_onnx
from ascendsim.compiler.shape_inference import infer_shapes
from onnx_models import MODEL_BUILDERS, random_feeds, run_ort

ACTIVATIONS = {
    "Relu": (None, None, lambda x: np.maximum(x, 0)),
    "Clip": (0.0, 6.0, lambda x: np.clip(x, 0, 6)),
    "Sigmoid": (None, None, lambda x: 1 / (1 + np.exp(-x))),
    "Tanh": (None, None, np.tanh),
    "Silu": (None, None, lambda x: x / (1 + np.exp(-x))),
    "HardSwish": (None, None, lambda x: x * np.clip(x / 6 + 0.5, 0, 1)),
    "HardSigmoid": (0.2, 0.5, lambda x: np.clip(0.2 * x + 0.5, 0, 1)),
    "LeakyRelu": (0.1, None, lambda x: np.where(x > 0, x, 0.1 * x)),
    "Elu": (1.0, None, lambda x: np.where(x > 0, x, np.exp(x) - 1)),
    "Gelu": (None, None, lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))),
}


@pytest.mark.parametrize("activation", sorted(ACTIVATIONS))
@pytest.mark.parametrize("op", ["Conv", "Gemm", "MatMul"])
def test_epilogue_activation_exported_as_op_then_activation(op: str, activation: str) -> None:
    model = {"Conv": single_op("Conv", [F(1, 3, 6, 6), _w(4, 3, 3, 3), _w(4)], pads=[1, 1, 1, 1]),
             "Gemm": single_op("Gemm", [F(3, 5), _w(5, 4), _w(4)]),
             "MatMul": single_op("MatMul", [F(2, 3, 5), _w(5, 4)])}[op]
    feeds = random_feeds(model, seed=3)
    (plain,) = run_ort(model, feeds)
    graph = import_onnx(model)
    alpha, beta, reference = ACTIVATIONS[activation]
    graph.nodes[0].attrs.update(activation=activation, activation_alpha=alpha, activation_beta=beta)
    infer_shapes(graph)
    exported = export_onnx(graph)
    onnx.checker.check_model(exported, full_check=True)
    assert exported.graph.node[0].op_type == op
    (fused,) = run_ort(exported, feeds)
    tolerance = 2e-3 if activation == "Gelu" else 1e-5  # exact erf in the model vs the tanh reference
    np.testing.assert_allclose(fused, reference(plain), rtol=tolerance, atol=tolerance)


def test_matmul_fused_bias() -> None:
    model = single_op("MatMul", [F(2, 3, 5), _w(5, 4)])
    feeds = random_feeds(model)
    (plain,) = run_ort(model, feeds)
    graph = import_onnx(model)
    bias = graph.constant("bias", _w(4))
    node = graph.nodes[0]
    node.inputs.append(None)
    graph.set_input(node, 2, bias)
    node.attrs.update(fused_bias=1, activation="Relu")
    infer_shapes(graph)
    (fused,) = run_ort(export_onnx(graph), feeds)
    np.testing.assert_allclose(fused, np.maximum(plain + bias.data, 0), rtol=1e-5, atol=1e-6)


def fused_graph() -> Graph:
    graph = Graph("fused", opset=13)
    x, y = graph.value("x", DType.FLOAT, (2, 3)), graph.value("y", DType.FLOAT, (3,))
    graph.inputs = [x, y]
    program = [{"op": "Add", "inputs": [0, 1]}, {"op": "LeakyRelu", "inputs": [2], "attrs": {"alpha": 0.2}},
               {"op": "Mul", "inputs": [3, 0]}, {"op": "Cast", "inputs": [4], "attrs": {"to": DType.FLOAT16}}]
    first = graph.add_node("FusedElementwise", [x, y], 1, attrs={"program": program}, domain=ASCENDSIM_DOMAIN)
    back = graph.add_node("Cast", first.outputs, 1, attrs={"to": DType.FLOAT})
    second = graph.add_node("FusedElementwise", [back.outputs[0], y], 1, attrs={"program": program},
                            domain=ASCENDSIM_DOMAIN)
    graph.outputs = [second.outputs[0]]
    infer_shapes(graph)
    return graph


def test_fused_elementwise_types_and_function_export(tmp_path: Path) -> None:
    graph = fused_graph()
    assert graph.outputs[0].dtype == DType.FLOAT16 and graph.outputs[0].shape == (2, 3)
    model = export_onnx(graph)
    onnx.checker.check_model(model, full_check=True)
    assert [f.name for f in model.functions] == ["FusedElementwise_0"]  # one function per distinct program
    assert {(o.domain, o.version) for o in model.opset_import} == {("", 13), (ASCENDSIM_DOMAIN, 1)}
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    y = np.random.default_rng(1).standard_normal(3).astype(np.float32)

    def step(a: np.ndarray) -> np.ndarray:
        s = a + y
        return (np.where(s > 0, s, 0.2 * s) * a).astype(np.float16)

    (out,) = run_ort(model, {"x": x, "y": y})
    np.testing.assert_allclose(out.astype(np.float32), step(step(x).astype(np.float32)), rtol=2e-3)
    save_onnx(graph, tmp_path / "fused.onnx")
    assert onnx.load(tmp_path / "fused.onnx").functions[0].domain == ASCENDSIM_DOMAIN


def test_opset_raised_only_when_needed() -> None:
    graph = import_onnx(MODEL_BUILDERS["bert"](opset=17))
    graph.opset = 13
    assert export_onnx(graph).opset_import[0].version == 17  # LayerNormalization exists from 17
    graph = import_onnx(MODEL_BUILDERS["resnet"](opset=11))
    assert export_onnx(graph).opset_import[0].version == 11


@pytest.mark.parametrize("target", [11, 13, 18, 21])
def test_ir_forms_written_back_for_any_opset(target: int) -> None:
    model = MODEL_BUILDERS["bert_decomposed"](opset=18)
    graph = import_onnx(model)
    graph.opset = target
    exported = export_onnx(graph)
    assert exported.opset_import[0].version == target
    feeds = random_feeds(model)
    np.testing.assert_allclose(run_ort(exported, feeds)[0], run_ort(model, feeds)[0], rtol=1e-5, atol=1e-5)


def test_external_data(tmp_path: Path) -> None:
    model = MODEL_BUILDERS["resnet"]()
    weights = {t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer}
    path = tmp_path / "model" / "resnet.onnx"
    path.parent.mkdir()
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True, location="weights.bin",
                    size_threshold=0)
    assert (path.parent / "weights.bin").stat().st_size > 0
    graph = import_onnx(path)  # save_model turned `model` into external references: read them back
    for value in graph.constants():
        if value.name in weights:
            np.testing.assert_array_equal(value.data, weights[value.name])
    assert len([v for v in graph.constants() if v.name in weights]) == len(weights)
    check_round_trip(onnx.load(path))


def test_constant_nodes_become_constants() -> None:
    const = onnx.helper.make_node("Constant", [], ["k"], value=onnx.numpy_helper.from_array(_w(3)))
    ints = onnx.helper.make_node("Constant", [], ["shape"], value_ints=[3, 1])
    add = onnx.helper.make_node("Add", ["x", "k"], ["s"])
    reshape = onnx.helper.make_node("Reshape", ["s", "shape"], ["y"])
    body = onnx.helper.make_graph([const, ints, add, reshape], "g",
                                  [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [3])],
                                  [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [3, 1])])
    graph = import_onnx(onnx.helper.make_model(body, opset_imports=[onnx.helper.make_opsetid("", 17)]))
    assert graph.count_ops() == {"Add": 1, "Reshape": 1}
    assert graph.values["shape"].data.tolist() == [3, 1] and graph.values["shape"].dtype == DType.INT64
    np.testing.assert_array_equal(graph.values["k"].data, _w(3))
    assert graph.outputs[0].shape == (3, 1)


def test_attributes_are_plain_python() -> None:
    graph = import_onnx(single_op("ConstantOfShape", [np.array([2, 2], np.int64)],
                                  value=onnx.numpy_helper.from_array(np.array([1.5], np.float32))))
    attrs = graph.nodes[0].attrs
    assert isinstance(attrs["value"], np.ndarray) and attrs["value"].tolist() == [1.5]
    graph = import_onnx(single_op("Conv", [F(1, 2, 5, 5), _w(3, 2, 3, 3)], auto_pad="SAME_UPPER"))
    assert graph.nodes[0].attrs == {"group": 1, "kernel_shape": [3, 3], "strides": [1, 1], "dilations": [1, 1],
                                    "pads": [1, 1, 1, 1]}


def test_softmax_opset11_coercion_rewritten() -> None:
    graph = import_onnx(single_op("Softmax", [F(2, 3, 4)], opset=11, axis=1))
    assert [n.op_type for n in graph.nodes] == ["Flatten", "Softmax", "Shape", "Reshape"]
    assert graph.outputs[0].shape == (2, 3, 4)
