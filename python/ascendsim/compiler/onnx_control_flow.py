"""ONNX If and Loop -> IR nodes whose subgraphs are graphs of their own.

Each subgraph (If's then_branch / else_branch, Loop's body) is imported by a child of the enclosing graph's
importer and kept in the root graph's `subgraphs`; the node's attribute holds its index there. The index is
taken before the subgraph's own nested subgraphs are imported, so nested ones always have larger indices
(the runtime refuses a subgraph reference that does not point forward: no cycles).

Outer-scope values: a name a subgraph reads without defining it is looked up in the enclosing graphs
(onnx_import.py `lookup`): a constant is copied in; any other value becomes an extra input of the subgraph,
and the same outer value an extra input of the control-flow node, in the same order (GE binds a functional
op's subgraph the same way: the parent node's inputs feed the subgraph's Data nodes). The attribute
`captured` counts those trailing inputs.

If:   a condition known at compile time (constant, or folded from constants and static shapes, as a function
      body's shape tests are) inlines the branch it picks: no subgraph, the model stays static. Otherwise
      inputs [cond, captured...]; both branches take the same captured list (a value only one branch reads is
      an unused input of the other); output i has the branches' dtype and the dims the branches agree on
      (others unknown: the taken branch decides them at run time).
Loop: inputs [M, cond, v_initial..., captured...]; the body's inputs [iter_num, cond, v..., captured...] with
      the carried values' dims unknown (an iteration may change them); outputs: the N final carried values,
      then the K scan outputs, each [iterations] + the body's per-iteration shape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import onnx
from onnx import helper

from .errors import CompileError, node_error
from .ir import DType, Shape, Value
from .onnx_types import dtype_from_onnx

if TYPE_CHECKING:
    from .onnx_import import _Importer


def import_control_flow(importer: _Importer, proto: onnx.NodeProto, name: str) -> None:
    """Adds the If or Loop node `proto` (named `name`) to the importer's graph with its subgraphs."""
    graphs = {a.name: a.g for a in proto.attribute if a.type == onnx.AttributeProto.GRAPH}
    if proto.op_type == "If":
        _import_if(importer, proto, name, graphs)
    else:
        _import_loop(importer, proto, name, graphs)


def _subgraph(importer: _Importer, graph: onnx.GraphProto | None, node: str, op: str, attr: str) -> _Importer:
    """A child importer for `graph` with its slot in the root's subgraph list reserved."""
    if graph is None:
        raise node_error(node, op, f"attribute {attr!r} (a subgraph) is missing")
    child = type(importer)(graph, importer.graph.opset, parent=importer)
    child.graph.name = f"{node}/{attr}"
    importer.root.subgraphs.append(child.graph)
    child._initializers()
    return child


def _finish(child: _Importer, node: str, op: str, attr: str) -> None:
    try:
        child.body(check_declared=False)
    except CompileError as error:
        raise CompileError(f"node {node!r} ({op}): subgraph {attr!r}: {error}") from error
    for value in child.graph.outputs:
        if value.dtype is None or value.shape is None:
            raise node_error(node, op, f"subgraph {attr!r}: output {value.name!r} has no known dtype and rank")


def _index(importer: _Importer, child: _Importer) -> int:
    return next(i for i, g in enumerate(importer.root.subgraphs) if g is child.graph)


def _import_if(importer: _Importer, proto: onnx.NodeProto, name: str, graphs: dict[str, onnx.GraphProto]) -> None:
    cond = importer._input(proto.input[0], name, "If") if proto.input else None
    if cond is None:
        raise node_error(name, "If", "input 'cond' is missing")
    if not cond.is_constant and cond.producer is not None:  # computed from constants and static shapes?
        from .passes.constant_folding import constant_folding
        from .passes.report import PassStats

        constant_folding(importer.graph, PassStats())  # (what the pass does later anyway; names are kept)
    if cond.is_constant:  # known at compile time (e.g. a shape test in a function body): the branch inlined
        _inline_branch(importer, proto, name, graphs, bool(np.asarray(cond.data).reshape(-1)[0]))
        return
    branches = []
    for attr in ("then_branch", "else_branch"):
        child = _subgraph(importer, graphs.get(attr), name, "If", attr)
        if len(child.proto.input):
            raise node_error(name, "If", f"subgraph {attr!r} declares inputs; an If branch takes none")
        _finish(child, name, "If", attr)
        branches.append(child)
    then, other = branches
    if len(then.graph.outputs) != len(other.graph.outputs):
        raise node_error(name, "If", f"then_branch has {len(then.graph.outputs)} outputs, else_branch "
                         f"{len(other.graph.outputs)}")
    captured = _bind_captured(branches)
    outputs = importer._outputs(proto)
    if len(outputs) != len(then.graph.outputs):
        raise node_error(name, "If", f"has {len(outputs)} outputs; its branches have {len(then.graph.outputs)}")
    node = importer.graph.add_node("If", [cond, *captured], outputs, name=name, attrs={
        "then_branch": _index(importer, then), "else_branch": _index(importer, other), "captured": len(captured)})
    for i, (value, a, b) in enumerate(zip(node.outputs, then.graph.outputs, other.graph.outputs)):
        if a.dtype != b.dtype:
            raise node_error(name, "If", f"output {i}: then_branch gives {a.dtype.name if a.dtype else '?'}, "
                             f"else_branch {b.dtype.name if b.dtype else '?'}")
        value.dtype, value.shape = a.dtype, _merge(a.shape, b.shape, f"{name}_out{i}")


