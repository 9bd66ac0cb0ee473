"""ONNX ops compiled as compositions of IR ops (the frontend's part of normalisation, onnx_opsets.normalize).

Each lowering builds helper nodes in front of the ONNX node and turns the node itself into the last op of the
composition, so its name and output values stay those of the model. The compositions are the ops' ONNX
definitions: Sum/Mean are chains of Add (then a Div), ReduceLogSum is Log(ReduceSum), DepthToSpace/SpaceToDepth
Reshape -> Transpose -> Reshape, Hardmax OneHot(ArgMax), LpNormalization x / ReduceL1|L2 (0 where the norm is 0), GlobalLpPool and LpPool
the p-th root of a sum of |x|^p (LpPool through AveragePool with the padding counted), Compress with a constant
condition a Gather of the picked positions, EyeLike a constant, AffineGrid a MatMul of theta with the constant
pixel-centre grid, STFT a Gather of the frames (times the window) and a DFT, and Einsum (onnx_einsum.py)
transposes, reshapes, MatMul and ReduceSum. A lowering that needs static shapes (the rank, the sizes it reshapes to) and does not
have them fails naming the node: dynamic shapes are not supported yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from .ir import DType, Node, Value
from .onnx_einsum import lower_einsum
from .onnx_types import dtype_from_onnx
from .shape_inference import infer_node_types

if TYPE_CHECKING:
    from .onnx_opsets import _Norm


class Builder:
    """Adds typed helper nodes in front of the node being lowered, then turns that node into the last op."""

    def __init__(self, n: _Norm) -> None:
        self.n, self.graph, self.node = n, n.graph, n.node
        self.nodes: list[Node] = []

    def add(self, op: str, inputs: Sequence[Value | None], attrs: dict[str, Any] | None = None) -> Value:
        node = self.graph.add_node(
            op, inputs, 1, attrs=attrs, name=f"{self.node.name}/{op}_{len(self.nodes)}", before=self.node
        )
        infer_node_types(node, self.n.known)
        self.nodes.append(node)
        return node.outputs[0]

    def const(self, array: np.ndarray, what: str = "const") -> Value:
        return self.graph.constant(f"{self.node.name}_{what}", np.asarray(array))

    def ints(self, values: Sequence[int]) -> Value:
        if any(not -(2**62) <= v <= 2**62 for v in values):  # (a hostile attribute's sizes)
            raise self.n.fail(f"the sizes {list(values)} it computes are out of range")
        return self.const(np.asarray(list(values), np.int64), "shape")

    def reshape(self, x: Value, shape: Sequence[int]) -> Value:
        return x if x.shape == tuple(shape) else self.add("Reshape", [x, self.ints(shape)], {"allowzero": 0})

    def transpose(self, x: Value, perm: Sequence[int]) -> Value:
        return x if list(perm) == sorted(perm) else self.add("Transpose", [x], {"perm": list(perm)})

    def finish(self, op: str, inputs: Sequence[Value | None], attrs: dict[str, Any] | None = None) -> list[Node]:
        """The lowered node becomes `op(inputs)`; returns every node to (re)infer, in order."""
        node = self.node
        for value in node.inputs:
            if value is not None:
                value.consumers.remove(node)
        node.op_type, node.inputs, node.attrs = op, list(inputs), dict(attrs or {})
        for value in node.inputs:
            if value is not None:
                value.consumers.append(node)
        return [*self.nodes, node]

    def finish_with(self, value: Value) -> list[Node]:
        """The lowered node becomes the helper that computes `value` (an Identity of it if none does)."""
        last = self.nodes[-1] if self.nodes else None
        if last is None or last.outputs[0] is not value or value.consumers:
            return self.finish("Identity", [value])
        self.nodes.pop()
        op, inputs, attrs = last.op_type, list(last.inputs), dict(last.attrs)
        self.graph.remove_node(last)
        return self.finish(op, inputs, attrs)


def static_shape(n: _Norm, index: int = 0) -> tuple[int, ...]:
    """The static shape of input `index`, or a CompileError naming the node."""
    value = n.node.input(index)
    shape = None if value is None else value.shape
    if shape is None or not all(isinstance(d, int) and d >= 0 for d in shape):
        raise n.fail(
            f"input {index} has shape {shape}: this op is compiled for static shapes only (dynamic shapes "
            "are not supported yet; give the input shapes with --input_shape)"
        )
    return tuple(int(d) for d in shape)  # type: ignore[arg-type]


def _sum(n: _Norm) -> list[Node]:
    b = Builder(n)
    terms = [v for v in n.node.inputs if v is not None]
    if not terms:
        raise n.fail("needs at least one input")
    total = terms[0]
    for term in terms[1:-1]:
        total = b.add("Add", [total, term])
    if n.node.op_type == "Mean":
        if len(terms) > 1:
            total = b.add("Add", [total, terms[-1]])
        dtype = total.dtype or DType.FLOAT
        return b.finish("Div", [total, b.const(np.array(len(terms), dtype.numpy), "count")])
    return b.finish("Add", [total, terms[-1]]) if len(terms) > 1 else b.finish("Identity", [total])


def _reduce_log_sum(n: _Norm) -> list[Node]:
    attrs = n.node.attrs
    if n.opset >= 18 and len(n.node.inputs) > 1:
        axes = n.ints(1, "axes")
        n.drop_inputs(1)
        if axes:
            attrs["axes"] = axes
    noop = attrs.pop("noop_with_empty_axes", 0)
    b = Builder(n)
    x = n.node.inputs[0]
    if noop and not attrs.get("axes"):
        return b.finish("Log", [x])
    summed = b.add("ReduceSum", [x], {k: v for k, v in attrs.items() if k in ("axes", "keepdims")})
    return b.finish("Log", [summed])


def _depth_to_space(n: _Norm) -> list[Node]:
    batch, channels, height, width = _nchw(n)
    block = int(n.node.attrs.get("blocksize", 0))
    b = Builder(n)
    x = n.node.inputs[0]
    if n.node.op_type == "SpaceToDepth":
        if block < 1 or height % block or width % block:
            raise n.fail(f"blocksize {block} must divide the height {height} and width {width}")
        inner = b.reshape(x, [batch, channels, height // block, block, width // block, block])
        moved = b.transpose(inner, [0, 3, 5, 1, 2, 4])
        return b.finish(
            "Reshape",
            [moved, b.ints([batch, channels * block * block, height // block, width // block])],
            {"allowzero": 0},
        )
    if block < 1 or channels % (block * block):
        raise n.fail(f"blocksize {block}: its square must divide the channels {channels}")
    depth = channels // (block * block)
    if n.node.attrs.get("mode", "DCR") == "DCR":
        inner = b.reshape(x, [batch, block, block, depth, height, width])
        moved = b.transpose(inner, [0, 3, 4, 1, 5, 2])
    elif n.node.attrs.get("mode") == "CRD":
        inner = b.reshape(x, [batch, depth, block, block, height, width])
        moved = b.transpose(inner, [0, 1, 4, 2, 5, 3])
    else:
        raise n.fail(f"mode={n.node.attrs.get('mode')!r} is not supported; supported: 'DCR', 'CRD'")
    return b.finish("Reshape", [moved, b.ints([batch, depth, height * block, width * block])], {"allowzero": 0})


def _nchw(n: _Norm) -> tuple[int, int, int, int]:
    shape = static_shape(n)
    if len(shape) != 4:
        raise n.fail(f"the input must be 4-D (N, C, H, W), got shape {list(shape)}")
    return shape  # type: ignore[return-value]


def _hardmax(n: _Norm) -> list[Node]:
    x = n.node.inputs[0]
    shape = static_shape(n)
    axis = n.axis(int(n.node.attrs.get("axis", -1 if n.opset >= 13 else 1)), len(shape))
    if n.opset < 13 and axis != len(shape) - 1:  # opset 11/12 Hardmax: coerced to 2-D at `axis`
        raise n.fail(f"axis={axis} at opset {n.opset} (the input coerced to 2-D) is supported on the last axis only")
    b = Builder(n)
    picks = b.add("ArgMax", [x], {"axis": axis, "keepdims": 0, "select_last_index": 0})  # the first maximum
    dtype = (x.dtype or DType.FLOAT).numpy  # type: ignore[union-attr]
    values = b.const(np.array([0, 1], dtype), "values")
    return b.finish("OneHot", [picks, b.const(np.array(shape[axis], np.int64), "depth"), values], {"axis": axis})


def _lp_normalization(n: _Norm) -> list[Node]:
    p = int(n.node.attrs.get("p", 2))
    if p not in (1, 2):
        raise n.fail(f"p={p} is not supported; supported: 1, 2")
    x = n.node.inputs[0]
    rank = n.rank()
    if rank is None:
        raise n.fail("the input rank must be known")
    axis = n.axis(int(n.node.attrs.get("axis", -1)), rank)
    b = Builder(n)
    norm = b.add("ReduceL2" if p == 2 else "ReduceL1", [x], {"axes": [axis], "keepdims": 1})
    dtype = (x.dtype or DType.FLOAT).numpy  # type: ignore[union-attr]
    zero, one = b.const(np.array(0, dtype), "zero"), b.const(np.array(1, dtype), "one")
    safe = b.add("Where", [b.add("Equal", [norm, zero]), one, norm])  # a zero norm (x all 0) gives 0, as onnxruntime
    return b.finish("Div", [x, safe])


def _lp_pool(n: _Norm) -> list[Node]:
    """GlobalLpPool: (sum over the spatial axes of |x|^p)^(1/p); LpPool: the same per window, the sum taken as
    AveragePool (padding counted) times the window size, as onnxruntime's LpPool pads with zeros."""
    attrs, x = n.node.attrs, n.node.inputs[0]
    p = float(attrs.get("p", 2))
    rank = n.rank()
    if rank is None or rank < 3:
        raise n.fail(f"the input must have rank >= 3 (N, C, spatial...), got rank {rank}")
    b = Builder(n)
    powered = b.add("Pow", [b.add("Abs", [x]), b.const(np.array(p, (x.dtype or DType.FLOAT).numpy), "p")])  # type: ignore[union-attr]
    if n.node.op_type == "GlobalLpPool":
        summed = b.add("ReduceSum", [powered], {"axes": list(range(2, rank)), "keepdims": 1})
    else:
        kernel = attrs.get("kernel_shape")
        if not kernel:
            raise n.fail("attribute kernel_shape is required")
        window = {
            k: v
            for k, v in attrs.items()
            if k in ("kernel_shape", "strides", "pads", "dilations", "ceil_mode", "auto_pad")
        }
        mean = b.add("AveragePool", [powered], {**window, "count_include_pad": 1})
        summed = b.add(
            "Mul",
            [
                mean,
                b.const(
                    np.array(float(np.prod(kernel)), (x.dtype or DType.FLOAT).numpy),  # type: ignore[union-attr]
                    "window",
                ),
            ],
        )
    return b.finish("Pow", [summed, b.const(np.array(1.0 / p, (x.dtype or DType.FLOAT).numpy), "root")])  # type: ignore[union-attr]


