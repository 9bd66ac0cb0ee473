"""Transposes that move no data become Reshapes (ONNX Runtime's transpose optimizer does the same).

A Transpose whose axes longer than 1 keep their order among themselves only moves axes of length 1: the
elements stay where they are in memory, so the result is the input with another shape. PyTorch's
MultiheadAttention exports one at each end of its block (batch first to sequence first and back), a copy of the
whole activation each at batch 1. As a Reshape the output is a view of the input (memory.py: no kernel, no copy).
"""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Node
from .manager import register_pass
from .report import PassStats
from .rewrite import replace_subgraph


def moves_only_unit_axes(node: Node) -> bool:
    x, perm = node.inputs[0] if node.inputs else None, node.attr("perm")
    if x is None or perm is None or not x.is_static or x.shape is None:
        return False
    if sorted(int(axis) for axis in perm) != list(range(len(x.shape))):  # not a permutation of the axes
        return False
    if any(int(d) == 0 for d in x.shape):  # an empty tensor: left alone (Reshape reads a 0 in its shape as "keep")
        return False
    long_axes = [int(axis) for axis in perm if int(x.shape[int(axis)]) > 1]
    return long_axes == sorted(long_axes)


@register_pass("transpose_to_reshape", stage="optimize_original", order=25)
def transpose_to_reshape(graph: Graph, stats: PassStats) -> bool:
    """Turns Transposes that only move axes of length 1 into Reshapes (views)."""
    changed = False
    for node in list(graph.nodes):
        if node.op_type != "Transpose" or node.domain != "" or not moves_only_unit_axes(node):
            continue
        output = node.outputs[0]
        shape = [int(node.inputs[0].shape[int(axis)]) for axis in node.attr("perm")]  # type: ignore[index]
        target = graph.constant(f"{node.name}_shape", np.array(shape, dtype=np.int64))
        replace_subgraph(graph, [node], output, "Reshape", [node.inputs[0], target], attrs={"allowzero": 0})
        stats.add("Transpose of unit axes to Reshape")
        changed = True
    return changed
