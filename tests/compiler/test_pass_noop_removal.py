"""Identity / Dropout / no-op removal: each removable op, the unsafe look-alikes that stay, output names."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest
from onnx import helper
from test_pass_helpers import ModelBuilder, optimize

from ascendsim.compiler.passes.rewrite import is_graph_output

NoOp = Callable[[ModelBuilder, str], str]
NOOPS: dict[str, NoOp] = {
    "Identity": lambda b, x: b.node("Identity", [x]),
    "Dropout": lambda b, x: b.node("Dropout", [x]),
    "Cast": lambda b, x: b.node("Cast", [x], to=1),
    "Transpose": lambda b, x: b.node("Transpose", [x], perm=[0, 1, 2]),
    "Reshape": lambda b, x: b.node("Reshape", [x, b.const(np.array([2, -1, 4], np.int64))]),
    "Expand": lambda b, x: b.node("Expand", [x, b.const(np.array([3, 4], np.int64))]),
    "Slice": lambda b, x: b.node("Slice", [x, b.const(np.array([0], np.int64)), b.const(np.array([99], np.int64))]),
    "Concat": lambda b, x: b.node("Concat", [x], axis=1),
    "Tile": lambda b, x: b.node("Tile", [x, b.const(np.ones(3, np.int64))]),
    "Add": lambda b, x: b.node("Add", [b.const(np.zeros(4, np.float32)), x]),
    "Sub": lambda b, x: b.node("Sub", [x, b.const(np.float32(0))]),
    "Mul": lambda b, x: b.node("Mul", [x, b.const(np.ones((1, 4), np.float32))]),
    "Div": lambda b, x: b.node("Div", [x, b.const(np.float32(1))]),
}


@pytest.mark.parametrize("op", sorted(NOOPS))
def test_noop_is_removed(op: str) -> None:
    b = ModelBuilder()
    x = b.input("x", [2, 3, 4])
    y = b.node("Relu", [NOOPS[op](b, b.node("Tanh", [x]))])
    optimized = optimize(b.model([y]), "noop_removal")
    assert optimized.before == {"Tanh": 1, op: 1, "Relu": 1}
    assert optimized.after == {"Tanh": 1, "Relu": 1}
    assert optimized.report.stat(f"{op} removed") == 1
    optimized.assert_equivalent()


@pytest.mark.parametrize("make", [
    lambda b, x: b.node("Add", [x, b.const(np.zeros((2, 1, 3, 4), np.float32))]),  # broadcasts to a bigger shape
    lambda b, x: b.node("Mul", [x, b.const(np.full(4, 2.0, np.float32))]),
    lambda b, x: b.node("Sub", [b.const(np.float32(0)), x]),  # 0 - x is -x
    lambda b, x: b.node("Transpose", [x], perm=[0, 2, 1]),
    lambda b, x: b.node("Slice", [x, b.const(np.array([-1], np.int64)), b.const(np.array([-99], np.int64)),
                                  b.const(np.array([2], np.int64)), b.const(np.array([-1], np.int64))]),
    lambda b, x: b.node("Cast", [x], to=10),
])
def test_lookalikes_stay(make: NoOp) -> None:
    b = ModelBuilder()
    x = b.input("x", [2, 3, 4])
    optimized = optimize(b.model([b.node("Relu", [make(b, x)])]), "noop_removal")
    assert optimized.after == optimized.before
    optimized.assert_equivalent()


def test_identity_writing_a_graph_output_keeps_the_name() -> None:
    b = ModelBuilder()
    x = b.input("x", [2, 3])
    b.nodes.append(helper.make_node("Identity", [b.node("Relu", [x])], ["result"]))
    optimized = optimize(b.model(["result"]), "noop_removal")
    assert optimized.after == {"Relu": 1}
    (out,) = optimized.graph.outputs
    assert out.name == "result" and is_graph_output(optimized.graph, out) and out.producer is not None
    assert out.producer.op_type == "Relu"
    optimized.assert_equivalent()


def test_identity_from_input_to_output_stays() -> None:
    b = ModelBuilder()
    x = b.input("x", [2])
    optimized = optimize(b.model([b.node("Identity", [x])]), "noop_removal")
    assert optimized.after == {"Identity": 1}
    optimized.assert_equivalent()