def _inline_branch(importer: _Importer, proto: onnx.NodeProto, name: str, graphs: dict[str, onnx.GraphProto],
                   cond: bool) -> None:
    """The branch a constant condition picks, imported into the enclosing graph (its names cannot clash: ONNX
    names are unique across a graph and its subgraphs); an Identity per output gives the If's output names."""
    attr = "then_branch" if cond else "else_branch"
    branch = graphs.get(attr)
    if branch is None:
        raise node_error(name, "If", f"attribute {attr!r} (a subgraph) is missing")
    for tensor in branch.initializer:
        importer._constant(tensor.name, onnx.numpy_helper.to_array(tensor), f"initializer {tensor.name!r}",
                           tensor.data_type)
    for index, node in enumerate(branch.node):
        importer._node(node, index)
    if len(branch.output) != len(proto.output):
        raise node_error(name, "If", f"has {len(proto.output)} outputs; its {attr} has {len(branch.output)}")
    for out, target in zip(branch.output, proto.output):
        if target:
            importer._node(helper.make_node("Identity", [out.name], [target], name=f"{name}/{target}"), 0)


def _bind_captured(branches: list[_Importer]) -> list[Value]:
    """The outer values any branch reads, in first-use order; each branch gets an input for every one."""
    outer: list[Value] = []
    for child in branches:
        for value, _ in child.captured:
            if not any(value is o for o in outer):
                outer.append(value)
    for child in branches:
        inner = {id(o): i for o, i in child.captured}
        for value in outer:
            if id(value) not in inner:  # read by another branch only: an unused input here
                inner[id(value)] = child.graph.value(value.name, value.dtype, value.shape)
            child.graph.inputs.append(inner[id(value)])
    return outer


def _merge(a: Shape | None, b: Shape | None, prefix: str) -> Shape:
    """The dims two shapes agree on (static and equal); a fresh symbol elsewhere; b's rank if ranks differ."""
    if a is None or b is None or len(a) != len(b):
        ref = b if b is not None else a or ()
        return tuple(f"{prefix}_d{d}" for d in range(len(ref)))
    return tuple(x if isinstance(x, int) and x == y else f"{prefix}_d{d}" for d, (x, y) in enumerate(zip(a, b)))