def _compress(n: _Norm) -> list[Node]:
    condition = n.node.input(1)
    if condition is None or condition.data is None:
        raise n.fail(
            "the condition is computed at run time, so the output shape depends on its values: dynamic "
            "shapes are not supported yet (only a constant condition is)"
        )
    x = n.node.inputs[0]
    axis = n.node.attrs.get("axis")
    b = Builder(n)
    if axis is None:
        size = static_shape(n)
        x = b.reshape(x, [int(np.prod(size, dtype=np.int64))])
        axis = 0
    else:
        rank = n.rank()
        axis = n.axis(int(axis), rank if rank is not None else 0)
    length = (x.shape or (0,))[axis]  # type: ignore[index]
    flags = np.asarray(condition.data).reshape(-1).astype(bool)
    if isinstance(length, int) and flags.size > length:
        raise n.fail(f"the condition has {flags.size} entries, more than the {length} along axis {axis}")
    picks = b.const(np.nonzero(flags)[0].astype(np.int64), "picks")
    return b.finish("Gather", [x, picks], {"axis": axis})


def _eye_like(n: _Norm) -> list[Node]:
    shape = static_shape(n)
    if len(shape) != 2:
        raise n.fail(f"the input must be 2-D, got shape {list(shape)}")
    given = n.node.attrs.get("dtype")
    x = n.node.inputs[0]
    if given is not None:
        dtype = dtype_from_onnx(int(given), f"node {n.node.name!r} (EyeLike) attribute 'dtype'")
    else:
        dtype = x.dtype or DType.FLOAT  # type: ignore[union-attr]
    eye = np.eye(shape[0], shape[1], int(n.node.attrs.get("k", 0)), dtype=dtype.numpy)
    b = Builder(n)
    return b.finish("Identity", [b.const(eye, "eye")])


