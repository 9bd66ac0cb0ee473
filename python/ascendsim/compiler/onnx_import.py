"""ONNX -> Graph.

Algorithm: load the model with the `onnx` package (external data from the model's directory), check it,
require a default-domain opset in 11..21, inline model-local functions, then build the Graph in one pass:
initializers and Constant nodes become constant Values (numpy data); graph inputs get their dtype and shape
(`input_shapes` overrides applied, ATC's -1 = dynamic); each node is added as ONNX wrote it (attributes
converted to plain Python values, tensors to numpy), normalised into the IR form of its op (onnx_opsets.py;
ops the IR composes from others are lowered there, onnx_lowering.py) and typed by the op registry right away,
so later nodes see the shapes that normalisation needs; an op with neither an IR form nor a lowering is added
as its ONNX function body when ONNX defines one (onnx_functions.py), node by node the same way; If and Loop
are imported with their subgraphs by child importers that resolve outer-scope names (onnx_control_flow.py). Finally,
unused optional outputs and constants are dropped. Anything outside what the compiler supports raises a
CompileError naming the node, the op and what is supported.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Union

import numpy as np
import onnx
from onnx import AttributeProto, numpy_helper

from .errors import CompileError, node_error
from .ir import CONTROL_FLOW_OPS, Dim, Graph, Value
from .onnx_control_flow import import_control_flow
from .onnx_functions import function_body, type_problem
from .onnx_lowering import LOWERED_OPS
from .onnx_opsets import normalize
from .onnx_types import dtype_from_onnx, dtype_to_onnx
from .ops import SUPPORTED_OPS, supported_list
from .ops._common import Known
from .shape_inference import infer_node_types

MIN_OPSET, MAX_OPSET = 11, 21
ModelSource = Union[str, os.PathLike, bytes, onnx.ModelProto]
_OPTIONAL_OUTPUTS = {"BatchNormalization": 1, "Dropout": 1, "MaxPool": 1, "LayerNormalization": 1}
_OTHER_CONTROL_FLOW = ("Scan", "SequenceMap")  # If and Loop: onnx_control_flow.py


def load_model(model: ModelSource, base_dir: str | os.PathLike | None = None) -> onnx.ModelProto:
    """The ModelProto with external data loaded; a missing or corrupt file is a CompileError."""
    if isinstance(model, onnx.ModelProto):
        if base_dir is not None:
            onnx.external_data_helper.load_external_data_for_model(model, os.fspath(base_dir))
        return model
    if isinstance(model, bytes):
        try:
            return onnx.load_from_string(model)
        except Exception as exc:
            raise CompileError(f"the bytes given are not a valid ONNX model: {exc}") from exc
    path = Path(model)
    if not path.is_file():
        raise CompileError(f"model file {os.fspath(path)!r} does not exist or is not a file")
    try:
        return onnx.load(os.fspath(path), load_external_data=True)
    except Exception as exc:  # protobuf DecodeError, missing external data file, ...
        raise CompileError(f"cannot read ONNX model {os.fspath(path)!r}: {exc}") from exc


def import_onnx(model: ModelSource, *, input_shapes: Mapping[str, Sequence[int]] | None = None,
                base_dir: str | os.PathLike | None = None) -> Graph:
    """Imports an ONNX model (path, bytes or ModelProto) into a typed Graph in IR form."""
    proto = load_model(model, base_dir)
    opset = _check_model(proto)
    if proto.functions:
        proto = onnx.inliner.inline_local_functions(proto)
    return _Importer(proto.graph, opset).run(dict(input_shapes or {}))


def _check_model(proto: onnx.ModelProto) -> int:
    try:
        onnx.checker.check_model(_without_weight_data(proto))
    except onnx.checker.ValidationError as exc:
        raise CompileError(f"the ONNX model is invalid: {exc}") from exc
    except ValueError:
        pass  # larger than 2 GB in memory: the checker cannot serialise it; the import checks what it needs
    versions = {imp.domain or "ai.onnx": imp.version for imp in proto.opset_import}
    opset = versions.get("ai.onnx")
    if opset is None:
        raise CompileError("the ONNX model imports no default-domain (ai.onnx) opset")
    if not MIN_OPSET <= opset <= MAX_OPSET:
        raise CompileError(f"ONNX opset {opset} is not supported; supported: opsets {MIN_OPSET} to {MAX_OPSET}")
    return opset


def _without_weight_data(proto: onnx.ModelProto) -> onnx.ModelProto:
    """A copy of the model for the checker with the initializers declared as graph inputs instead of carried:
    the checker serialises the whole model (1.3 s for BERT-base's 436 MB, more than the rest of the compile),
    while the importer reads every initializer anyway and checks its size there (`_initializer`)."""
    light = onnx.ModelProto()
    _copy_fields(proto, light, skip={"graph"})
    _copy_fields(proto.graph, light.graph, skip={"initializer"})
    declared = {vi.name for vi in proto.graph.input}
    for tensor in proto.graph.initializer:
        if tensor.name not in declared:
            light.graph.input.append(onnx.helper.make_tensor_value_info(tensor.name, tensor.data_type, tensor.dims))
    return light


def _copy_fields(source: Any, target: Any, skip: set[str]) -> None:
    for field, value in source.ListFields():
        if field.name in skip:
            continue
        if hasattr(value, "extend"):  # repeated
            getattr(target, field.name).extend(value)
        elif hasattr(value, "CopyFrom"):  # message
            getattr(target, field.name).CopyFrom(value)
        else:
            setattr(target, field.name, value)


def _initializer(tensor: onnx.TensorProto) -> np.ndarray:
    """The initializer's data; a size that does not match its shape is a CompileError (as the checker says)."""
    if tensor.data_location == onnx.TensorProto.EXTERNAL and not tensor.raw_data:
        where = {entry.key: entry.value for entry in tensor.external_data}.get("location", "?")
        raise CompileError(f"initializer {tensor.name!r} is stored in the external file {where!r}, which was not "
                           "loaded: give the model as a file path (the external file next to it)")
    try:
        return numpy_helper.to_array(tensor)
    except (ValueError, TypeError, KeyError, onnx.checker.ValidationError) as exc:
        raise CompileError(f"the ONNX model is invalid: initializer {tensor.name!r} (shape {list(tensor.dims)}, "
                           f"data type {tensor.data_type}) cannot be read: {exc}") from exc


class _Importer:
    """Imports one ONNX graph: the model's, or (with `parent`) a subgraph of an If/Loop node, whose names not
    defined in it are looked up in the enclosing graphs (outer-scope values, onnx_control_flow.py)."""

    def __init__(self, proto: onnx.GraphProto, opset: int, parent: _Importer | None = None) -> None:
        self.proto = proto
        self.parent = parent
        self.graph = Graph(proto.name or "graph", opset=opset)
        self.root: Graph = parent.root if parent is not None else self.graph  # holds every subgraph
        self.known: dict[str, Known] = {}
        self.declared = {vi.name: vi for vi in (*proto.value_info, *proto.output)}
        self.node_names: set[str] = parent.node_names if parent is not None else set()
        self.captured: list[tuple[Value, Value]] = []  # (outer value, this graph's input standing for it)

    def run(self, input_shapes: dict[str, Sequence[int]]) -> Graph:
        self._initializers()
        self._inputs(input_shapes)
        self.body(check_declared=not input_shapes)
        return self.graph

    def _initializers(self) -> None:
        g = self.proto
        if len(g.sparse_initializer):
            raise CompileError(f"sparse initializer {g.sparse_initializer[0].values.name!r} is not supported; "
                               "supported: dense initializers")
        for tensor in g.initializer:
            self._constant(tensor.name, _initializer(tensor), f"initializer {tensor.name!r}",
                           tensor.data_type)

    def body(self, *, check_declared: bool) -> None:
        """The nodes and outputs (after the inputs were added); `check_declared` compares the declared output
        shapes (overridden inputs leave the model's declared output shapes behind)."""
        for index, node in enumerate(self.proto.node):
            self._node(node, index)
        for out in self.proto.output:
            value = self.lookup(out.name)
            if value is None:
                raise CompileError(f"graph output {out.name!r} is not produced by any node")
            self.graph.outputs.append(value)
            if check_declared:
                _check_declared_output(out, value)
        self._cleanup()

    def lookup(self, name: str) -> Value | None:
        """The value `name` names here: defined in this graph, or an outer-scope value (a constant is copied
        in; another becomes an input of this graph, bound to the outer value by the control-flow node)."""
        value = self.graph.values.get(name)
        if value is not None or self.parent is None:
            return value
        outer = self.parent.lookup(name)
        if outer is None:
            return None
        if outer.is_constant:
            return self.graph.constant(name, outer.data)  # type: ignore[arg-type]
        inner = self.graph.value(name, outer.dtype, outer.shape)
        self.captured.append((outer, inner))
        return inner

    # ---- values ---------------------------------------------------------------------------------------

    def _constant(self, name: str, array: np.ndarray, where: str, elem_type: int | None = None) -> Value:
        if elem_type is not None:
            dtype_from_onnx(elem_type, where)
        elif array.dtype.kind in "OSU":
            raise CompileError(f"{where}: string tensors are not supported")
        if name in self.graph.values:
            raise CompileError(f"{where}: the name {name!r} is defined twice")
        return self.graph.constant(name, np.asarray(array))

    def _inputs(self, input_shapes: dict[str, Sequence[int]]) -> None:
        initializers = {t.name for t in self.proto.initializer}
        inputs = [vi for vi in self.proto.input if vi.name not in initializers]
        unknown = set(input_shapes) - {vi.name for vi in inputs}
        if unknown:
            raise CompileError(f"input shape given for {sorted(unknown)}, which the model does not have; "
                               f"its inputs are {[vi.name for vi in inputs]}")
        for vi in inputs:
            if not vi.type.HasField("tensor_type"):
                raise CompileError(f"graph input {vi.name!r} is not a tensor; supported: tensor inputs")
            tt = vi.type.tensor_type
            dtype = dtype_from_onnx(tt.elem_type, f"graph input {vi.name!r}")
            declared = _dims(vi.name, tt) if tt.HasField("shape") else None
            shape = _override_shape(vi.name, declared, input_shapes.get(vi.name))
            if shape is None:
                raise CompileError(f"graph input {vi.name!r} has no shape in the model; give it with input_shapes")
            value = self.graph.value(vi.name, dtype, shape)
            self.graph.inputs.append(value)

    # ---- nodes ----------------------------------------------------------------------------------------

    def _node(self, proto: onnx.NodeProto, index: int, opset: int | None = None) -> None:
        """Adds one ONNX node; `opset` is the default-domain opset it is written in (the model's, or the
        opset of the function body it comes from)."""
        opset = self.graph.opset if opset is None else opset
        name = self._node_name(proto, index)
        domain = "" if proto.domain in ("", "ai.onnx") else proto.domain
        if domain:
            raise node_error(name, proto.op_type, f"domain {proto.domain!r} is not supported; supported: the "
                             "default ONNX domain (ai.onnx)")
        if proto.op_type in CONTROL_FLOW_OPS:
            import_control_flow(self, proto, name)
            return
        if proto.op_type in _OTHER_CONTROL_FLOW:
            raise node_error(name, proto.op_type, "control flow (subgraphs) is not supported for this op; "
                             "supported: If and Loop")
        if proto.op_type not in SUPPORTED_OPS and proto.op_type not in LOWERED_OPS:
            self._function(proto, name, opset)
            return
        attrs = {a.name: _attr_value(a, name, proto.op_type) for a in proto.attribute}
        if proto.op_type == "Constant":
            self._constant(proto.output[0], _constant_value(attrs, name), f"node {name!r} (Constant)")
            return
        inputs = [self._input(n, name, proto.op_type) for n in proto.input]
        outputs = self._outputs(proto)
        node = self.graph.add_node(proto.op_type, inputs, outputs, attrs=attrs, name=name)
        for typed in normalize(self.graph, node, opset, self.known):
            infer_node_types(typed, self.known)
            for value in typed.outputs:
                self._fill_declared(value)

    def _function(self, proto: onnx.NodeProto, name: str, opset: int) -> None:
        """An op without an IR form: its ONNX function body if it has one, else the op is not supported."""
        named = onnx.NodeProto()
        named.CopyFrom(proto)
        named.name = name  # the body's values and nodes are named after it
        types = [self._type_proto(v) for v in proto.input]
        body = function_body(named, opset, types)
        if body is None:
            raise node_error(name, proto.op_type, f"op is not supported; supported ops: {supported_list()}")
        problem = type_problem(named, opset, types)
        if problem is not None:
            raise node_error(name, proto.op_type, problem)
        for index, inner in enumerate(body.nodes):
            try:
                self._node(inner, index, max(body.opset, MIN_OPSET))
            except CompileError as error:
                raise node_error(name, proto.op_type, f"compiled as its ONNX function body: {error}") from error

    def _type_proto(self, name: str) -> onnx.TypeProto:
        """The ONNX type of a value defined so far (what context-dependent function bodies are built from)."""
        value = self.graph.values.get(name) if name else None
        if value is None or value.dtype is None:
            return onnx.TypeProto()
        dims = None if value.shape is None else [d if isinstance(d, int) else str(d) for d in value.shape]
        return onnx.helper.make_tensor_type_proto(dtype_to_onnx(value.dtype), dims)

    def _node_name(self, proto: onnx.NodeProto, index: int) -> str:
        name = proto.name or f"{proto.op_type}_{index}"
        while name in self.node_names:
            name = f"{name}_{index}"
        self.node_names.add(name)
        return name

    def _input(self, name: str, node: str, op_type: str) -> Value | None:
        if not name:
            return None
        value = self.lookup(name)
        if value is None:
            raise node_error(node, op_type, f"input {name!r} is not defined before the node")
        return value

    def _outputs(self, proto: onnx.NodeProto) -> list[Value]:
        names = list(proto.output)
        while names and not names[-1]:
            names.pop()
        outputs = []
        for i, out in enumerate(names):
            if out and out in self.graph.values:
                raise node_error(proto.name, proto.op_type, f"output {out!r} is defined twice")
            outputs.append(self.graph.value(out or f"{proto.name or proto.op_type}_unused{i}"))
        return outputs

    def _fill_declared(self, value: Value) -> None:
        """Types left unknown by inference come from the model's value_info, if it has them."""
        vi = self.declared.get(value.name)
        if vi is None or not vi.type.HasField("tensor_type"):
            return
        tt = vi.type.tensor_type
        if value.dtype is None and tt.elem_type:
            value.dtype = dtype_from_onnx(tt.elem_type, f"value {value.name!r}")
        if value.shape is None and tt.HasField("shape"):
            value.shape = _dims(value.name, tt)

    def _cleanup(self) -> None:
        graph_outputs = {id(v) for v in self.graph.outputs}
        for node in self.graph.nodes:
            keep = _OPTIONAL_OUTPUTS.get(node.op_type)
            if keep is None:
                continue
            while len(node.outputs) > keep and not node.outputs[-1].consumers \
                    and id(node.outputs[-1]) not in graph_outputs:
                self.graph.values.pop(node.outputs.pop().name, None)
            if len(node.outputs) > keep and node.op_type in ("BatchNormalization", "MaxPool"):
                raise node_error(node.name, node.op_type, f"output {node.outputs[keep].name!r} is used; "
                                 f"supported: only the first output (inference)")
        for value in list(self.graph.constants()):
            if not value.consumers and id(value) not in graph_outputs:
                del self.graph.values[value.name]


def _check_declared_output(declared: onnx.ValueInfoProto, value: Value) -> None:
    """A graph output whose declared shape contradicts the inferred one, where both are concrete, is compiled
    as inferred with a warning naming the node, as onnxruntime runs it ("Expected shape from model ... does
    not match actual shape"): published models carry stale declarations (a hand-written [], a size from
    another input resolution) and work everywhere else, so refusing them would stop real programs."""
    tt = declared.type.tensor_type
    if not declared.type.HasField("tensor_type") or not tt.HasField("shape") or not value.is_static:
        return
    dims = tt.shape.dim
    inferred = list(value.shape)  # type: ignore[arg-type]
    contradicts = len(dims) != len(inferred) or any(
        d.HasField("dim_value") and d.dim_value != got for d, got in zip(dims, inferred))
    if contradicts and value.producer is not None:
        shown = [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in dims]
        warnings.warn(f"node {value.producer.name!r} ({value.producer.op_type}): output {value.name!r} is "
                      f"declared with shape {shown}, but the node produces {inferred}; compiled as produced",
                      stacklevel=2)


def _dims(name: str, tt: onnx.TypeProto.Tensor) -> tuple[Dim, ...]:
    return tuple(d.dim_value if d.HasField("dim_value") else (d.dim_param or f"{name}_dim{i}")
                 for i, d in enumerate(tt.shape.dim))


def _override_shape(name: str, declared: tuple[Dim, ...] | None, given: Sequence[int] | None) -> tuple[Dim, ...] | None:
    """The model's shape with ATC's --input_shape applied (-1 keeps/creates a dynamic dim; [-2], unknown rank,
    makes every symbolic dim of the model's declared rank dynamic: the graph is inferred at that rank)."""
    if given is None:
        return declared
    given = [int(d) for d in given]
    if given == [-2]:
        if declared is None:
            raise CompileError(f"input {name!r} is given unknown rank (-2), but the model declares no shape for it: "
                               "its rank is needed to compile the graph")
        given = [d if isinstance(d, int) else -1 for d in declared]
    if declared is not None and len(given) != len(declared):
        raise CompileError(f"input shape {given} for input {name!r} has rank {len(given)}, but the model's input "
                           f"has rank {len(declared)} (shape {list(declared)})")
    out: list[Dim] = []
    for i, size in enumerate(given):
        model_dim = None if declared is None else declared[i]
        if size < -1:
            raise CompileError(f"input shape {given} for input {name!r}: dim {i} is {size}; use -1 for dynamic")
        if isinstance(model_dim, int) and size != model_dim:
            raise CompileError(f"input shape {given} for input {name!r} contradicts the model: dim {i} is fixed "
                               f"at {model_dim} in the model, the input shape asks for {size}")
        if size == -1:
            out.append(model_dim if isinstance(model_dim, str) else f"{name}_dim{i}")
        else:
            out.append(size)
    return tuple(out)


def _attr_value(attr: AttributeProto, node: str, op_type: str) -> Any:
    """An ONNX attribute as a plain Python value (tensors as numpy arrays, strings as str)."""
    kind = attr.type
    if attr.ref_attr_name:
        raise node_error(node, op_type, f"attribute {attr.name!r} refers to a function attribute; unsupported")
    if kind in (AttributeProto.GRAPH, AttributeProto.GRAPHS):
        raise node_error(node, op_type, f"attribute {attr.name!r} holds a subgraph; subgraphs (control flow) "
                         "are not supported")
    if kind in (AttributeProto.SPARSE_TENSOR, AttributeProto.SPARSE_TENSORS, AttributeProto.TYPE_PROTO,
                AttributeProto.TYPE_PROTOS):
        raise node_error(node, op_type, f"attribute {attr.name!r} of type "
                         f"{AttributeProto.AttributeType.Name(kind)} is not supported; supported: int, float, "
                         "string, tensor and lists of them")
    if kind == AttributeProto.TENSOR:
        return numpy_helper.to_array(attr.t)
    if kind == AttributeProto.TENSORS:
        return [numpy_helper.to_array(t) for t in attr.tensors]
    value = onnx.helper.get_attribute_value(attr)
    if kind == AttributeProto.STRING:
        return value.decode("utf-8")
    if kind == AttributeProto.STRINGS:
        return [v.decode("utf-8") for v in value]
    if kind in (AttributeProto.INTS, AttributeProto.FLOATS):
        return [int(v) if kind == AttributeProto.INTS else float(v) for v in value]
    return int(value) if kind == AttributeProto.INT else float(value)


def _constant_value(attrs: dict[str, Any], node: str) -> np.ndarray:
    if "value" in attrs:
        return np.asarray(attrs["value"])
    simple = {"value_float": np.float32, "value_floats": np.float32, "value_int": np.int64, "value_ints": np.int64}
    for key, dtype in simple.items():
        if key in attrs:
            return np.array(attrs[key], dtype=dtype)
    raise node_error(node, "Constant", f"attributes {sorted(attrs)} are not supported; supported: value, "
                     "value_float(s), value_int(s)")