def _import_loop(importer: _Importer, proto: onnx.NodeProto, name: str,
                 graphs: dict[str, onnx.GraphProto]) -> None:
    inputs = [importer._input(n, name, "Loop") for n in proto.input]
    if len(inputs) < 2:
        raise node_error(name, "Loop", "needs the inputs M and cond (either may be empty)")
    trip, cond, initial = inputs[0], inputs[1], inputs[2:]
    _check_scalar(trip, DType.INT64, name, "M")
    _check_scalar(cond, DType.BOOL, name, "cond")
    if any(v is None for v in initial):
        raise node_error(name, "Loop", "a loop-carried input is empty")
    # First with the initial values' shapes (kept when every iteration keeps them, so that the body compiles
    # with what it can know statically), else again with the carried values' dims unknown.
    before = (len(importer.root.subgraphs), set(importer.node_names))
    child = _loop_body(importer, graphs.get("body"), name, initial, None)
    changing = {i for i, (out, inp) in enumerate(zip(child.graph.outputs[1:], child.graph.inputs[2:]))
                if out.shape != inp.shape}
    if changing:
        child = _loop_body(importer, graphs.get("body"), name, initial, (*before, changing))
    carried = len(initial)
    body_outputs = child.graph.outputs
    if len(body_outputs) < 1 + carried:
        raise node_error(name, "Loop", f"body has {len(body_outputs)} outputs; it needs 1 + {carried} (condition, "
                         "the loop-carried values) and then the scan outputs")
    if body_outputs[0].dtype != DType.BOOL or body_outputs[0].shape not in ((), (1,)):
        raise node_error(name, "Loop", f"body output 0 ({body_outputs[0].name!r}, the condition) must be a bool "
                         "scalar")
    captured = [outer for outer, _ in child.captured]
    child.graph.inputs.extend(inner for _, inner in child.captured)
    outputs = importer._outputs(proto)
    if len(outputs) != len(body_outputs) - 1:
        raise node_error(name, "Loop", f"has {len(outputs)} outputs; its body gives {len(body_outputs) - 1} "
                         "(loop-carried values and scan outputs)")
    node = importer.graph.add_node("Loop", [*inputs, *captured], outputs, name=name, attrs={
        "body": _index(importer, child), "captured": len(captured)})
    for i, value in enumerate(node.outputs):
        out = body_outputs[1 + i]
        value.dtype = out.dtype
        if i < carried:
            if out.dtype != initial[i].dtype:  # type: ignore[union-attr]
                raise node_error(name, "Loop", f"body output {1 + i} ({out.name!r}) is {out.dtype.name if out.dtype else '?'}"
                                 f"; the loop-carried value it updates is {initial[i].dtype.name}")  # type: ignore[union-attr]
            value.shape = _merge(initial[i].shape, out.shape, f"{name}_out{i}")  # type: ignore[union-attr]
        else:
            value.shape = (f"{name}_iterations", *_merge(out.shape, out.shape, f"{name}_out{i}"))


def _loop_body(importer: _Importer, graph: onnx.GraphProto | None, name: str, initial: list[Value | None],
               retry: tuple[int, set[str], set[int]] | None) -> _Importer:
    """The Loop body imported with the carried inputs typed as the initial values; a retry (the subgraph
    count and node names before the first attempt, the carried values whose shape an iteration changed) drops
    what the first attempt added and leaves those values' dims unknown."""
    changing = retry[2] if retry is not None else set()
    if retry is not None:
        del importer.root.subgraphs[retry[0]:]  # the first attempt's body and its nested subgraphs
        importer.node_names.clear()
        importer.node_names.update(retry[1])
    child = _subgraph(importer, graph, name, "Loop", "body")
    declared = list(child.proto.input)
    if len(declared) != 2 + len(initial):
        raise node_error(name, "Loop", f"body has {len(declared)} inputs; it needs 2 + {len(initial)} (iteration "
                         "number, condition, the loop-carried values)")
    child.graph.inputs = [child.graph.value(declared[0].name, DType.INT64, ()),
                          child.graph.value(declared[1].name, DType.BOOL, ())]
    for i, (vi, value) in enumerate(zip(declared[2:], initial)):
        assert value is not None and value.shape is not None
        dtype = _declared_dtype(vi, name) or value.dtype
        if dtype != value.dtype:
            raise node_error(name, "Loop", f"body input {vi.name!r} is {dtype.name if dtype else '?'}; the initial "
                             f"value {value.name!r} is {value.dtype.name if value.dtype else '?'}")
        shape = tuple(f"{name}_v{i}_d{d}" for d in range(len(value.shape))) if i in changing else value.shape
        child.graph.inputs.append(child.graph.value(vi.name, dtype, shape))
    _finish(child, name, "Loop", "body")
    return child


def _check_scalar(value: Value | None, dtype: DType, node: str, what: str) -> None:
    if value is not None and (value.dtype != dtype or (value.shape is not None and len(value.shape) > 1)):
        raise node_error(node, "Loop", f"input {what!r} ({value.name!r}) must be a {dtype.name} scalar; it is "
                         f"{value.dtype.name if value.dtype else '?'} of shape {list(value.shape or [])}")


def _declared_dtype(vi: onnx.ValueInfoProto, node: str) -> DType | None:
    if not vi.type.HasField("tensor_type"):
        raise node_error(node, "Loop", f"body input {vi.name!r} is not a tensor; supported: tensor values")
    elem = vi.type.tensor_type.elem_type
    return dtype_from_onnx(elem, f"body input {vi.name!r}") if elem else None


__all__ = ["import_control_flow"]
