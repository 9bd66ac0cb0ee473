"""Fixtures of the compiler tests; the model builders and onnxruntime helpers are in onnx_models.py."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import onnx
import pytest

from onnx_models import MODEL_BUILDERS


@pytest.fixture(params=sorted(MODEL_BUILDERS))
def model_builder(request: pytest.FixtureRequest) -> Callable[..., onnx.ModelProto]:
    """Each model builder in turn (parametrised by name)."""
    return MODEL_BUILDERS[request.param]


@pytest.fixture(autouse=True)
def check_every_memory_plan(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Issue 3: "the memory checker on every model compiled in the tests". Every plan `ascendsim.compile`
    makes in a test (directly or through an in-process `atc`) is proved by `check_plan` as it is made; the
    fixture's value counts the plans checked."""
    from ascendsim.compiler import build, memory

    checked: list[int] = []

    def plan_and_check(graph: Any, streams: Any = None, **options: Any) -> memory.MemoryPlan:
        plan = memory.plan_memory(graph, streams, **options)
        memory.check_plan(graph, streams, plan)
        checked.append(1)
        return plan

    monkeypatch.setattr(build, "plan_memory", plan_and_check)
    yield checked
