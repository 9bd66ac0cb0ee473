"""Dead code elimination (GE's PrunePass + UnusedConstPass).

Marks every node that a graph output depends on, walking producers backwards from the outputs; the other
nodes compute nothing observable and are removed in one sweep. Constants no node reads any more (weights
left behind by folding and fusion) are dropped from the graph's value table so they are not written to
the model. Graph inputs stay even when unused: they are the model's interface.
"""

from __future__ import annotations

from ..ir import Graph, Node
from .manager import register_pass
from .report import PassStats


@register_pass("dead_code_elimination", stage="optimize_original", order=90)
def dead_code_elimination(graph: Graph, stats: PassStats) -> bool:
    """Removes nodes whose outputs reach no graph output, and unused constants."""
    live: set[int] = set()
    stack: list[Node] = [v.producer for v in graph.outputs if v.producer is not None]
    while stack:
        node = stack.pop()
        if id(node) in live:
            continue
        live.add(id(node))
        stack.extend(v.producer for v in node.inputs if v is not None and v.producer is not None)
    dead = [n for n in graph.nodes if id(n) not in live]
    dead_ids = {id(n) for n in dead}
    for node in dead:
        for value in node.inputs:
            if value is not None:
                value.consumers[:] = [c for c in value.consumers if id(c) not in dead_ids]
        for value in node.outputs:
            value.producer = None
            graph.values.pop(value.name, None)
    if dead:
        graph.nodes = [n for n in graph.nodes if id(n) in live]
    outputs = {id(v) for v in graph.outputs}
    unused = [v for v in graph.constants() if not v.consumers and id(v) not in outputs]
    for value in unused:
        del graph.values[value.name]
    stats.add("nodes removed", len(dead))
    stats.add("unused constants removed", len(unused))
    return bool(dead)


register_pass("prune", stage="build", order=10)(dead_code_elimination)