def _affine_grid(n: _Norm) -> list[Node]:
    """grid[n, ..., :] = theta[n] @ (x, y[, z], 1) over the normalized pixel centres of `size` (a constant)."""
    size = n.ints(1, "size")
    if size is None or len(size) not in (4, 5) or min(size) < 1:
        raise n.fail(f"size {size} must be [N, C, H, W] or [N, C, D, H, W] of positive sizes")
    theta = n.node.inputs[0]
    spatial = list(reversed(size[2:]))  # x (the last dim) first
    align = bool(n.node.attrs.get("align_corners", 0))
    axes = [np.linspace(-1, 1, d) if align else (np.arange(d) * 2 + 1) / d - 1 for d in spatial]
    mesh = np.meshgrid(*axes[::-1], indexing="ij")[::-1]  # each of shape (D,) H, W; x, y(, z) order
    dtype = (theta.dtype or DType.FLOAT).numpy  # type: ignore[union-attr]
    base = np.stack([*(m.reshape(-1) for m in mesh), np.ones(mesh[0].size)], axis=-1).astype(dtype)
    b = Builder(n)
    points = b.add("MatMul", [b.const(base[None], "base"), b.transpose(theta, [0, 2, 1])])  # type: ignore[arg-type]
    return b.finish("Reshape", [points, b.ints([size[0], *size[2:], len(spatial)])], {"allowzero": 0})


