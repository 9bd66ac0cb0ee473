"""Automatic elementwise fusion (GE's auto-fuse of elementwise/broadcast chains; TVM's injective fusion).

Groups maximal DAGs of elementwise and broadcasting ops that have a single external output into one
`FusedElementwise` node (domain "ascendsim") that the runtime runs in one pass over memory. Walking the
nodes from the last to the first, an ungrouped fusable node starts a group (it is the group's root, the one
value read outside); the group then grows backwards: a producer of a member joins when it is fusable, not
yet grouped, not a graph output, and every reader of its output is already a member. So no member except
the root is read outside the group, which is what makes a single output correct. Elementwise ops commute
with broadcasting, so running the whole program on inputs broadcast to the root's shape gives the same
result as the original ops. The node's inputs are the group's external inputs in order of first use, and
its `program` attribute lists the steps in topological order per the fused-op convention: step inputs
`< n_inputs` name node inputs, `>= n_inputs` earlier steps; the last step is the output. Groups of one are
left alone.
"""

from __future__ import annotations

from typing import Any

from .. import host_kernels
from ..ir import ASCENDSIM_DOMAIN, Graph, Node, Value
from ..ops import lookup
from .manager import register_pass
from .report import PassStats
from .rewrite import is_graph_output, replace_subgraph


def fusable(node: Node) -> bool:
    spec = lookup(node.op_type, node.domain)  # the op registry says which ops are elementwise
    return (node.domain == "" and spec is not None and spec.elementwise and node.op_type in host_kernels.HOST_KERNELS
            and len(node.outputs) == 1 and all(v is not None for v in node.inputs))


@register_pass("elementwise_fusion", stage="stage2", order=10)
def elementwise_fusion(graph: Graph, stats: PassStats) -> bool:
    """Fuses chains/DAGs of elementwise ops with one external output into FusedElementwise nodes."""
    position = {id(n): i for i, n in enumerate(graph.nodes)}
    grouped: set[int] = set()
    groups: list[list[Node]] = []
    for root in reversed(graph.nodes):
        if id(root) in grouped or not fusable(root):
            continue
        members = _grow(graph, root, grouped)
        if len(members) > 1:
            groups.append(sorted(members, key=lambda n: position[id(n)]))
    for members in groups:
        inputs, program = _program(members)
        root = members[-1]
        replace_subgraph(graph, members, root.outputs[0], "FusedElementwise", inputs,
                         attrs={"program": program}, domain=ASCENDSIM_DOMAIN, name=f"fused_{root.name}")
        stats.add("groups fused")
        stats.add("nodes fused", len(members))
    return bool(groups)


def _grow(graph: Graph, root: Node, grouped: set[int]) -> list[Node]:
    members = [root]
    inside = {id(root)}
    grouped.add(id(root))
    work = [root]
    while work:
        node = work.pop()
        for value in node.inputs:
            producer = value.producer if value is not None else None
            if producer is None or id(producer) in grouped or not fusable(producer):
                continue
            out = producer.outputs[0]
            if is_graph_output(graph, out) or any(id(c) not in inside for c in out.consumers):
                continue
            members.append(producer)
            inside.add(id(producer))
            grouped.add(id(producer))
            work.append(producer)
    return members


def _program(members: list[Node]) -> tuple[list[Value], list[dict[str, Any]]]:
    """The external inputs (first use order) and the steps, with slot numbers per the convention."""
    step_of = {id(n.outputs[0]): i for i, n in enumerate(members)}
    inputs: list[Value] = []
    slot_of: dict[int, int] = {}
    for node in members:
        for value in node.inputs:
            assert value is not None
            if id(value) not in step_of and id(value) not in slot_of:
                slot_of[id(value)] = len(inputs)
                inputs.append(value)
    program = []
    for node in members:
        slots = [slot_of[id(v)] if id(v) in slot_of else len(inputs) + step_of[id(v)]
                 for v in node.inputs if v is not None]
        program.append({"op": node.op_type, "inputs": slots, "attrs": dict(node.attrs)})
    return inputs, program
