"""ONNX opset 11-21 forms -> the one IR form per op (documented in ops/__init__.py).

The importer adds each node as ONNX wrote it, then calls `normalize`, which (1) fills in every defaulted
attribute, (2) moves operands that later opsets turned into inputs (Squeeze/Unsqueeze/Reduce axes, Split
sizes, Pad pads/value) into attributes, requiring them to be constants (or exactly known shape arithmetic),
(3) resolves version-specific meanings (Softmax's opset<13 coercion to 2-D, Split's num_outputs, Resize's
roi/axes, auto_pad on static shapes) and (4) rejects attribute values the compiler does not support, with a
message naming the node, the op and the supported values. It returns the nodes to (re)infer, in order.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .errors import node_error
from .ir import DType, Graph, Node, Value
from .onnx_lowering import LOWERINGS
from .onnx_types import dtype_from_onnx
from .ops._common import Known
from .ops.nn import same_pads
from .ops.reduce import REDUCE_OPS

SELU_ALPHA, SELU_GAMMA = 1.67326319217681884765625, 1.05070102214813232421875
DEFAULTS: dict[str, dict[str, Any]] = {
    "Gemm": {"alpha": 1.0, "beta": 1.0, "transA": 0, "transB": 0},
    "LeakyRelu": {"alpha": 0.01}, "Elu": {"alpha": 1.0}, "Selu": {"alpha": SELU_ALPHA, "gamma": SELU_GAMMA},
    "HardSigmoid": {"alpha": 0.2, "beta": 0.5}, "Gelu": {"approximate": "none"}, "Mod": {"fmod": 0},
    "LayerNormalization": {"axis": -1, "epsilon": 1e-5, "stash_type": 1},
    "InstanceNormalization": {"epsilon": 1e-5}, "BatchNormalization": {"epsilon": 1e-5},
    "TopK": {"axis": -1, "largest": 1, "sorted": 1}, "Split": {"axis": 0}, "Flatten": {"axis": 1},
    "Gather": {"axis": 0}, "GatherElements": {"axis": 0}, "Reshape": {"allowzero": 0},
    "ArgMax": {"axis": 0, "keepdims": 1, "select_last_index": 0},
    "ArgMin": {"axis": 0, "keepdims": 1, "select_last_index": 0},
    "MaxPool": {"ceil_mode": 0, "storage_order": 0}, "AveragePool": {"ceil_mode": 0, "count_include_pad": 0},
    "Conv": {"group": 1}, "ConvTranspose": {"group": 1}, "ConvInteger": {"group": 1}, "QLinearConv": {"group": 1},
    "Resize": {"mode": "nearest", "coordinate_transformation_mode": "half_pixel",
               "nearest_mode": "round_prefer_floor", "cubic_coeff_a": -0.75, "exclude_outside": 0,
               "extrapolation_value": 0.0},
    **{op: {"keepdims": 1} for op in REDUCE_OPS},
    "IsInf": {"detect_negative": 1, "detect_positive": 1}, "GatherND": {"batch_dims": 0},
    "ScatterND": {"reduction": "none"}, "ScatterElements": {"axis": 0, "reduction": "none"},
    "OneHot": {"axis": -1}, "Trilu": {"upper": 1}, "CumSum": {"exclusive": 0, "reverse": 0},
    "ReverseSequence": {"batch_axis": 1, "time_axis": 0}, "Unique": {"sorted": 1},
    "GridSample": {"align_corners": 0, "padding_mode": "zeros"},
    "LRN": {"alpha": 1e-4, "beta": 0.75, "bias": 1.0}, "DepthToSpace": {"mode": "DCR"}, "LpPool": {"p": 2},
    "DFT": {"inverse": 0, "onesided": 0}, "RoiAlign": {"mode": "avg", "output_height": 1, "output_width": 1,
                                                      "sampling_ratio": 0, "spatial_scale": 1.0},
    **{op: {"direction": "forward"} for op in ("RNN", "GRU", "LSTM")},
}
_DROPPED = {"BatchNormalization": ("momentum", "training_mode", "spatial"), "Dropout": ("seed", "ratio"),
            "Cast": ("saturate",), "Resize": ("antialias", "keep_aspect_ratio_policy", "axes"),
            "QuantizeLinear": ("saturate", "output_dtype")}
_GRID_SAMPLE_MODES = {"bilinear": "linear", "bicubic": "cubic"}  # opset 16's names -> opset 20's (the IR's)
_WEIGHT_INPUT = {"Conv": 1, "ConvTranspose": 1, "ConvInteger": 1, "QLinearConv": 3}


class _Norm:
    """One node being normalised: its graph, the model's opset and the known shape-tensor contents."""

    def __init__(self, graph: Graph, node: Node, opset: int, known: dict[str, Known]) -> None:
        self.graph, self.node, self.opset, self.known = graph, node, opset, known

    def fail(self, problem: str) -> Exception:
        return node_error(self.node.name, self.node.op_type, problem)

    def ints(self, index: int, what: str) -> list[int] | None:
        """Contents of an int input that must be known at compile time (None if the input is absent)."""
        value = self.node.input(index)
        if value is None:
            return None
        if value.data is not None:
            return [int(x) for x in np.asarray(value.data).reshape(-1)]
        dims = self.known.get(value.name)
        if dims is not None and all(isinstance(d, int) for d in dims):
            return [int(d) for d in dims]
        raise self.fail(f"{what} (input {value.name!r}) is computed at run time; only constant {what} is supported")

    def floats(self, index: int) -> np.ndarray | None:
        value = self.node.input(index)
        if value is None:
            return None
        if value.data is None:
            raise self.fail(f"input {value.name!r} is computed at run time; only a constant is supported")
        return np.asarray(value.data, dtype=np.float64).reshape(-1)

    def drop_inputs(self, keep: int) -> None:
        for index in range(keep, len(self.node.inputs)):
            self.graph.set_input(self.node, index, None)
        del self.node.inputs[keep:]

    def rank(self, index: int = 0) -> int | None:
        value = self.node.input(index)
        return None if value is None or value.shape is None else len(value.shape)

    def axis(self, given: int, rank: int, what: str = "axis") -> int:
        """`given` (negative counts from the end) as an index into `rank` dims; out of range is the model's error."""
        if not -rank <= given < rank:
            raise self.fail(f"{what} {given} is out of range for an input of rank {rank} (valid: [{-rank}, {rank - 1}])")
        return given + rank if given < 0 else given

    def check_choice(self, attr: str, allowed: tuple[Any, ...]) -> None:
        value = self.node.attrs.get(attr)
        if value is not None and value not in allowed:
            raise self.fail(f"{attr}={value!r} is not supported; supported: {', '.join(map(repr, allowed))}")


