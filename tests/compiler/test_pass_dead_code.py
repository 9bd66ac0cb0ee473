"""Dead code elimination: unreachable nodes and unused constants go, inputs and outputs stay."""

from __future__ import annotations

import numpy as np
from test_pass_helpers import ModelBuilder, optimize


def test_unreachable_branch_is_removed() -> None:
    b = ModelBuilder()
    x, unused = b.input("x", [2, 4]), b.input("unused", [3])
    b.node("Tanh", [b.node("MatMul", [x, b.weight(4, 4)])])  # computes nothing observable
    b.node("Neg", [unused])
    y = b.node("Relu", [x])
    optimized = optimize(b.model([y]), "dead_code_elimination")
    assert optimized.before == {"MatMul": 1, "Tanh": 1, "Neg": 1, "Relu": 1}
    assert optimized.after == {"Relu": 1}
    assert optimized.report.stat("nodes removed") == 3
    assert optimized.report.stat("unused constants removed") == 1
    assert [v.name for v in optimized.graph.inputs] == ["x", "unused"]
    assert not any(v.is_constant for v in optimized.graph.values.values())
    optimized.assert_equivalent()


def test_constant_graph_output_stays() -> None:
    b = ModelBuilder()
    x = b.input("x", [2])
    optimized = optimize(b.model([b.node("Relu", [x]), b.node("Identity", [b.const(np.ones(2, np.float32))])]),
                         "dead_code_elimination")
    assert optimized.after == optimized.before
    optimized.assert_equivalent()
