"""Constant folding: shape arithmetic, partially symbolic shapes, all-constant math, and what is left alone."""

from __future__ import annotations

import numpy as np
import onnx
from test_pass_helpers import ModelBuilder, optimize

from ascendsim.compiler.ir import DType, Graph
from ascendsim.compiler.passes import PassStats
from ascendsim.compiler.passes.constant_folding import FOLD_LIMIT, constant_folding


def _reshape_by_dim(batch: object, index: int) -> onnx.ModelProto:
    b = ModelBuilder()
    x = b.input("x", [batch, 4, 6])
    act = b.node("Relu", [x])
    dim = b.unsqueeze(b.node("Gather", [b.node("Shape", [act]), b.const(np.array(index, np.int64))], axis=0), [0])
    target = b.node("Concat", [b.const(np.array([-1], np.int64)), dim], axis=0)
    return b.model([b.node("Reshape", [act, target])])


def test_shape_arithmetic_folds_on_static_shapes() -> None:
    optimized = optimize(_reshape_by_dim(2, 2), "constant_folding")
    assert optimized.before == {"Relu": 1, "Shape": 1, "Gather": 1, "Unsqueeze": 1, "Concat": 1, "Reshape": 1}
    assert optimized.after == {"Relu": 1, "Reshape": 1}
    assert optimized.report.stat("shapes resolved") == 1
    assert optimized.report.stat("constants folded") == 3
    target = optimized.graph.find_nodes(["Reshape"])[0].inputs[1]
    assert target is not None and target.data is not None and target.data.tolist() == [-1, 6]
    optimized.assert_equivalent()


def test_static_dim_of_a_symbolic_shape_folds() -> None:
    # the Shape node stays until dead code elimination drops it
    optimized = optimize(_reshape_by_dim("N", 1), "constant_folding", "dead_code_elimination")
    assert optimized.after == {"Relu": 1, "Reshape": 1}
    optimized.assert_equivalent()


def test_symbolic_dim_stays() -> None:
    optimized = optimize(_reshape_by_dim("N", 0), "constant_folding")
    assert optimized.after == optimized.before
    optimized.assert_equivalent()


def test_slice_of_a_symbolic_shape_folds_its_static_part() -> None:
    b = ModelBuilder()
    x = b.input("x", ["N", 3, 5])
    tail = b.node("Slice", [b.node("Shape", [x]), b.const(np.array([1], np.int64)),
                            b.const(np.array([3], np.int64))])
    out = b.node("Reshape", [x, b.node("Concat", [b.const(np.array([-1], np.int64)), tail], axis=0)])
    optimized = optimize(b.model([out]), "constant_folding", "dead_code_elimination")
    assert optimized.after == {"Reshape": 1}
    optimized.assert_equivalent()


def test_constant_math_folds_but_not_into_a_graph_output() -> None:
    b = ModelBuilder()
    x = b.input("x", [3])
    c = b.node("Mul", [b.node("Add", [b.const(np.ones(3, np.float32)), b.const(np.full(3, 2, np.float32))]),
                       b.const(np.float32(0.5))])
    y = b.node("Add", [x, b.node("Sqrt", [c])])
    only_constant = b.node("Neg", [b.const(np.float32(4))])
    optimized = optimize(b.model([y, only_constant]), "constant_folding")
    assert optimized.before == {"Add": 2, "Mul": 1, "Sqrt": 1, "Neg": 1}
    assert optimized.after == {"Add": 1, "Neg": 1}
    assert optimized.report.stat("constants folded") == 3
    optimized.assert_equivalent()


def test_large_results_are_not_folded() -> None:
    b = ModelBuilder()
    x = b.input("x", [1, 1])
    side = int(np.sqrt(FOLD_LIMIT // 4)) + 8
    big = b.node("ConstantOfShape", [b.const(np.array([side, side], np.int64))])
    optimized = optimize(b.model([b.node("Add", [x, big])]), "constant_folding")
    assert optimized.after == optimized.before
    assert optimized.report.stat("too large to fold") == 1


def test_refused_kernel_leaves_the_node() -> None:
    graph = Graph("g")
    x = graph.value("x", DType.INT64, (2,))
    graph.inputs = [x]
    div = graph.add_node("Div", [graph.constant("a", np.array([4, 6])), graph.constant("b", np.array([0, 3]))])
    div.outputs[0].dtype, div.outputs[0].shape = DType.INT64, (2,)
    out = graph.add_node("Add", [x, div.outputs[0]])
    graph.outputs = [out.outputs[0]]
    stats = PassStats()
    assert not constant_folding(graph, stats)
    assert stats["refused by host kernel"] == 1 and len(graph.nodes) == 2


def test_folded_value_keeps_its_name_and_declared_dtype() -> None:
    graph = Graph("g")
    x = graph.value("x", DType.FLOAT, (2,))
    graph.inputs = [x]
    mul = graph.add_node("Mul", [graph.constant("a", np.array([1.5, 2.0], np.float32)),
                                 graph.constant("b", np.array(2.0, np.float32))], name="scale")
    folded = mul.outputs[0]
    folded.dtype, folded.shape = DType.FLOAT, (2,)
    out = graph.add_node("Add", [x, folded])
    graph.outputs = [out.outputs[0]]
    assert constant_folding(graph, PassStats())
    assert out.inputs[1] is folded  # the same Value, now a constant
    assert folded.data is not None and folded.data.dtype == np.float32 and folded.data.tolist() == [3.0, 4.0]
    assert folded.producer is None and graph.nodes == [out]
