"""Whole-model frontend tests on every model builder: every value's inferred type matches
onnx.shape_inference, and import -> export reproduces the original outputs in onnxruntime
(tolerance rtol 1e-5, atol 1e-5: the exported graph computes the same ops in the same order)."""

from __future__ import annotations

from typing import Callable

import numpy as np
import onnx
import pytest
from test_frontend_ops import onnx_types

from ascendsim.compiler.onnx_export import export_onnx
from ascendsim.compiler.onnx_import import import_onnx
from ascendsim.compiler.onnx_types import dtype_to_onnx
from onnx_models import MODEL_BUILDERS, random_feeds, run_ort


def check_types(model: onnx.ModelProto) -> int:
    graph = import_onnx(model)
    expected = onnx_types(model)
    checked = 0
    for node in graph.nodes:
        for value in node.outputs:
            if value.name not in expected:
                continue  # values the importer created (opset rewrites)
            elem, shape = expected[value.name]
            if shape is None:
                continue  # onnx could not infer it (older opsets do not propagate shape arithmetic)
            assert dtype_to_onnx(value.dtype) == elem, value  # type: ignore[arg-type]
            assert value.shape is not None and len(value.shape) == len(shape), value
            for mine, theirs in zip(value.shape, shape):
                assert theirs is None or mine == theirs, (value, shape)
            checked += 1
    return checked


def check_round_trip(model: onnx.ModelProto, opset: int | None = None) -> None:
    exported = export_onnx(import_onnx(model), opset)
    onnx.checker.check_model(exported, full_check=True)
    feeds = random_feeds(model, seed=7)
    for want, got in zip(run_ort(model, feeds), run_ort(exported, feeds)):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("opset", [11, 13, 17, 18, 21])
def test_types_match_onnx(model_builder: Callable[..., onnx.ModelProto], opset: int) -> None:
    assert check_types(model_builder(opset=opset)) > 0


@pytest.mark.parametrize("opset", [11, 13, 17, 18, 21])
def test_round_trip(model_builder: Callable[..., onnx.ModelProto], opset: int) -> None:
    check_round_trip(model_builder(opset=opset))


@pytest.mark.parametrize("name", sorted(MODEL_BUILDERS))
def test_symbolic_batch_is_kept(name: str) -> None:
    graph = import_onnx(MODEL_BUILDERS[name](batch="N"))
    assert graph.inputs[0].shape[0] == "N"  # type: ignore[index]
    assert all(v.shape is not None and v.shape[0] == "N" for v in graph.outputs), graph.outputs
    check_round_trip(MODEL_BUILDERS[name](batch="N"))


def test_shape_arithmetic_gives_exact_reshape() -> None:
    graph = import_onnx(MODEL_BUILDERS["shape_arith"]())
    reshape = graph.find_nodes(["Reshape"])[0]
    assert reshape.outputs[0].shape == ("N", 144)
    assert graph.outputs[0].shape == ("N", 5)


def test_input_shapes_fix_a_dynamic_dim() -> None:
    graph = import_onnx(MODEL_BUILDERS["shape_arith"](), input_shapes={"x": [3, 4, 6, 6]})
    assert graph.inputs[0].shape == (3, 4, 6, 6)
    assert graph.outputs[0].shape == (3, 5)


def test_input_shapes_minus_one_keeps_dynamic() -> None:
    graph = import_onnx(MODEL_BUILDERS["shape_arith"](), input_shapes={"x": [-1, 4, 6, 6]})
    assert graph.inputs[0].shape == ("N", 4, 6, 6)


def test_bert_decomposed_layernorm_ops() -> None:
    graph = import_onnx(MODEL_BUILDERS["bert_decomposed"](opset=18))
    counts = graph.count_ops()
    assert counts["ReduceMean"] == 4 and counts["Erf"] == 1 and counts["Softmax"] == 1
    assert all(n.attrs["axes"] == [-1] for n in graph.find_nodes(["ReduceMean"]))
    assert all(len(n.inputs) == 1 for n in graph.find_nodes(["ReduceMean"]))
