"""Identity / Dropout / no-op removal (GE's IdentityPass, DropOutPass, ReshapeRemovePass, CastRemovePass,
UnchangedTransposeRemovePass; ONNX Runtime's EliminateIdentity, EliminateDropout, NoopElimination, ...).

Each rule looks at one node and returns the input Value that its output provably equals, or None:
Identity; Dropout (the IR keeps only the inference form); Cast to the dtype it already has; Transpose with
the identity permutation; Reshape, Flatten, Squeeze, Unsqueeze and Expand whose static output shape is the
input's; Slice of the whole tensor with unit steps; Pad with zero pads; Tile by ones; Concat, Max, Min,
Sum and Mean of one input; Split into one part; and x+0, 0+x, x-0, x*1, 1*x, x/1 when the constant is all
zeros/ones and does not change x's static shape or dtype by broadcasting (so the result is exactly x; only
-0.0 + 0 = +0.0 differs in the sign bit, which compares equal). The node is then bypassed, keeping the
output's name if it is a graph output (the producer of the input writes it directly).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..ir import Graph, Node, Value
from .manager import register_pass
from .report import PassStats
from .rewrite import bypass, is_graph_output, shapes_equal

Rule = Callable[[Node], "Value | None"]


def _first(node: Node) -> Value | None:
    return node.inputs[0] if node.inputs else None


def _dropout(node: Node) -> Value | None:
    training = node.input(2)  # ONNX's training_mode input, if a graph still has it: must be a constant false
    return _first(node) if training is None or (training.data is not None and not training.data.any()) else None


def _same_shape(node: Node) -> Value | None:
    x = _first(node)
    return x if x is not None and x.is_static and shapes_equal(x, node.outputs[0]) else None


def _cast(node: Node) -> Value | None:
    x = _first(node)
    return x if x is not None and x.dtype is not None and int(x.dtype) == int(node.attr("to", -1)) else None


def _transpose(node: Node) -> Value | None:
    x, perm = _first(node), node.attr("perm")
    return x if perm is not None and list(perm) == list(range(len(perm))) else None


def _slice(node: Node) -> Value | None:
    steps = node.input(4)
    if steps is not None and (steps.data is None or np.any(steps.data != 1)):
        return None
    return _same_shape(node)


def _pad(node: Node) -> Value | None:
    pads = node.attr("pads")
    return _first(node) if pads is not None and not any(pads) else None


def _tile(node: Node) -> Value | None:
    repeats = node.input(1)
    return _first(node) if repeats is not None and repeats.data is not None and np.all(repeats.data == 1) else None


def _single_input(node: Node) -> Value | None:
    present = [v for v in node.inputs if v is not None]
    return present[0] if len(present) == 1 else None


def _split(node: Node) -> Value | None:
    return _first(node) if len(node.outputs) == 1 else None


_NEUTRAL = {"Add": (0, (0, 1)), "Sub": (0, (1,)), "Mul": (1, (0, 1)), "Div": (1, (1,))}


def _arith(node: Node) -> Value | None:
    """x op c where c is all neutral elements: `_NEUTRAL[op] = (element, positions c may take)`."""
    element, positions = _NEUTRAL[node.op_type]
    for position in positions:
        constant, other = node.input(position), node.input(1 - position)
        if constant is None or other is None or constant.data is None or constant.data.size == 0:
            continue
        if np.all(constant.data == element) and other.dtype == node.outputs[0].dtype \
                and other.is_static and shapes_equal(other, node.outputs[0]):
            return other
    return None


RULES: dict[str, Rule] = {
    "Identity": _first, "Dropout": _dropout, "Cast": _cast, "Transpose": _transpose, "Reshape": _same_shape,
    "Flatten": _same_shape, "Squeeze": _same_shape, "Unsqueeze": _same_shape, "Expand": _same_shape,
    "Slice": _slice, "Pad": _pad, "Tile": _tile, "Concat": _single_input, "Max": _single_input,
    "Min": _single_input, "Sum": _single_input, "Mean": _single_input, "Split": _split,
    "Add": _arith, "Sub": _arith, "Mul": _arith, "Div": _arith,
}


@register_pass("noop_removal", stage="optimize_original", order=20)
def noop_removal(graph: Graph, stats: PassStats) -> bool:
    """Bypasses Identity, inference Dropout and ops that provably return their input unchanged."""
    changed = False
    for node in list(graph.nodes):
        rule = RULES.get(node.op_type) if node.domain == "" else None
        source = rule(node) if rule is not None else None
        if source is None or any(v.consumers or is_graph_output(graph, v) for v in node.outputs[1:]):
            continue
        if bypass(graph, node, source, node.outputs[0]):
            stats.add(f"{node.op_type} removed")
            changed = True
    return changed
