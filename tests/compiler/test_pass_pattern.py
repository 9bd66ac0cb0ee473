"""The pattern DSL: matching rules (commutativity, repeated names, scalars, the self-contained guard) and a
user fusion written with it, registered as a pass and disabled by name."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from test_pass_helpers import ModelBuilder, optimize

from ascendsim.compiler.ir import DType, Graph, Value
from ascendsim.compiler.onnx_import import import_onnx
from ascendsim.compiler.passes import (
    REGISTRY,
    Emit,
    Match,
    Op,
    PassStats,
    Pat,
    PatternList,
    apply_rules,
    match,
    register_fusion_pass,
)


def _graph(build: str) -> tuple[Graph, Value]:
    """x -> the expression in `build` (a tiny language: 'silu', 'silu_swapped', 'shared', 'half')."""
    b = ModelBuilder()
    x = b.input("x", [4])
    if build in ("silu", "silu_swapped"):
        sig = b.node("Sigmoid", [x])
        out = b.node("Mul", [x, sig] if build == "silu" else [sig, x])
    elif build == "shared":
        sig = b.node("Sigmoid", [x])
        out = b.node("Add", [b.node("Mul", [x, sig]), sig])
    else:
        out = b.node("Mul", [x, b.const(np.float32(0.50001))])
    graph = import_onnx(b.model([out]))
    return graph, graph.outputs[0]


@pytest.mark.parametrize("build", ["silu", "silu_swapped"])
def test_commutative_match_binds_the_same_value_twice(build: str) -> None:
    graph, out = _graph(build)
    x = Pat.var("x")
    found = match(x * Op.Sigmoid(x), out, graph)
    assert found is not None and found["x"].name == "x"
    assert [n.op_type for n in found.nodes] == ["Sigmoid", "Mul"]


def test_repeated_name_must_be_the_same_value() -> None:
    graph, out = _graph("silu")
    assert match(Pat.var("a") * Op.Sigmoid(Pat.var("b")), out, graph) is not None
    assert match(Pat.var("a") * Op.Sigmoid(Op.Relu(Pat.var("a"))), out, graph) is None


def test_inner_value_read_outside_rejects_the_match() -> None:
    graph, out = _graph("shared")
    mul = out.producer.inputs[0]  # type: ignore[union-attr]
    assert mul is not None
    x = Pat.var("x")
    assert match(x * Op.Sigmoid(x), mul, graph) is None  # the Sigmoid is also read by the Add


def test_scalar_tolerance() -> None:
    graph, out = _graph("half")
    assert match(Pat.var() * 0.5, out, graph) is not None
    assert match(Pat.var() * Pat.scalar(0.5, rel_tol=1e-7), out, graph) is None
    assert match(Pat.var() * 2.0, out, graph) is None


def test_pattern_repr() -> None:
    assert repr(Op.Relu(Pat.var("x"), name="r")) == "Relu(any@x)@r"


@pytest.fixture
def user_fusion() -> Iterator[str]:
    """A user fusion registered for one test: float x * sigmoid(x) -> x * 1 (the replacement only has to
    be visible; it is not equivalent, so the test checks op counts, not numbers)."""
    rules = PatternList()
    x = Pat.var("x", where=lambda v: v.dtype == DType.FLOAT)

    @rules.rule(x * Op.Sigmoid(x), name="silu")
    def _silu(m: Match) -> Emit | None:
        return Emit("Mul", [m["x"], m.graph.constant("one", np.float32(1.0))], {})  # any replacement will do

    register_fusion_pass("test_silu_fusion", rules, stage="stage1", order=60)
    yield "test_silu_fusion"
    del REGISTRY["test_silu_fusion"]


def test_user_fusion_runs_and_can_be_disabled(user_fusion: str) -> None:
    b = ModelBuilder()
    x = b.input("x", [4])
    model = b.model([b.node("Mul", [x, b.node("Sigmoid", [x])])])
    fused = optimize(model, user_fusion)
    assert fused.before == {"Mul": 1, "Sigmoid": 1} and fused.after == {"Mul": 1}
    assert fused.report.stat("silu fused") == 1
    untouched = optimize(model, "epilogue_fusion")
    assert untouched.after == untouched.before


def test_replacement_reading_an_inner_value_is_an_error() -> None:
    graph, _ = _graph("silu")
    rules = PatternList()
    x = Pat.var("x")

    @rules.rule(x * Op.Sigmoid(x, name="gate"), name="bad")
    def _bad(m: Match) -> Emit:
        return Emit("Relu", [m["gate"]], {})

    with pytest.raises(ValueError, match="inside the match"):
        apply_rules(graph, rules, PassStats())
