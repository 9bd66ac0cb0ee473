"""Graph -> ONNX, for any compiler stage: the result opens in Netron and runs in onnxruntime.

Algorithm: choose the opset to write, the graph's own unless some node needs a newer one (LayerNormalization
17, Gelu 20, HardSwish 14, Pad wrap 19, ...); then write constants as initializers, graph inputs/outputs and
the known types of intermediate values as value_info, and each node in the ONNX form of that opset (the
inverse of onnx_opsets.py: IR attributes such as Squeeze/Reduce axes, Split sizes and Pad pads go back to
inputs where that opset wants inputs). Fused nodes follow the compiler brief: Conv/Gemm/MatMul with an
`activation` (and MatMul's fused bias) become the original op followed by Add/the activation;
ascendsim::FusedElementwise becomes a call of a model-local ONNX function (one per distinct program) whose
body is the program's steps, so onnxruntime runs it and Netron shows it as one expandable node; the NC1HWC0
ops become standard ONNX (onnx_export_layout.py).
"""

from __future__ import annotations

import os
from typing import Any, Callable

import numpy as np
import onnx
from onnx import helper, numpy_helper

from .ir import ASCENDSIM_DOMAIN, DType, Graph, Node, Value
from .onnx_export_layout import emit_blocked_conv, emit_transdata
from .onnx_types import dtype_to_onnx
from .ops import lookup
from .ops.reduce import REDUCE_OPS

_INTERNAL_ATTRS = ("activation", "activation_alpha", "activation_beta", "fused_bias", "fused_sum")
_ACTIVATION_OPSET = {"HardSwish": 14, "Gelu": 20}


def export_onnx(graph: Graph, opset: int | None = None) -> onnx.ModelProto:
    """The graph as an ONNX ModelProto at `opset` (default: the lowest that can hold every node)."""
    target = max(opset or graph.opset, *(required_opset(n) for n in graph.nodes), 11)
    return _Exporter(graph, target).run()


to_onnx = export_onnx  # the name the pass manager uses


def save_onnx(graph: Graph, path: str | os.PathLike, opset: int | None = None) -> None:
    onnx.save(export_onnx(graph, opset), os.fspath(path))


def required_opset(node: Node) -> int:
    """The lowest ONNX opset that can express `node` in its IR form."""
    if node.domain == ASCENDSIM_DOMAIN and node.op_type == "FusedElementwise":
        steps = node.attrs.get("program", [])
        return max([required_opset(Node("step", s["op"], [], [], dict(s.get("attrs", {})))) for s in steps] + [1])
    spec = lookup(node.op_type, node.domain)
    need = [spec.since if spec else 1, _ACTIVATION_OPSET.get(node.attrs.get("activation", ""), 1)]
    attrs = node.attrs
    conditions = [
        (node.op_type == "Shape" and ("start" in attrs or "end" in attrs), 15),
        (node.op_type == "Reshape" and bool(attrs.get("allowzero")), 14),
        (node.op_type == "Pad" and attrs.get("mode") == "wrap", 19),
        (node.op_type == "AveragePool" and any(d != 1 for d in attrs.get("dilations", [])), 19),
        (node.op_type == "Resize" and attrs.get("coordinate_transformation_mode") == "half_pixel_symmetric", 19),
        (node.op_type in ("Softmax", "LogSoftmax") and not _softmax_axis_is_last(node), 13),
        (node.op_type in ("ScatterND", "ScatterElements") and attrs.get("reduction") in ("add", "mul"), 16),
        (node.op_type in ("ScatterND", "ScatterElements") and attrs.get("reduction") in ("max", "min"), 18),
        (node.op_type in ("QuantizeLinear", "DequantizeLinear") and _quantize_needs_21(node), 21),
    ]
    return max(need + [version for holds, version in conditions if holds])


def _quantize_needs_21(node: Node) -> bool:
    """Blocked scales and 16-bit integers came with opset 21."""
    integer = node.inputs[0] if node.op_type == "DequantizeLinear" else node.outputs[0]
    sixteen = integer is not None and integer.dtype in (DType.INT16, DType.UINT16)
    return bool(node.attrs.get("block_size")) or sixteen


def _softmax_axis_is_last(node: Node) -> bool:
    axis = int(node.attrs.get("axis", -1))
    value = node.input(0)
    rank = None if value is None or value.shape is None else len(value.shape)
    return axis == -1 or (rank is not None and axis == rank - 1)


