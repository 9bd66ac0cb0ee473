"""Transposes that only move axes of length 1 become Reshapes; the ones that move data stay."""

from __future__ import annotations

import pytest
from onnx import helper
from test_pass_helpers import ModelBuilder, optimize

from ascendsim.compiler.ir import DType, Graph
from ascendsim.compiler.memory import plan_memory
from ascendsim.compiler.passes.transpose_reshape import moves_only_unit_axes


@pytest.mark.parametrize(("shape", "perm"), [
    ([1, 5, 8], [1, 0, 2]),           # batch first -> sequence first at batch 1 (MultiheadAttention)
    ([5, 1, 8], [1, 0, 2]),           # and back
    ([1, 3, 1, 4], [2, 1, 3, 0]),     # several unit axes move
    ([1, 1, 1], [2, 0, 1]),           # nothing but unit axes
])
def test_unit_axis_transpose_becomes_reshape(shape: list[int], perm: list[int]) -> None:
    b = ModelBuilder()
    x = b.input("x", shape)
    y = b.node("Relu", [b.node("Transpose", [b.node("Tanh", [x])], perm=perm)])
    optimized = optimize(b.model([y]), "transpose_to_reshape")
    assert optimized.after == {"Tanh": 1, "Reshape": 1, "Relu": 1}
    assert optimized.report.stat("Transpose of unit axes to Reshape") == 1
    optimized.assert_equivalent()
    (reshape,) = [node for node in optimized.graph.nodes if node.op_type == "Reshape"]
    assert reshape.outputs[0].name in plan_memory(optimized.graph).aliases  # a view: no kernel, no copy


@pytest.mark.parametrize(("shape", "perm"), [
    ([2, 5, 8], [1, 0, 2]),           # batch 2: the rows interleave
    ([1, 3, 4], [0, 2, 1]),           # a real transpose beside a unit axis
    ([1, 197, 1, 3, 8], [3, 1, 2, 0, 4]),  # q, k, v moved in front of the sequence (MultiheadAttention)
    ([1, 0, 4], [1, 0, 2]),           # empty: left alone
])
def test_data_moving_transpose_stays(shape: list[int], perm: list[int]) -> None:
    b = ModelBuilder()
    x = b.input("x", shape)
    optimized = optimize(b.model([b.node("Relu", [b.node("Transpose", [x], perm=perm)])]), "transpose_to_reshape")
    assert optimized.after == optimized.before
    optimized.assert_equivalent()


def test_the_reshape_writes_a_graph_output() -> None:
    b = ModelBuilder()
    x = b.input("x", [1, 6, 4])
    b.nodes.append(helper.make_node("Transpose", [b.node("Tanh", [x])], ["result"], perm=[1, 0, 2]))
    optimized = optimize(b.model(["result"]), "transpose_to_reshape")
    (out,) = optimized.graph.outputs
    assert out.name == "result" and out.shape == (6, 1, 4) and out.producer is not None
    assert out.producer.op_type == "Reshape"
    optimized.assert_equivalent()


@pytest.mark.parametrize("perm", [[1, 1, 2], [0, 1], [0, 1, 3], [-1, 0, 1]])
def test_a_perm_that_is_not_a_permutation_is_left_alone(perm: list[int]) -> None:
    graph = Graph()
    x = graph.value("x", DType.FLOAT, (1, 5, 8))
    node = graph.add_node("Transpose", [x], attrs={"perm": perm})
    assert not moves_only_unit_axes(node)
