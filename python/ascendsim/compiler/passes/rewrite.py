"""Graph-rewriting helpers shared by the passes, and the op classes they reason about.

The helpers keep the names, dtypes and shapes of the values that survive a rewrite: a replaced subgraph's
new node writes the old root Value (so graph output names and known shapes carry over), a folded node's
outputs become constants in place, and a bypassed no-op hands its output Value to the producer of its
input when the output is a graph output.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..ir import DType, Graph, Node, Value

# Ops whose result depends on more than their inputs: never folded, merged by CSE or moved.
IMPURE_OPS = frozenset({"RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike", "Multinomial",
                        "Bernoulli"})

COMMUTATIVE_OPS = frozenset({"Add", "Mul", "Max", "Min", "Equal", "And", "Or", "Xor", "Sum"})


def is_graph_output(graph: Graph, value: Value) -> bool:
    return any(v is value for v in graph.outputs)


def is_graph_input(graph: Graph, value: Value) -> bool:
    return any(v is value for v in graph.inputs)


def sole_consumer(graph: Graph, value: Value) -> Node | None:
    """The one node reading `value`, if exactly one does and `value` is not a graph output."""
    if len(value.consumers) != 1 or is_graph_output(graph, value):
        return None
    return value.consumers[0]


def detach(graph: Graph, node: Node) -> None:
    """Takes `node` out of the graph and out of its inputs' consumer lists; its outputs are left alone."""
    for value in node.inputs:
        if value is not None:
            value.consumers.remove(node)
    graph.nodes.remove(node)


def make_constant(graph: Graph, node: Node, results: Sequence[np.ndarray]) -> None:
    """Turns `node`'s outputs into constants holding `results` (names kept) and removes `node`."""
    detach(graph, node)
    for value, array in zip(node.outputs, results):
        value.data = np.asarray(array, order="C")
        value.dtype = DType.of_numpy(array.dtype)
        value.shape = tuple(int(d) for d in array.shape)
        value.producer = None


def replace_subgraph(graph: Graph, nodes: Sequence[Node], root: Value, op_type: str,
                     inputs: Sequence[Value | None], *, attrs: dict[str, Any], domain: str = "",
                     name: str | None = None) -> Node:
    """Replaces `nodes` (the matched subgraph; `root`, their only value read outside, is an output of one
    of them) by one new node that writes `root`. The new node is placed where the root's producer was."""
    producer = root.producer
    assert producer is not None and producer in nodes
    for extra in producer.outputs:
        if extra is not root and (extra.consumers or is_graph_output(graph, extra)):
            raise ValueError(f"cannot replace {producer}: its output {extra.name!r} is still used")
    new = graph.add_node(op_type, inputs, [root], attrs=attrs, domain=domain, name=name or producer.name,
                         before=producer)
    detach(graph, producer)
    for extra in producer.outputs:
        if extra is not root:
            graph.values.pop(extra.name, None)
    for node in reversed(nodes):
        if node is not producer:
            graph.remove_node(node)
    return new


def bypass(graph: Graph, node: Node, source: Value, output: Value) -> bool:
    """Removes the no-op `node` whose `output` equals its input `source`; False when impossible (the output
    is a graph output and the source cannot take its name: a graph input, a constant or another output)."""
    if not is_graph_output(graph, output):
        graph.replace_all_uses(output, source)
        graph.remove_node(node)
        return True
    producer = source.producer
    if producer is None or is_graph_output(graph, source):
        return False
    detach(graph, node)
    for consumer in list(source.consumers):
        for index, value in enumerate(consumer.inputs):
            if value is source:
                graph.set_input(consumer, index, output)
    producer.outputs[producer.outputs.index(source)] = output
    output.producer = producer
    graph.values.pop(source.name, None)
    return True


def constant_scalar(value: Value | None) -> float | None:
    """The number held by a one-element constant, else None."""
    if value is None or value.data is None or value.data.size != 1:
        return None
    return float(value.data.reshape(-1)[0])


def shapes_equal(a: Value, b: Value) -> bool:
    return a.shape is not None and b.shape is not None and tuple(a.shape) == tuple(b.shape)