def normalize(graph: Graph, node: Node, opset: int, known: dict[str, Known]) -> list[Node]:
    """Rewrites `node` (just added from ONNX) into the IR form; returns the nodes to infer, in order."""
    node.attrs = {**DEFAULTS.get(node.op_type, {}), **node.attrs}
    handler = _reduce if node.op_type in REDUCE_OPS else _HANDLERS.get(node.op_type)
    n = _Norm(graph, node, opset, known)
    extra = handler(n) if handler else None
    for name in _DROPPED.get(node.op_type, ()):
        node.attrs.pop(name, None)
    lowering = LOWERINGS.get(node.op_type)  # after the handler: e.g. LpPool's window attributes made explicit
    if lowering is not None:
        extra = lowering(n)
    return extra if extra is not None else [node]


def _squeeze(n: _Norm) -> None:
    if n.opset >= 13 and len(n.node.inputs) > 1:
        axes = n.ints(1, "axes")
        n.drop_inputs(1)
        if axes is not None:
            n.node.attrs["axes"] = axes
    rank = n.rank()
    axes = n.node.attrs.get("axes")
    if axes is None and n.node.op_type == "Squeeze":
        shape = n.node.inputs[0].shape  # type: ignore[union-attr]
        if shape is not None and all(isinstance(d, int) for d in shape):
            n.node.attrs["axes"] = [i for i, d in enumerate(shape) if d == 1]
    elif axes is not None and rank is not None:
        out_rank = rank + len(axes) if n.node.op_type == "Unsqueeze" else rank
        n.node.attrs["axes"] = [a + out_rank if a < 0 else a for a in axes]


