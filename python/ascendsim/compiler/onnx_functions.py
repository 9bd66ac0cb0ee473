"""ONNX ops defined as functions: an op that the compiler has no IR form for, but whose ONNX schema gives a
function body (Mish, Celu, CastLike, Shrink, ThresholdedRelu, MeanVarianceNormalization, GroupNormalization,
the losses, the window functions, ...), is compiled as that body, as onnxruntime does for ops it has no kernel for.

Algorithm: take the schema of the op in force at the model's opset; among the opsets its function body is
written for (plain bodies, or context-dependent ones built from the node and its input types) pick the newest
whose schema is still that op version and that is one the importer reads. The body's nodes are renamed (its
formal inputs and outputs become the node's values, its own values get the node's name as prefix) and their
attribute references are resolved (the node's attribute, else the schema's default, else left out). The
importer adds them like any other node, normalised at the body's opset (nested function ops expand again).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import onnx
from onnx import defs

MAX_BODY_OPSET = 21  # the newest opset the importer reads (onnx_import.MAX_OPSET)


@dataclass
class Body:
    nodes: list[onnx.NodeProto]
    opset: int  # the default-domain opset the body is written in


def function_body(node: onnx.NodeProto, opset: int, input_types: Sequence[onnx.TypeProto]) -> Body | None:
    """The function body of `node` (default domain, model opset `opset`) with the node's names and attributes
    substituted, or None if ONNX defines no body for it in an opset the importer reads."""
    try:
        schema = defs.get_schema(node.op_type, opset, "")
    except defs.SchemaError:
        return None
    proto = _function_proto(schema, node, input_types)
    if proto is None:
        return None
    versions = [imp.version for imp in proto.opset_import if imp.domain in ("", "ai.onnx")]
    if not versions:
        return None
    return Body(_instantiate(proto, node, schema), versions[0])


def type_problem(node: onnx.NodeProto, opset: int, input_types: Sequence[onnx.TypeProto]) -> str | None:
    """What in the node's input types the op's schema at `opset` does not allow (its body is typed for those
    only, e.g. Celu-12 takes float alone), or None."""
    try:
        schema = defs.get_schema(node.op_type, opset, "")
    except defs.SchemaError:
        return None
    allowed = {c.type_param_str: set(c.allowed_type_strs) for c in schema.type_constraints}
    for index, given in enumerate(input_types):
        if not given.tensor_type.elem_type or not schema.inputs:
            continue
        formal = schema.inputs[min(index, len(schema.inputs) - 1)]  # the last one may be variadic
        name = f"tensor({onnx.TensorProto.DataType.Name(given.tensor_type.elem_type).lower()})"
        if formal.type_str in allowed and name not in allowed[formal.type_str]:
            return (
                f"input {index} ({formal.name}) is a {name}, which {node.op_type}-{schema.since_version} (the "
                f"version in opset {opset}) does not take: it takes {', '.join(sorted(allowed[formal.type_str]))}"
            )
    return None


def _function_proto(
    schema: defs.OpSchema, node: onnx.NodeProto, input_types: Sequence[onnx.TypeProto]
) -> onnx.FunctionProto | None:
    def usable(version: int) -> bool:  # the body describes this op version, in an opset the importer reads
        return (
            version <= MAX_BODY_OPSET
            and defs.get_schema(node.op_type, version, "").since_version == schema.since_version
        )

    proto = onnx.FunctionProto()
    plain = [v for v in schema.function_opset_versions if usable(v)]
    if plain:
        proto.ParseFromString(_as_bytes(schema.get_function_with_opset_version(max(plain))))
        return proto
    dependent = [v for v in schema.context_dependent_function_opset_versions if usable(v)]
    if not dependent:
        return None
    try:
        built = schema.get_context_dependent_function_with_opset_version(
            max(dependent), node.SerializeToString(), [t.SerializeToString() for t in input_types]
        )
    except (RuntimeError, ValueError, defs.SchemaError):  # the builder refuses inputs it has no body for
        return None
    proto.ParseFromString(_as_bytes(built))
    return proto if len(proto.node) else None


def _as_bytes(function: bytes | onnx.FunctionProto) -> bytes:
    return function if isinstance(function, bytes) else function.SerializeToString()


def _instantiate(proto: onnx.FunctionProto, node: onnx.NodeProto, schema: defs.OpSchema) -> list[onnx.NodeProto]:
    prefix = node.name or node.op_type
    names = {formal: actual for formal, actual in zip(proto.input, node.input)}
    names.update({formal: "" for formal in proto.input[len(node.input) :]})  # absent optional inputs
    names.update({formal: actual for formal, actual in zip(proto.output, node.output)})
    given = {a.name: a for a in node.attribute}
    defaults = {a.name: a for a in proto.attribute_proto}
    for name, attr in schema.attributes.items():
        if name not in defaults and attr.default_value.type:
            defaults[name] = attr.default_value

    def rename(value: str) -> str:
        if not value:
            return ""
        return names.setdefault(value, f"{prefix}/{value}")

    nodes = []
    for index, inner in enumerate(proto.node):
        copy = onnx.NodeProto()
        copy.CopyFrom(inner)
        copy.name = f"{prefix}/{inner.name or inner.op_type + '_' + str(index)}"
        copy.input[:] = [rename(v) for v in inner.input]
        copy.output[:] = [rename(v) for v in inner.output]
        del copy.attribute[:]
        for attr in inner.attribute:
            resolved = _resolve(attr, given, defaults)
            if resolved is not None:
                copy.attribute.append(resolved)
        nodes.append(copy)
    return nodes


def _resolve(
    attr: onnx.AttributeProto, given: dict[str, onnx.AttributeProto], defaults: dict[str, onnx.AttributeProto]
) -> onnx.AttributeProto | None:
    """The attribute with a reference to the function's attribute replaced by the value (None: left out)."""
    if not attr.ref_attr_name:
        return attr
    source = given.get(attr.ref_attr_name) or defaults.get(attr.ref_attr_name)
    if source is None:
        return None
    resolved = onnx.AttributeProto()
    resolved.CopyFrom(source)
    resolved.name = attr.name
    return resolved
