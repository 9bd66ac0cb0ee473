"""Topological sorting before build (GE's TopologicalSorting after OptimizeStage2): rewrites insert
replacement nodes where the replaced root was, which keeps the order valid, but a final stable sort makes
the order the build stage and the OM task list rely on a checked invariant rather than a convention.
"""

from __future__ import annotations

from ..ir import Graph
from .manager import register_pass
from .report import PassStats


@register_pass("topological_sort", stage="build", order=90)
def topological_sort(graph: Graph, stats: PassStats) -> bool:
    """Stable topological sort of the nodes (raises on a cycle)."""
    before = [id(n) for n in graph.nodes]
    graph.topological_sort()
    moved = sum(1 for old, node in zip(before, graph.nodes) if old != id(node))
    stats.add("nodes reordered", moved)
    return False