class _Emitter:
    """Collects NodeProtos and constants for the main graph or for one function body."""

    def __init__(self, opset: int, names: set[str], in_function: bool = False) -> None:
        self.opset, self.names, self.in_function = opset, names, in_function
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []

    def fresh(self, base: str) -> str:
        name, i = base, 0
        while name in self.names:
            i += 1
            name = f"{base}_{i}"
        self.names.add(name)
        return name

    def const(self, base: str, array: np.ndarray) -> str:
        name = self.fresh(base)
        tensor = numpy_helper.from_array(np.asarray(array), name)
        if self.in_function:
            self.nodes.append(helper.make_node("Constant", [], [name], name=f"{name}_const", value=tensor))
        else:
            self.initializers.append(tensor)
        return name

    def add(self, op: str, inputs: list[str], outputs: list[str], name: str, domain: str = "",
            **attrs: Any) -> None:
        while inputs and not inputs[-1]:
            inputs = inputs[:-1]
        clean = {k: _attr(v) for k, v in attrs.items() if v is not None and not (isinstance(v, list) and not v)}
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, domain=domain or None, **clean))


def _attr(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return numpy_helper.from_array(value)
    if isinstance(value, np.generic):
        return value.item()
    return value


class _Exporter:
    def __init__(self, graph: Graph, opset: int) -> None:
        self.graph, self.opset = graph, opset
        self.em = _Emitter(opset, set(graph.values))
        self.functions: dict[str, onnx.FunctionProto] = {}

    def run(self) -> onnx.ModelProto:
        g = self.graph
        outputs = {id(v) for v in g.outputs}
        for value in g.values.values():
            if value.is_constant and (value.consumers or id(value) in outputs):
                self.em.initializers.append(numpy_helper.from_array(np.asarray(value.data), value.name))
        for node in g.nodes:
            emit_node(self.em, node, self.functions)
        io = {id(v) for v in g.inputs} | outputs
        value_info = [_value_info(v) for n in g.nodes for v in n.outputs
                      if id(v) not in io and v.dtype is not None]
        body = helper.make_graph(self.em.nodes, g.name, [_value_info(v) for v in g.inputs],
                                 [_value_info(v) for v in g.outputs], self.em.initializers, value_info=value_info)
        opsets = [helper.make_opsetid("", self.opset)]
        if self.functions:
            opsets.append(helper.make_opsetid(ASCENDSIM_DOMAIN, 1))
        model = helper.make_model(body, opset_imports=opsets, producer_name="ascendsim",
                                  functions=list(self.functions.values()))
        model.ir_version = max(8, helper.find_min_ir_version_for(opsets, ignore_unknown=True))
        return model


def _value_info(value: Value) -> onnx.ValueInfoProto:
    elem = 0 if value.dtype is None else dtype_to_onnx(value.dtype)
    shape = None if value.shape is None else list(value.shape)
    return helper.make_tensor_value_info(value.name, elem, shape)


# ---- per-op ONNX forms --------------------------------------------------------------------------------

def emit_node(em: _Emitter, node: Node, functions: dict[str, onnx.FunctionProto]) -> None:
    """Writes `node` in the ONNX form of `em.opset` (possibly several nodes)."""
    if node.domain == ASCENDSIM_DOMAIN and node.op_type == "TransData":
        emit_transdata(em, node)
        return
    if node.domain == ASCENDSIM_DOMAIN and node.op_type == "BlockedConv":
        emit_blocked_conv(em, node, emit_node)
        return
    if node.domain == ASCENDSIM_DOMAIN:
        _fused_elementwise(em, node, functions)
        return
    handler = _HANDLERS.get(node.op_type) or (_reduce if node.op_type in REDUCE_OPS else _generic)
    if node.attrs.get("activation") or node.attrs.get("fused_bias") or node.attrs.get("fused_sum"):
        handler = _epilogue
    handler(em, node)


def _names(node: Node) -> tuple[list[str], list[str]]:
    return [v.name if v is not None else "" for v in node.inputs], [v.name for v in node.outputs]


def _plain_attrs(node: Node, *drop: str) -> dict[str, Any]:
    return {k: v for k, v in node.attrs.items() if k not in _INTERNAL_ATTRS and k not in drop}


def _generic(em: _Emitter, node: Node, **overrides: Any) -> None:
    inputs, outputs = _names(node)
    em.add(node.op_type, inputs, outputs, node.name, **{**_plain_attrs(node), **overrides})


def _axes_input(em: _Emitter, node: Node, name: str, since: int, attr: str = "axes") -> None:
    """Ops whose int list attribute became an input at opset `since`."""
    inputs, outputs = _names(node)
    values = node.attrs.get(attr)
    attrs = _plain_attrs(node, attr)
    if values is not None and em.opset >= since:
        inputs = [*inputs[:1], em.const(f"{node.name}_{name}", np.array(values, np.int64))]
    elif values is not None:
        attrs[attr] = list(values)
    em.add(node.op_type, inputs, outputs, node.name, **attrs)


def _squeeze(em: _Emitter, node: Node) -> None:
    if node.op_type == "Squeeze" and node.attrs.get("axes") == []:
        _generic_identity(em, node)
        return
    _axes_input(em, node, "axes", 13)


def _generic_identity(em: _Emitter, node: Node) -> None:
    inputs, outputs = _names(node)
    em.add("Identity", inputs[:1], outputs, node.name)


def _reduce(em: _Emitter, node: Node) -> None:
    _axes_input(em, node, "axes", 13 if node.op_type == "ReduceSum" else 18)


def _split(em: _Emitter, node: Node) -> None:
    if "split" not in node.attrs and em.opset >= 18:
        _generic(em, node, num_outputs=len(node.outputs))
        return
    _axes_input(em, node, "split", 13, attr="split")


def _pad(em: _Emitter, node: Node) -> None:
    inputs, outputs = _names(node)
    x = node.inputs[0]
    dtype = x.dtype.numpy if x is not None and x.dtype is not None else np.dtype(np.float32)
    pads = em.const(f"{node.name}_pads", np.array(node.attrs["pads"], np.int64))
    extra = [pads]
    if node.attrs.get("mode", "constant") == "constant":
        extra.append(em.const(f"{node.name}_value", np.array(node.attrs.get("value", 0.0), dtype)))
    em.add("Pad", [inputs[0], *extra], outputs, node.name, mode=node.attrs.get("mode", "constant"))


def _resize(em: _Emitter, node: Node) -> None:
    inputs, outputs = _names(node)
    inputs = [*inputs, "", "", ""][:4]
    if em.opset < 13:
        inputs[1] = em.const(f"{node.name}_roi", np.zeros(0, np.float32))
        inputs[2] = inputs[2] or em.const(f"{node.name}_scales", np.zeros(0, np.float32))
    else:
        inputs[1] = ""
    em.add("Resize", inputs, outputs, node.name, **_plain_attrs(node))


def _cast(em: _Emitter, node: Node) -> None:
    _generic(em, node, to=dtype_to_onnx(DType(node.attrs["to"])))


def _softmax(em: _Emitter, node: Node) -> None:
    if em.opset >= 13:
        _generic(em, node)
        return
    rank = len(node.inputs[0].shape)  # type: ignore[union-attr,arg-type]  (required_opset checked it)
    _generic(em, node, axis=rank - 1)


def _dft(em: _Emitter, node: Node) -> None:
    """The IR's `axis` and `dft_length` attributes: dft_length an input, and axis one too from opset 20."""
    inputs, outputs = _names(node)
    attrs = _plain_attrs(node, "axis", "dft_length")
    length = node.attrs.get("dft_length")
    inputs = [inputs[0], "" if length is None else em.const(f"{node.name}_dft_length", np.array(length, np.int64))]
    if em.opset >= 20:
        inputs.append(em.const(f"{node.name}_axis", np.array(node.attrs["axis"], np.int64)))
    else:
        attrs["axis"] = node.attrs["axis"]
    em.add("DFT", inputs, outputs, node.name, **attrs)


def _drop_default(attr: str, default: Any) -> Callable[[_Emitter, Node], None]:
    def emit(em: _Emitter, node: Node) -> None:
        inputs, outputs = _names(node)
        attrs = _plain_attrs(node)
        if attrs.get(attr) == default or (isinstance(default, list) and set(attrs.get(attr, [])) <= {1}):
            attrs.pop(attr, None)
        em.add(node.op_type, inputs, outputs, node.name, **attrs)
    return emit


def _epilogue(em: _Emitter, node: Node) -> None:
    """Conv/Gemm/MatMul + fused bias / sum + activation -> the op, then Add(s), then the activation."""
    inputs, outputs = _names(node)
    result = outputs[0]
    activation = node.attrs.get("activation")
    summed = bool(node.attrs.get("fused_sum"))
    op_inputs = inputs[:2] if node.attrs.get("fused_bias") else inputs[:3] if summed else inputs
    current = em.fresh(f"{result}_pre") if activation or node.attrs.get("fused_bias") or summed else result
    em.add(node.op_type, op_inputs, [current], node.name, **_plain_attrs(node))
    if node.attrs.get("fused_bias"):
        biased = em.fresh(f"{result}_biased") if activation else result
        em.add("Add", [current, inputs[2]], [biased], f"{node.name}/bias")
        current = biased
    if summed:
        total = em.fresh(f"{result}_summed") if activation else result
        em.add("Add", [current, inputs[3]], [total], f"{node.name}/sum")
        current = total
    if activation:
        out = node.outputs[0]
        dtype = out.dtype.numpy if out.dtype is not None else np.dtype(np.float32)
        emit_activation(em, activation, current, result, f"{node.name}/{activation}", dtype,
                        node.attrs.get("activation_alpha"), node.attrs.get("activation_beta"))


def emit_activation(em: _Emitter, kind: str, x: str, y: str, name: str, dtype: np.dtype,  # noqa: PLR0917
                    alpha: float | None, beta: float | None) -> None:
    """One fused activation as ONNX nodes (Silu as Sigmoid*x, Clip bounds as constants)."""
    if kind == "Silu":
        gate = em.fresh(f"{y}_sigmoid")
        em.add("Sigmoid", [x], [gate], f"{name}/sigmoid")
        em.add("Mul", [x, gate], [y], name)
    elif kind == "Clip":
        low = "" if alpha is None else em.const(f"{name}_min", np.array(alpha, dtype))
        high = "" if beta is None else em.const(f"{name}_max", np.array(beta, dtype))
        em.add("Clip", [x, low, high], [y], name)
    elif kind in ("LeakyRelu", "Elu"):
        em.add(kind, [x], [y], name, alpha=alpha)
    elif kind == "HardSigmoid":
        em.add(kind, [x], [y], name, alpha=alpha, beta=beta)
    else:
        em.add(kind, [x], [y], name)


def _fused_elementwise(em: _Emitter, node: Node, functions: dict[str, onnx.FunctionProto]) -> None:
    program = node.attrs["program"]
    key = repr((len(node.inputs), program))
    fname = next((f.name for k, f in functions.items() if k == key), None)
    if fname is None:
        fname = f"FusedElementwise_{len(functions)}"
        functions[key] = _function(fname, len(node.inputs), program, em.opset)
    inputs, outputs = _names(node)
    em.add(fname, inputs, outputs, node.name, domain=ASCENDSIM_DOMAIN)


def _function(fname: str, n_inputs: int, program: list[dict[str, Any]], opset: int) -> onnx.FunctionProto:
    slots = [Value(f"x{i}") for i in range(n_inputs)]
    body = _Emitter(opset, {v.name for v in slots}, in_function=True)
    for index, step in enumerate(program):
        out = Value("y" if index == len(program) - 1 else f"t{index}")
        body.names.add(out.name)
        step_node = Node(f"step{index}", step["op"], [slots[i] for i in step["inputs"]], [out],
                         dict(step.get("attrs", {})))
        emit_node(body, step_node, {})
        slots.append(out)
    return helper.make_function(ASCENDSIM_DOMAIN, fname, [f"x{i}" for i in range(n_inputs)], ["y"], body.nodes,
                                [helper.make_opsetid("", opset)])


_HANDLERS: dict[str, Callable[[_Emitter, Node], None]] = {
    "Squeeze": _squeeze, "Unsqueeze": _squeeze, "Split": _split, "Pad": _pad, "Resize": _resize,
    "Cast": _cast, "Softmax": _softmax, "LogSoftmax": _softmax,
    "ArgMax": _drop_default("select_last_index", 0), "ArgMin": _drop_default("select_last_index", 0),
    "Reshape": _drop_default("allowzero", 0), "AveragePool": _drop_default("dilations", [1]),
    "ScatterND": _drop_default("reduction", "none"), "ScatterElements": _drop_default("reduction", "none"),
    "DFT": _dft,
}
