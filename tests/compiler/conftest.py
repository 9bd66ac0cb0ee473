"""Fixtures of the compiler tests; the model builders and onnxruntime helpers are in onnx_models.py."""

from __future__ import annotations

from collections.abc import Callable

import onnx
import pytest

from onnx_models import MODEL_BUILDERS


@pytest.fixture(params=sorted(MODEL_BUILDERS))
def model_builder(request: pytest.FixtureRequest) -> Callable[..., onnx.ModelProto]:
    """Each model builder in turn (parametrised by name)."""
    return MODEL_BUILDERS[request.param]