def _stft(n: _Norm) -> list[Node]:
    """The frames as one Gather of constant positions (times the window), then a onesided or full DFT of each."""
    signal = static_shape(n)
    if len(signal) != 3 or signal[2] not in (1, 2):
        raise n.fail(f"the signal must be [batch, length, 1 or 2], got shape {list(signal)}")
    step = n.ints(1, "frame_step")
    window = n.node.input(2)
    given = n.ints(3, "frame_length") if n.node.input(3) is not None else None
    length = given[0] if given else (static_shape(n, 2)[0] if window is not None else signal[1])
    shape = None if window is None else window.shape
    if shape is not None and (len(shape) != 1 or (isinstance(shape[0], int) and shape[0] != length)):
        raise n.fail(f"the window of shape {list(shape)} must hold frame_length {length} values")
    if not step or step[0] < 1 or not 1 <= length <= signal[1]:
        raise n.fail(f"frame_step {step} and frame_length {length} do not fit a signal of {signal[1]} samples")
    frames = (signal[1] - length) // step[0] + 1
    b = Builder(n)
    picks = np.arange(frames, dtype=np.int64)[:, None] * step[0] + np.arange(length, dtype=np.int64)[None, :]
    framed = b.add("Gather", [n.node.inputs[0], b.const(picks, "frames")], {"axis": 1})
    if window is not None:
        framed = b.add("Mul", [framed, b.reshape(window, [1, 1, length, 1])])
    onesided = int(n.node.attrs.get("onesided", 1))
    return b.finish("DFT", [framed], {"axis": 2, "inverse": 0, "onesided": onesided})


def _einsum(n: _Norm) -> list[Node]:
    shapes = [static_shape(n, i) for i, v in enumerate(n.node.inputs) if v is not None]
    return lower_einsum(n, Builder(n), shapes)


LOWERINGS: dict[str, Callable[[_Norm], list[Node]]] = {
    "Sum": _sum,
    "Mean": _sum,
    "ReduceLogSum": _reduce_log_sum,
    "DepthToSpace": _depth_to_space,
    "SpaceToDepth": _depth_to_space,
    "Hardmax": _hardmax,
    "LpNormalization": _lp_normalization,
    "GlobalLpPool": _lp_pool,
    "LpPool": _lp_pool,
    "Compress": _compress,
    "EyeLike": _eye_like,
    "Einsum": _einsum,
    "AffineGrid": _affine_grid,
    "STFT": _stft,
}
LOWERED_OPS = frozenset(LOWERINGS)
