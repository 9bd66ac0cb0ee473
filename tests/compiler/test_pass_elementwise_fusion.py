"""Automatic elementwise fusion: chains and DAGs with one external output become one FusedElementwise."""

from __future__ import annotations

import numpy as np
from test_pass_helpers import ModelBuilder, optimize

from ascendsim.compiler.ir import ASCENDSIM_DOMAIN


def test_chain_becomes_one_node() -> None:
    b = ModelBuilder()
    x, y = b.input("x", [2, 3, 4]), b.input("y", [4])
    out = b.node("Sigmoid", [b.node("Mul", [b.node("Add", [x, y]), b.const(np.float32(0.5))])])
    optimized = optimize(b.model([out]), "elementwise_fusion")
    assert optimized.before == {"Add": 1, "Mul": 1, "Sigmoid": 1}
    assert optimized.after == {"FusedElementwise": 1}
    (node,) = optimized.graph.nodes
    assert node.domain == ASCENDSIM_DOMAIN and node.outputs[0].name == out
    assert [v.name for v in node.inputs[:2]] == ["x", "y"]
    assert node.attr("program") == [
        {"op": "Add", "inputs": [0, 1], "attrs": {}},
        {"op": "Mul", "inputs": [3, 2], "attrs": {}},
        {"op": "Sigmoid", "inputs": [4], "attrs": {}},
    ]
    assert optimized.report.stat("nodes fused") == 3
    optimized.assert_equivalent()


def test_dag_with_shared_inner_value_fuses() -> None:
    b = ModelBuilder()
    x = b.input("x", [3, 5])
    t = b.node("Tanh", [x])
    out = b.node("Add", [b.node("Mul", [t, t]), b.node("Exp", [t])])
    optimized = optimize(b.model([out]), "elementwise_fusion")
    assert optimized.after == {"FusedElementwise": 1}
    optimized.assert_equivalent()


def test_value_read_outside_splits_the_groups() -> None:
    b = ModelBuilder()
    x = b.input("x", [3, 5])
    shared = b.node("Sigmoid", [b.node("Neg", [x])])  # read by the MatMul and by the tail chain
    tail = b.node("Relu", [b.node("Sub", [shared, b.const(np.float32(0.25))])])
    mm = b.node("MatMul", [shared, b.weight(5, 5)])
    optimized = optimize(b.model([b.node("Add", [tail, mm])]), "elementwise_fusion")
    assert optimized.after == {"FusedElementwise": 2, "MatMul": 1}
    groups = sorted(len(n.attr("program")) for n in optimized.graph.find_nodes(["FusedElementwise"]))
    assert groups == [2, 3]  # Neg+Sigmoid; Sub+Relu+Add
    optimized.assert_equivalent()


def test_broadcasting_and_comparisons() -> None:
    b = ModelBuilder()
    x, y = b.input("x", [4, 1]), b.input("y", [1, 6])
    out = b.node("Where", [b.node("Greater", [x, y]), b.node("Sub", [x, y]), b.node("Mul", [x, y])])
    optimized = optimize(b.model([out]), "elementwise_fusion")
    assert optimized.after == {"FusedElementwise": 1}
    assert optimized.graph.outputs[0].shape == (4, 6)
    optimized.assert_equivalent()


def test_single_ops_and_graph_outputs_are_left_alone() -> None:
    b = ModelBuilder()
    x = b.input("x", [3])
    first = b.node("Exp", [x])
    second = b.node("Neg", [first])
    optimized = optimize(b.model([first, second]), "elementwise_fusion")
    assert optimized.after == optimized.before
    optimized.assert_equivalent()


def test_cast_and_clip_inside_a_chain() -> None:
    b = ModelBuilder()
    x = b.input("x", [2, 5])
    clipped = b.node("Clip", [b.node("Mul", [x, b.const(np.float32(3))]), b.const(np.float32(-2)),
                              b.const(np.float32(2))])
    out = b.node("Cast", [b.node("Cast", [clipped], to=7)], to=1)  # to int64 (truncates) and back
    optimized = optimize(b.model([out]), "elementwise_fusion")
    assert optimized.after == {"FusedElementwise": 1}
    assert [step["op"] for step in optimized.graph.nodes[0].attr("program")] == ["Mul", "Clip", "Cast", "Cast"]
    optimized.assert_equivalent()
