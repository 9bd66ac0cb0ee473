"""Constant folding (GE's ConstantFoldingPass + DimensionComputePass; ONNX Runtime's ConstantFolding).

Walks the nodes in topological order. A pure node whose inputs are all constants and whose op has a host
kernel (host_kernels.py) is evaluated on the host and its outputs become constants (names kept), so folds
cascade within one walk. Shape and Size of a value whose shape is static fold without its data, and
Shape(x) followed by Gather/Slice folds when the dims it selects are static even if others are symbolic:
this removes the shape arithmetic that exporters emit around Reshape. Not folded: nodes producing a graph
output (the runtime must still write it), results that would add more than FOLD_LIMIT bytes of weights
beyond their inputs (Expand/ConstantOfShape/Tile of a big shape), and nodes whose kernel refuses the input.
"""

from __future__ import annotations

import numpy as np

from .. import host_kernels
from ..ir import Dim, Graph, Node, Value
from .manager import register_pass
from .report import PassStats
from .rewrite import IMPURE_OPS, is_graph_output, make_constant

FOLD_LIMIT = 1 << 20  # bytes a fold may add beyond the size of its inputs
_KERNEL_ERRORS = (ValueError, IndexError, TypeError, KeyError, ArithmeticError)


@register_pass("constant_folding", stage="optimize_original", order=10)
def constant_folding(graph: Graph, stats: PassStats) -> bool:
    """Evaluates nodes whose inputs are all constant (and shapes that are static) on the host."""
    changed = False
    for node in list(graph.nodes):
        if node.op_type in IMPURE_OPS or any(is_graph_output(graph, v) for v in node.outputs):
            continue
        results = _static_shape(node)
        key = "shapes resolved"
        if results is None:
            results = _evaluate(node, stats)
            key = "constants folded"
        if results is None:
            continue
        results = [_as_declared(value, array) for value, array in zip(node.outputs, results)]
        make_constant(graph, node, results)
        stats.add(key)
        changed = True
    if changed and any(not v.is_static for n in graph.nodes for v in n.outputs):
        # A fold can resolve a shape the import could not see through (e.g. Expand's target computed with
        # ConstantOfShape/Equal/Where): refresh the shapes downstream of it.
        from ..shape_inference import infer_shapes

        infer_shapes(graph)
        stats.add("shapes re-inferred")
    return changed


def _evaluate(node: Node, stats: PassStats) -> list[np.ndarray] | None:
    kernel_name = node.op_type if node.domain in ("", "ai.onnx") or node.op_type == "FusedElementwise" else None
    if kernel_name not in host_kernels.HOST_KERNELS:
        return None
    present = [v for v in node.inputs if v is not None]
    if not all(v.is_constant for v in present) or (not present and node.op_type != "Constant"):
        return None
    arrays = [v.data if v is not None else None for v in node.inputs]
    try:
        results = host_kernels.run(node.op_type, arrays, node.attrs, len(node.outputs))
    except _KERNEL_ERRORS:
        stats.add("refused by host kernel")
        return None
    added = sum(np.asarray(r).nbytes for r in results) - sum(a.nbytes for a in arrays if a is not None)
    if added > FOLD_LIMIT:
        stats.add("too large to fold")
        return None
    return [np.asarray(r) for r in results]


def _static_shape(node: Node) -> list[np.ndarray] | None:
    """Shape/Size of a statically shaped value; Gather or Slice of a Shape whose selected dims are static."""
    source = node.input(0)
    if source is None:
        return None
    if node.op_type == "Size" and source.is_static:
        return [np.asarray(int(np.prod(source.shape, dtype=np.int64)), dtype=np.int64)]  # type: ignore[arg-type]
    if node.op_type == "Shape":
        dims = _shape_dims(node)
        picked: np.ndarray | None = None if dims is None else np.arange(len(dims))
    elif node.op_type in ("Gather", "Slice") and source.producer is not None and source.producer.op_type == "Shape":
        dims = _shape_dims(source.producer)
        picked = _select(node, dims)
    else:
        return None
    if dims is None or picked is None or not all(isinstance(dims[int(i)], int) for i in picked.reshape(-1)):
        return None
    flat = [int(dims[int(i)]) for i in picked.reshape(-1)]
    return [np.asarray(flat, dtype=np.int64).reshape(picked.shape)]


def _shape_dims(shape_node: Node) -> list[Dim] | None:
    source = shape_node.input(0)
    if source is None or source.shape is None:
        return None
    return list(source.shape)[shape_node.attr("start", 0):shape_node.attr("end")]


def _select(node: Node, dims: list[Dim] | None) -> np.ndarray | None:
    """The positions a Gather/Slice with constant indices picks out of `dims` (run on the positions, so
    symbolic dims need no value; the caller checks that the picked dims are static)."""
    if dims is None or not all(v is None or v.is_constant for v in node.inputs[1:]):
        return None
    positions = np.arange(len(dims), dtype=np.int64)
    try:
        arrays = [positions] + [v.data if v is not None else None for v in node.inputs[1:]]
        return np.asarray(host_kernels.run(node.op_type, arrays, node.attrs)[0])
    except _KERNEL_ERRORS:
        return None


def _as_declared(value: Value, array: np.ndarray) -> np.ndarray:
    """numpy may promote (e.g. float32 op python float); keep the dtype the graph declared."""
    if value.dtype is not None and array.dtype != value.dtype.numpy:
        return array.astype(value.dtype.numpy)
    return array