def _reduce(n: _Norm) -> list[Node] | None:
    uses_input = n.opset >= (13 if n.node.op_type == "ReduceSum" else 18)
    if uses_input and len(n.node.inputs) > 1:
        axes = n.ints(1, "axes")
        n.drop_inputs(1)
        if axes:
            n.node.attrs["axes"] = axes
    if not n.node.attrs.get("axes"):
        n.node.attrs.pop("axes", None)
        if n.node.attrs.pop("noop_with_empty_axes", 0):
            n.node.op_type, n.node.attrs = "Identity", {}
    n.node.attrs.pop("noop_with_empty_axes", None)
    return None


def _split(n: _Norm) -> None:
    attrs = n.node.attrs
    if n.opset >= 13 and len(n.node.inputs) > 1:
        split = n.ints(1, "split")
        n.drop_inputs(1)
        if split is not None:
            attrs["split"] = split
    count = int(attrs.pop("num_outputs", len(n.node.outputs)))
    if count != len(n.node.outputs):
        raise n.fail(f"num_outputs={count} but the node has {len(n.node.outputs)} outputs")
    shape = n.node.inputs[0].shape  # type: ignore[union-attr]
    if "split" not in attrs and shape is not None:
        size = shape[n.axis(int(attrs["axis"]), len(shape))]
        if isinstance(size, int):
            chunk = -(-size // count)
            attrs["split"] = [min(chunk, size - i * chunk) for i in range(count)]


def _pad(n: _Norm) -> None:
    attrs = n.node.attrs
    attrs.setdefault("mode", "constant")
    n.check_choice("mode", ("constant", "reflect", "edge", "wrap"))
    pads = n.ints(1, "pads") if len(n.node.inputs) > 1 else attrs.get("pads")
    value = n.floats(2) if len(n.node.inputs) > 2 else None
    axes = n.ints(3, "axes") if len(n.node.inputs) > 3 else None
    rank = n.rank()
    if pads is None or rank is None:
        raise n.fail("pads and the input rank must be known")
    if axes is not None:
        if len(pads) != 2 * len(axes):
            raise n.fail(f"pads has {len(pads)} values; {len(axes)} axes need {2 * len(axes)}")
        full = [0] * (2 * rank)
        for i, given in enumerate(axes):
            axis = n.axis(given, rank, "axes value")
            full[axis], full[axis + rank] = pads[i], pads[i + len(axes)]
        pads = full
    attrs["pads"] = list(pads)
    attrs["value"] = float(value[0]) if value is not None and value.size else float(attrs.get("value", 0.0))
    n.drop_inputs(1)


def _resize(n: _Norm) -> None:
    node, attrs = n.node, n.node.attrs
    n.check_choice("mode", ("nearest", "linear", "cubic"))
    n.check_choice("coordinate_transformation_mode", ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
                                                      "align_corners", "asymmetric", "tf_half_pixel_for_nn"))
    n.check_choice("nearest_mode", ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil"))
    n.check_choice("keep_aspect_ratio_policy", ("stretch",))
    if attrs.get("antialias", 0):
        raise n.fail("antialias=1 is not supported; supported: 0")
    inputs = [*node.inputs, None, None, None][:4]
    scales = n.floats(2) if inputs[2] is not None else None
    sizes = inputs[3] if inputs[3] is not None and inputs[3].shape != (0,) else None
    if (scales is None or scales.size == 0) and sizes is None:
        raise n.fail("neither scales nor sizes is given")
    axes, x = attrs.get("axes"), node.inputs[0].shape  # type: ignore[union-attr]
    if axes is not None:
        if x is None:
            raise n.fail("the axes attribute needs the input rank")
        axes = [n.axis(a, len(x), "axes value") for a in axes]
    if sizes is not None:
        if axes is not None:
            given = n.ints(3, "sizes") or []
            full = list(x)  # type: ignore[arg-type]
            for axis, size in zip(axes, given):
                full[axis] = size
            if not all(isinstance(d, int) for d in full):
                raise n.fail("sizes with axes on an input with symbolic dims is not supported")
            sizes = n.graph.constant(f"{node.name}_sizes", np.array(full, np.int64))
        scales_value = None
    elif axes is not None:
        full_scales = np.ones(len(x), np.float32)  # type: ignore[arg-type]
        full_scales[axes] = scales
        scales_value = n.graph.constant(f"{node.name}_scales", full_scales)
    else:
        scales_value = inputs[2]
    n.drop_inputs(1)
    node.inputs.extend([None, None, None])
    n.graph.set_input(node, 2, scales_value)
    n.graph.set_input(node, 3, sizes)


def _softmax(n: _Norm) -> list[Node] | None:
    node, graph = n.node, n.graph
    axis = int(node.attrs.get("axis", 1 if n.opset < 13 else -1))
    node.attrs["axis"] = axis
    rank = n.rank()
    if n.opset >= 13 or (rank is None and axis == -1):
        return None
    if rank is None:
        raise n.fail(f"axis={axis} at opset {n.opset} (coerced to 2-D) needs the input rank")
    axis = axis + rank if axis < 0 else axis
    if axis == rank - 1:
        node.attrs["axis"] = -1
        return None
    x, y = node.inputs[0], node.outputs[0]
    flat = graph.add_node("Flatten", [x], 1, attrs={"axis": axis}, name=f"{node.name}/flatten", before=node)
    graph.set_input(node, 0, flat.outputs[0])
    node.attrs["axis"] = -1
    inner = graph.value(f"{y.name}_2d")
    inner.producer, node.outputs = node, [inner]
    shape = graph.add_node("Shape", [x], 1, name=f"{node.name}/shape")
    back = graph.add_node("Reshape", [inner, shape.outputs[0]], [y], attrs={"allowzero": 0}, name=f"{node.name}/reshape")
    return [flat, node, shape, back]


def _window(n: _Norm) -> None:
    """Conv/ConvTranspose/ConvInteger/QLinearConv and the pools: every window attribute explicit; auto_pad
    resolved."""
    node, attrs = n.node, n.node.attrs
    x = node.inputs[0].shape  # type: ignore[union-attr]
    weight = _WEIGHT_INPUT.get(node.op_type)
    if "kernel_shape" not in attrs and weight is not None:
        w = node.inputs[weight].shape  # type: ignore[union-attr]
        if w is None or not all(isinstance(d, int) for d in w[2:]):
            raise n.fail("kernel_shape is needed: the weight shape is not static")
        attrs["kernel_shape"] = [int(d) for d in w[2:]]
    kernel = attrs.get("kernel_shape")
    if kernel is None:
        raise n.fail("attribute kernel_shape is required")
    spatial = len(kernel)
    attrs.setdefault("strides", [1] * spatial)
    attrs.setdefault("dilations", [1] * spatial)
    n.check_choice("auto_pad", ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"))
    auto_pad = attrs.pop("auto_pad", "NOTSET")
    static = x is not None and all(isinstance(d, int) for d in x[2:])
    if auto_pad in ("NOTSET", "VALID") or (static and node.op_type != "ConvTranspose"):
        sizes = [int(d) for d in x[2:]] if static else [0] * spatial  # type: ignore[index]
        if auto_pad != "NOTSET" or "pads" not in attrs:
            attrs["pads"] = same_pads(auto_pad, sizes, kernel, attrs["strides"], attrs["dilations"])
    else:
        attrs["auto_pad"] = auto_pad
    if node.op_type == "MaxPool" and attrs.get("storage_order"):
        raise n.fail("storage_order=1 is not supported; supported: 0")
    if node.op_type == "ConvTranspose":
        attrs.setdefault("output_padding", [0] * spatial)


def _cast(n: _Norm) -> None:
    n.node.attrs["to"] = dtype_from_onnx(int(n.node.attrs["to"]), f"node {n.node.name!r} (Cast) attribute 'to'")


def _constant_of_shape(n: _Norm) -> None:
    value = n.node.attrs.get("value")
    n.node.attrs["value"] = np.zeros(1, np.float32) if value is None else np.asarray(value).reshape(1)


def _dropout(n: _Norm) -> None:
    training = n.ints(2, "training_mode") if len(n.node.inputs) > 2 and n.node.inputs[2] is not None else None
    if training and training[0]:
        raise n.fail("training_mode=true is not supported (inference only)")
    n.drop_inputs(1)


def _batch_norm(n: _Norm) -> None:
    if n.node.attrs.get("training_mode", 0):
        raise n.fail("training_mode=1 is not supported (inference only)")


def _transpose(n: _Norm) -> None:
    rank = n.rank()
    if "perm" not in n.node.attrs and rank is not None:
        n.node.attrs["perm"] = list(range(rank))[::-1]


def _clip(n: _Norm) -> None:
    for name in ("min", "max"):  # opset < 11 attribute form, accepted for models that still carry it
        if name in n.node.attrs:
            value = n.node.attrs.pop(name)
            dtype = n.node.inputs[0].dtype or DType.FLOAT  # type: ignore[union-attr]
            const: Value = n.graph.constant(f"{n.node.name}_{name}", np.array(value, dtype=dtype.numpy))
            while len(n.node.inputs) < 3:
                n.node.inputs.append(None)
            n.graph.set_input(n.node, 1 if name == "min" else 2, const)


def _dft(n: _Norm) -> None:
    """Opset 20's axis and dft_length inputs become attributes (constants: they size the output)."""
    attrs, rank = n.node.attrs, n.rank()
    if n.opset >= 20:
        axis = n.ints(2, "axis") if len(n.node.inputs) > 2 and n.node.inputs[2] is not None else None
        attrs["axis"] = axis[0] if axis else -2
    length = n.ints(1, "dft_length") if len(n.node.inputs) > 1 and n.node.inputs[1] is not None else None
    if length:
        attrs["dft_length"] = length[0]
    n.drop_inputs(1)
    attrs.setdefault("axis", 1)
    if rank is not None:
        attrs["axis"] = n.axis(int(attrs["axis"]), rank)


def _roi_align(n: _Norm) -> None:
    """RoiAlign-10 (opsets 11-15) has no coordinate_transformation_mode: it is opset 16's 'output_half_pixel'."""
    n.node.attrs.setdefault("coordinate_transformation_mode", "output_half_pixel" if n.opset < 16 else "half_pixel")


def _grid_sample(n: _Norm) -> None:
    mode = n.node.attrs.get("mode", "bilinear" if n.opset < 20 else "linear")
    n.node.attrs["mode"] = _GRID_SAMPLE_MODES.get(mode, mode)


def _quantize(n: _Norm) -> None:
    """The output dtype always comes from a zero point: opset 21's `output_dtype`, else uint8, gives zeros."""
    if n.node.input(2) is not None:
        return
    given = int(n.node.attrs.get("output_dtype", 0))
    dtype = dtype_from_onnx(given, f"node {n.node.name!r} (QuantizeLinear) attribute 'output_dtype'") if given \
        else DType.UINT8
    scale = n.node.input(1)
    shape = scale.shape if scale is not None and scale.shape is not None and all(
        isinstance(d, int) for d in scale.shape) else ()
    zero = n.graph.constant(f"{n.node.name}_zero_point", np.zeros(shape, dtype.numpy))  # type: ignore[arg-type]
    n.node.inputs.extend([None] * (3 - len(n.node.inputs)))
    n.graph.set_input(n.node, 2, zero)


_HANDLERS: dict[str, Callable[[_Norm], list[Node] | None]] = {
    "Squeeze": _squeeze, "Unsqueeze": _squeeze, "Split": _split, "Pad": _pad,  # type: ignore[dict-item]
    "Resize": _resize, "Softmax": _softmax, "LogSoftmax": _softmax, "Conv": _window,  # type: ignore[dict-item]
    "ConvTranspose": _window, "MaxPool": _window, "AveragePool": _window, "Cast": _cast,  # type: ignore[dict-item]
    "ConstantOfShape": _constant_of_shape, "Dropout": _dropout, "BatchNormalization": _batch_norm,  # type: ignore[dict-item]
    "Transpose": _transpose, "Clip": _clip, "GridSample": _grid_sample, "QuantizeLinear": _quantize,  # type: ignore[dict-item]
    "LpPool": _window, "ConvInteger": _window, "QLinearConv": _window, "DFT": _dft,  # type: ignore[dict-item]
    "RoiAlign": _roi_align,  # type: ignore[dict-item]
}
