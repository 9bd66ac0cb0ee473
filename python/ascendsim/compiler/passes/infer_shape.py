"""Shape and dtype inference as a pass (GE's InferShapePass in PrepareGraph): runs the frontend's
shape_inference over the graph so later passes (Shape folding, no-op removal, the fusions' shape guards)
see every dtype and shape, also on graphs built directly in the IR rather than imported.
"""

from __future__ import annotations

from ..ir import Graph
from .manager import register_pass
from .report import PassStats


@register_pass("infer_shape", stage="prepare", order=0)
def infer_shape(graph: Graph, stats: PassStats) -> bool:
    """Infers the dtype and shape of every value (does not change the graph's structure)."""
    from ..shape_inference import infer_shapes

    unknown = sum(1 for n in graph.nodes for v in n.outputs if v.shape is None or v.dtype is None)
    infer_shapes(graph)
    stats.add("shapes inferred", unknown - sum(1 for n in graph.nodes for v in n.outputs
                                               if v.shape is None or v.dtype is None))
    return False
