"""Per-op frontend tests: the importer's dtype/shape inference matches onnx.shape_inference and the real
output shapes, and import -> export runs in onnxruntime with the same outputs as the original model."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from frontend_cases import CASES

from ascendsim.compiler.onnx_export import export_onnx
from ascendsim.compiler.onnx_import import import_onnx
from ascendsim.compiler.onnx_types import dtype_to_onnx
from onnx_models import random_feeds, run_ort

MODELS = dict(CASES)


def onnx_types(model: onnx.ModelProto) -> dict[str, tuple[int, list[int | str] | None]]:
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
    types = {}
    for vi in (*inferred.graph.value_info, *inferred.graph.output):
        tt = vi.type.tensor_type
        shape = None if not tt.HasField("shape") else \
            [d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim]
        types[vi.name] = (tt.elem_type, shape)
    return types


@pytest.mark.parametrize("case", sorted(MODELS))
def test_inference_matches_onnx(case: str) -> None:
    model = MODELS[case]
    graph = import_onnx(model)
    expected = onnx_types(model)
    for value in graph.outputs:
        elem, shape = expected[value.name]
        assert value.dtype is not None and dtype_to_onnx(value.dtype) == elem, value
        if shape is not None and None not in shape:
            assert list(value.shape) == shape, value  # type: ignore[arg-type]


@pytest.mark.parametrize("case", sorted(MODELS))
def test_round_trip_runs_in_onnxruntime(case: str) -> None:
    model = MODELS[case]
    graph = import_onnx(model)
    exported = export_onnx(graph)
    onnx.checker.check_model(exported, full_check=True)
    feeds = random_feeds(model, seed=1)
    expected, actual = run_ort(model, feeds), run_ort(exported, feeds)
    for value, want, got in zip(graph.outputs, expected, actual):
        assert got.shape == want.shape == tuple(value.shape)  # type: ignore[arg-type]
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True)
