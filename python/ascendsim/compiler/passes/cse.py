"""Common subexpression elimination (GE's CommonSubexpressionEliminationPass with ConstantFuseSame before it;
ONNX Runtime's ConstantSharing + CommonSubexpressionElimination).

First constants are compared by content: constants up to SHARE_LIMIT bytes with the same dtype, shape and
bytes are merged into one Value (bigger weights are compared by identity only; hashing them would cost more
than duplicates ever save). Then nodes are walked in topological order with GE's key: domain + op type +
the identity of every input (index order kept) + all attributes (serialised, numpy arrays by content) +
the number of outputs. A node whose key was seen before is redundant: its readers read the first node's
outputs and it is removed. Since earlier duplicates are merged before later nodes are keyed, whole
duplicated chains collapse in one walk. Only pure ops take part (no random ops), and a duplicate that
writes a graph output stays (its name is part of the model's interface).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir import Graph, Node, Value
from .manager import register_pass
from .report import PassStats
from .rewrite import IMPURE_OPS, is_graph_output

SHARE_LIMIT = 64 * 1024


@register_pass("common_subexpression_elimination", stage="optimize_original", order=30)
def common_subexpression_elimination(graph: Graph, stats: PassStats) -> bool:
    """Merges equal constants, then nodes with the same op, inputs and attributes."""
    shared = _share_constants(graph)
    stats.add("constants shared", shared)
    seen: dict[tuple[Any, ...], Node] = {}
    removed = 0
    for node in list(graph.nodes):
        if node.op_type in IMPURE_OPS:
            continue
        key = _key(node)
        first = seen.setdefault(key, node)
        if first is node or any(is_graph_output(graph, v) for v in node.outputs):
            continue
        for duplicate, kept in zip(node.outputs, first.outputs):
            graph.replace_all_uses(duplicate, kept)
        graph.remove_node(node)
        removed += 1
    stats.add("subexpressions removed", removed)
    return bool(shared or removed)


def _share_constants(graph: Graph) -> int:
    first_of: dict[tuple[Any, ...], Value] = {}
    merged = 0
    for node in graph.nodes:
        for index, value in enumerate(node.inputs):
            if value is None or value.data is None or value.data.nbytes > SHARE_LIMIT:
                continue
            data = np.asarray(value.data, order="C")
            kept = first_of.setdefault((data.dtype.str, data.shape, data.tobytes()), value)
            if kept is not value:
                graph.set_input(node, index, kept)
                if not value.consumers and not is_graph_output(graph, value):
                    graph.values.pop(value.name, None)
                merged += 1
    return merged


def _key(node: Node) -> tuple[Any, ...]:
    inputs = tuple(id(v) if v is not None else None for v in node.inputs)
    return node.domain, node.op_type, inputs, freeze(node.attrs), len(node.outputs)


def freeze(value: Any) -> Any:
    """A hashable, content-based form of an attribute value."""
    if isinstance(value, dict):
        return tuple(sorted((str(k), freeze(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    if isinstance(value, np.ndarray):
        return "ndarray", value.dtype.str, value.shape, np.asarray(value, order="C").tobytes()
    if isinstance(value, np.generic):
        return value.item()
    return value
