"""Invariant checks of a graph, run after every pass when the pass manager is asked to (`check=True`).

Checks that producer and consumer links agree with node inputs and outputs, that nodes are in topological
order, that every value read is a graph input, a constant or produced by a node of the graph, that graph
outputs are defined, and that FusedElementwise programs only name earlier slots.
"""

from __future__ import annotations

from ..ir import Graph, Node


class GraphInvariantError(AssertionError):
    pass


def verify(graph: Graph, where: str = "") -> None:
    prefix = f"{graph.name}{' ' + where if where else ''}: "
    inputs = {id(v) for v in graph.inputs}
    defined: set[int] = set(inputs)
    in_graph = {id(n) for n in graph.nodes}
    for node in graph.nodes:
        for value in node.inputs:
            if value is None:
                continue
            if not (id(value) in defined or value.is_constant):
                raise GraphInvariantError(f"{prefix}{node} reads {value.name!r} before it is defined")
            if not any(c is node for c in value.consumers):
                raise GraphInvariantError(f"{prefix}{node} is missing from the consumers of {value.name!r}")
        for value in node.outputs:
            if value.producer is not node:
                raise GraphInvariantError(f"{prefix}{value.name!r} names {value.producer} as producer, not {node}")
            defined.add(id(value))
        _check_consumers(node, in_graph, prefix)
        if node.op_type == "FusedElementwise":
            _check_program(node, prefix)
    for value in graph.outputs:
        if id(value) not in defined and not value.is_constant:
            raise GraphInvariantError(f"{prefix}graph output {value.name!r} is never produced")


def _check_consumers(node: Node, in_graph: set[int], prefix: str) -> None:
    for value in node.outputs:
        for consumer in value.consumers:
            if id(consumer) not in in_graph:
                raise GraphInvariantError(f"{prefix}{value.name!r} lists {consumer}, which is not in the graph")
            if not any(v is value for v in consumer.inputs):
                raise GraphInvariantError(f"{prefix}{consumer} is listed as a reader of {value.name!r} but is not")


def _check_program(node: Node, prefix: str) -> None:
    program = node.attr("program")
    if not program:
        raise GraphInvariantError(f"{prefix}{node} has no program")
    for step_index, step in enumerate(program):
        for slot in step["inputs"]:
            if not 0 <= slot < len(node.inputs) + step_index:
                raise GraphInvariantError(f"{prefix}{node} step {step_index} reads slot {slot}, not yet defined")

