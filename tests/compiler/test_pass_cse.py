"""Common subexpression elimination: duplicated chains, constants by content, what must stay apart."""

from __future__ import annotations

import numpy as np
from test_pass_helpers import ModelBuilder, optimize

from ascendsim.compiler.ir import DType, Graph
from ascendsim.compiler.passes import PassStats
from ascendsim.compiler.passes.cse import common_subexpression_elimination


def test_duplicated_chains_collapse() -> None:
    b = ModelBuilder()
    x = b.input("x", [2, 8])
    w = b.weight(8, 8)
    first = b.node("Relu", [b.node("MatMul", [x, w])])
    second = b.node("Relu", [b.node("MatMul", [x, w])])
    optimized = optimize(b.model([b.node("Add", [first, second])]), "common_subexpression_elimination")
    assert optimized.before == {"MatMul": 2, "Relu": 2, "Add": 1}
    assert optimized.after == {"MatMul": 1, "Relu": 1, "Add": 1}
    assert optimized.report.stat("subexpressions removed") == 2
    optimized.assert_equivalent()


def test_equal_constants_compare_by_content() -> None:
    b = ModelBuilder()
    x = b.input("x", [4])
    one = b.node("Mul", [x, b.const(np.full(4, 3.0, np.float32))])
    two = b.node("Mul", [x, b.const(np.full(4, 3.0, np.float32))])
    other = b.node("Mul", [x, b.const(np.full(4, 2.0, np.float32))])
    out = b.node("Add", [b.node("Add", [one, two]), other])
    optimized = optimize(b.model([out]), "common_subexpression_elimination")
    assert optimized.before["Mul"] == 3 and optimized.after["Mul"] == 2
    assert optimized.report.stat("constants shared") == 1
    optimized.assert_equivalent()


def test_attributes_and_input_order_keep_nodes_apart() -> None:
    b = ModelBuilder()
    x, y = b.input("x", [2, 3]), b.input("y", [2, 3])
    s1 = b.node("Softmax", [x], axis=0)
    s2 = b.node("Softmax", [x], axis=1)
    d1, d2 = b.node("Sub", [x, y]), b.node("Sub", [y, x])
    out = b.node("Add", [b.node("Add", [s1, s2]), b.node("Add", [d1, d2])])
    optimized = optimize(b.model([out]), "common_subexpression_elimination")
    assert optimized.after == optimized.before
    optimized.assert_equivalent()


def test_duplicate_graph_outputs_stay() -> None:
    b = ModelBuilder()
    x = b.input("x", [3])
    optimized = optimize(b.model([b.node("Relu", [x]), b.node("Relu", [x])]), "common_subexpression_elimination")
    assert optimized.after == {"Relu": 2}
    optimized.assert_equivalent()


def test_random_ops_are_not_merged() -> None:
    graph = Graph("g")
    x = graph.value("x", DType.FLOAT, (2,))
    graph.inputs = [x]
    noise = [graph.add_node("RandomUniformLike", [x]) for _ in range(2)]
    out = graph.add_node("Add", [noise[0].outputs[0], noise[1].outputs[0]])
    graph.outputs = [out.outputs[0]]
    assert not common_subexpression_elimination(graph, PassStats())
    assert len(graph.nodes) == 3
