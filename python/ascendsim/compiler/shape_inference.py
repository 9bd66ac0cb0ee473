"""Dtype and shape inference over a Graph: runs each node's registry function (ops/) in topological
order and writes the results onto its output Values.

Symbolic dims (names) flow through unchanged where the op preserves them; sizes that cannot be expressed
become fresh symbols, so every value keeps a known rank. Small 1-D integer tensors that exporters compute
shapes with (Shape -> Gather -> Concat ...) are tracked as partially known contents (`known`), which lets
Reshape/Expand/ConstantOfShape/Slice/Tile see their target even before constant folding runs.
"""

from __future__ import annotations

from .errors import node_error
from .ir import CONTROL_FLOW_OPS, Graph, Node
from .ops import infer_node
from .ops._common import Known


def infer_node_types(node: Node, known: dict[str, Known]) -> None:
    """Infers one node and writes dtype/shape onto its outputs (unknown results keep what was there). A
    control-flow node keeps the types its import gave it (from its subgraphs, onnx_control_flow.py)."""
    if node.op_type in CONTROL_FLOW_OPS and not node.domain:
        return
    types = infer_node(node, known)
    if len(types) < len(node.outputs):
        raise node_error(node.name, node.op_type, f"has {len(node.outputs)} outputs; the op defines {len(types)}")
    for value, (dtype, shape) in zip(node.outputs, types):
        if dtype is not None:
            value.dtype = dtype
        if shape is not None:
            value.shape = tuple(int(d) if not isinstance(d, str) else d for d in shape)


def infer_shapes(graph: Graph) -> dict[str, Known]:
    """(Re)infers every node of `graph`; returns the partially known integer tensors found on the way."""
    known: dict[str, Known] = {}
    for node in graph.nodes:
        infer_node_types(node, known)
    return known
