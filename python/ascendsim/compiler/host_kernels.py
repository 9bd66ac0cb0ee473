"""Host (CPU) kernels: numpy implementations of ONNX ops, used by constant folding (GE's
`compiler/host_kernels/`) and by the reference interpreter `run_graph` that the pass tests compare against.

A kernel is `kernel(inputs, attrs) -> list of outputs`: `inputs` are numpy arrays (None for an absent optional
input), `attrs` the node's attributes as plain Python values. Kernels cover the shape arithmetic that
exporters emit (Shape, Gather, Unsqueeze, Concat, Slice, Reshape, Range, ConstantOfShape, Expand, ...), the
elementwise math (unary, binary with broadcasting, comparisons, Where, the activations), a few reductions and
the compute ops (Conv 2-D, MatMul, Gemm, BatchNormalization) so a whole test graph can be evaluated, plus
ascendsim's FusedElementwise (its `program` evaluated step by step) and the fused-epilogue attributes
(`activation`, `fused_bias`, `fused_sum`). A kernel that cannot handle its attributes raises HostKernelError; the caller
then leaves the node alone. Attributes are in the IR form of ops/__init__.py (e.g. Cast's `to` is a DType).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Optional

import numpy as np

from .ir import DType, Graph

Array = np.ndarray
Kernel = Callable[[Sequence[Optional[Array]], dict[str, Any]], list[Array]]
HOST_KERNELS: dict[str, Kernel] = {}


class HostKernelError(ValueError):
    """The op's attributes or inputs are outside what the host kernel implements."""


def kernel(*op_types: str) -> Callable[[Kernel], Kernel]:
    def register(fn: Kernel) -> Kernel:
        for op in op_types:
            HOST_KERNELS[op] = fn
        return fn
    return register


def run(op_type: str, inputs: Sequence[Array | None], attrs: dict[str, Any], n_outputs: int = 1) -> list[Array]:
    """Runs the host kernel of `op_type` (KeyError if there is none); `n_outputs` is for Split."""
    with np.errstate(all="ignore"):
        return HOST_KERNELS[op_type](inputs, {**attrs, "_outputs": n_outputs})


def _ints(array: Array | None) -> list[int]:
    return [] if array is None else [int(v) for v in np.asarray(array).reshape(-1)]


def _axes(inputs: Sequence[Array | None], attrs: dict[str, Any], index: int) -> list[int] | None:
    """Axes given as attribute (old opsets) or as input `index` (new opsets); None when absent."""
    if "axes" in attrs:
        return [int(a) for a in attrs["axes"]]
    if len(inputs) > index and inputs[index] is not None:
        return _ints(inputs[index])
    return None


# ---- unary elementwise ---------------------------------------------------------------------------------

def _erf(x: Array) -> Array:
    return np.vectorize(math.erf, otypes=[x.dtype])(x) if x.size else x.copy()


def _hard_sigmoid(x: Array, alpha: float, beta: float) -> Array:
    return np.clip(alpha * x + beta, 0, 1).astype(x.dtype)


_UNARY: dict[str, Callable[[Array, dict[str, Any]], Array]] = {
    "Neg": lambda x, a: -x, "Abs": lambda x, a: np.abs(x), "Sqrt": lambda x, a: np.sqrt(x),
    "Exp": lambda x, a: np.exp(x), "Log": lambda x, a: np.log(x), "Reciprocal": lambda x, a: 1 / x,
    "Floor": lambda x, a: np.floor(x), "Ceil": lambda x, a: np.ceil(x), "Sign": lambda x, a: np.sign(x),
    "Sin": lambda x, a: np.sin(x), "Cos": lambda x, a: np.cos(x), "Not": lambda x, a: np.logical_not(x),
    "Relu": lambda x, a: np.maximum(x, 0).astype(x.dtype), "Sigmoid": lambda x, a: 1 / (1 + np.exp(-x)),
    "Tanh": lambda x, a: np.tanh(x), "Erf": lambda x, a: _erf(x), "Identity": lambda x, a: x,
    "Softplus": lambda x, a: np.log1p(np.exp(x)), "Softsign": lambda x, a: x / (1 + np.abs(x)),
    "Round": lambda x, a: np.round(x),
    "Selu": lambda x, a: a.get("gamma", 1.0507009873554805) * np.where(
        x > 0, x, a.get("alpha", 1.6732632423543772) * (np.exp(x) - 1)),
    "LeakyRelu": lambda x, a: np.where(x >= 0, x, x * a.get("alpha", 0.01)).astype(x.dtype),
    "Elu": lambda x, a: np.where(x > 0, x, a.get("alpha", 1.0) * (np.exp(x) - 1)).astype(x.dtype),
    "HardSigmoid": lambda x, a: _hard_sigmoid(x, a.get("alpha", 0.2), a.get("beta", 0.5)),
    "HardSwish": lambda x, a: x * _hard_sigmoid(x, 1 / 6, 0.5),
    "Silu": lambda x, a: x / (1 + np.exp(-x)),
    "Gelu": lambda x, a: _gelu(x, a.get("approximate", "none")),
    "Acos": lambda x, a: np.arccos(x), "Acosh": lambda x, a: np.arccosh(x), "Asin": lambda x, a: np.arcsin(x),
    "Asinh": lambda x, a: np.arcsinh(x), "Atan": lambda x, a: np.arctan(x), "Atanh": lambda x, a: np.arctanh(x),
    "Cosh": lambda x, a: np.cosh(x), "Sinh": lambda x, a: np.sinh(x), "Tan": lambda x, a: np.tan(x),
    "BitwiseNot": lambda x, a: np.invert(x),
}


def _gelu(x: Array, approximate: str) -> Array:
    if approximate == "tanh":
        return (0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))).astype(x.dtype)
    return (0.5 * x * (1 + _erf(x / np.asarray(math.sqrt(2), x.dtype)))).astype(x.dtype)


def _make_unary(op: str) -> Kernel:
    def unary(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
        x = np.asarray(inputs[0])
        return [np.asarray(_UNARY[op](x, attrs)).astype(x.dtype, copy=False)]
    return unary


for _op in _UNARY:
    HOST_KERNELS[_op] = _make_unary(_op)


@kernel("IsNaN")
def _isnan(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    return [np.isnan(np.asarray(inputs[0]))]


@kernel("IsInf")
def _isinf(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x = np.asarray(inputs[0])
    positive, negative = bool(attrs.get("detect_positive", 1)), bool(attrs.get("detect_negative", 1))
    return [np.isinf(x) & (((x > 0) & positive) | ((x < 0) & negative))]


@kernel("Clip")
def _clip(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x = inputs[0]
    assert x is not None
    low = inputs[1] if len(inputs) > 1 and inputs[1] is not None else attrs.get("min")
    high = inputs[2] if len(inputs) > 2 and inputs[2] is not None else attrs.get("max")
    out = x if low is None else np.maximum(x, low)
    out = out if high is None else np.minimum(out, high)
    return [np.asarray(out).astype(x.dtype)]


@kernel("Cast")
def _cast(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    return [np.asarray(inputs[0]).astype(DType(int(attrs["to"])).numpy)]  # the IR's `to` is an ir.DType


# ---- binary / variadic elementwise ---------------------------------------------------------------------

def _div(a: Array, b: Array) -> Array:
    if np.issubdtype(a.dtype, np.integer):
        if np.any(b == 0):
            raise HostKernelError("integer division by zero")
        return (np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b))).astype(a.dtype)  # truncates like C
    return a / b


_BINARY: dict[str, Callable[[Array, Array], Array]] = {
    "Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": _div, "Pow": np.power,
    "Equal": np.equal, "Less": np.less, "Greater": np.greater, "LessOrEqual": np.less_equal,
    "GreaterOrEqual": np.greater_equal, "And": np.logical_and, "Or": np.logical_or, "Xor": np.logical_xor,
    "BitShift": np.left_shift, "BitwiseAnd": np.bitwise_and, "BitwiseOr": np.bitwise_or,
    "BitwiseXor": np.bitwise_xor,
}
_KEEPS_DTYPE = {"Add", "Sub", "Mul", "Div", "Pow"}


def _make_binary(op: str) -> Kernel:
    def binary(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
        a, b = np.asarray(inputs[0]), np.asarray(inputs[1])
        if op == "BitShift" and attrs.get("direction") == "RIGHT":
            return [np.right_shift(a, b)]
        out = np.asarray(_BINARY[op](a, b))
        return [out.astype(a.dtype) if op in _KEEPS_DTYPE else out]
    return binary


for _op in _BINARY:
    HOST_KERNELS[_op] = _make_binary(_op)


@kernel("Mod")
def _mod(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    a, b = np.asarray(inputs[0]), np.asarray(inputs[1])
    if np.issubdtype(a.dtype, np.integer) and np.any(b == 0):
        raise HostKernelError("integer modulo by zero")
    return [(np.fmod(a, b) if attrs.get("fmod", 0) else np.mod(a, b)).astype(a.dtype)]


_VARIADIC = {"Max": np.maximum, "Min": np.minimum, "Sum": np.add}


def _make_variadic(op: str) -> Kernel:
    def variadic(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
        arrays = [np.asarray(a) for a in inputs if a is not None]
        out = arrays[0]
        for other in arrays[1:]:
            out = _VARIADIC.get(op, np.add)(out, other)
        if op == "Mean":
            out = out / len(arrays)
        return [np.asarray(out).astype(arrays[0].dtype)]
    return variadic


for _op in ("Max", "Min", "Sum", "Mean"):
    HOST_KERNELS[_op] = _make_variadic(_op)


@kernel("Where")
def _where(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    return [np.where(np.asarray(inputs[0]), inputs[1], inputs[2])]


@kernel("PRelu")
def _prelu(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x, slope = np.asarray(inputs[0]), np.asarray(inputs[1])
    return [np.where(x >= 0, x, x * slope).astype(x.dtype)]


def activate(x: Array, activation: str | None, alpha: float | None, beta: float | None) -> Array:
    """The epilogue activation of a fused Conv/Gemm/MatMul (the fused-op convention's `activation`)."""
    if not activation:
        return x
    if activation == "Clip":
        return np.clip(x, alpha if alpha is not None else -np.inf, beta if beta is not None else np.inf).astype(x.dtype)
    attrs: dict[str, Any] = {}
    if alpha is not None:
        attrs["alpha"] = alpha
    if beta is not None:
        attrs["beta"] = beta
    return run(activation, [x], attrs)[0]


# ---- shape arithmetic ----------------------------------------------------------------------------------

@kernel("Shape")
def _shape(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    dims = np.asarray(np.shape(inputs[0]), dtype=np.int64)
    start, end = attrs.get("start", 0), attrs.get("end")
    return [dims[start:end]]


@kernel("Size")
def _size(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    return [np.asarray(np.size(inputs[0]), dtype=np.int64)]


def _indices_along(op: str, inputs: Sequence[Array | None], attrs: dict[str, Any]) -> tuple[Array, Array, int]:
    """(data, indices made non-negative, axis) for Gather and GatherElements; out-of-range indices refused."""
    data, indices = np.asarray(inputs[0]), np.asarray(inputs[1]).astype(np.int64)
    axis = attrs.get("axis", 0)
    size = data.shape[axis]
    if np.any((indices < -size) | (indices >= size)):
        raise HostKernelError(f"{op} index out of range for axis of size {size}")
    return data, np.where(indices < 0, indices + size, indices), axis


@kernel("Gather")
def _gather(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    data, indices, axis = _indices_along("Gather", inputs, attrs)
    return [np.take(data, indices, axis=axis)]


@kernel("Unsqueeze")
def _unsqueeze(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x = np.asarray(inputs[0])
    axes = _axes(inputs, attrs, 1) or []
    rank = x.ndim + len(axes)
    return [np.expand_dims(x, tuple(sorted(a % rank for a in axes)))]


@kernel("Squeeze")
def _squeeze(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x = np.asarray(inputs[0])
    axes = _axes(inputs, attrs, 1)
    return [np.squeeze(x) if axes is None else np.squeeze(x, tuple(a % x.ndim for a in axes))]


@kernel("Concat")
def _concat(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    return [np.concatenate([np.asarray(a) for a in inputs if a is not None], axis=attrs["axis"])]


@kernel("Slice")
def _slice(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x = np.asarray(inputs[0])
    if "starts" in attrs:  # opset < 10
        starts, ends, axes, steps = attrs["starts"], attrs["ends"], attrs.get("axes"), None
    else:
        starts, ends = _ints(inputs[1]), _ints(inputs[2])
        axes = _ints(inputs[3]) if len(inputs) > 3 and inputs[3] is not None else None
        steps = _ints(inputs[4]) if len(inputs) > 4 and inputs[4] is not None else None
    index = [slice(None)] * x.ndim
    for i, axis in enumerate(axes if axes is not None else range(len(starts))):
        step = steps[i] if steps else 1
        index[axis % x.ndim] = slice(_clamp(starts[i]), _clamp(ends[i]), step)
    return [x[tuple(index)]]


def _clamp(bound: int) -> int | None:
    """ONNX uses INT64_MAX/INT_MIN-like sentinels for 'to the end'; Python slices take them as they are,
    except that a huge negative end with a negative step means 'past the beginning' (None)."""
    return None if bound < -(2**62) else int(bound)


@kernel("Reshape")
def _reshape(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x = np.asarray(inputs[0])
    shape = _ints(inputs[1])
    if not attrs.get("allowzero", 0):
        shape = [x.shape[i] if d == 0 else d for i, d in enumerate(shape)]
    return [x.reshape(shape)]


@kernel("Flatten")
def _flatten(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x = np.asarray(inputs[0])
    axis = attrs.get("axis", 1)
    axis = axis + x.ndim if axis < 0 else axis
    return [x.reshape(int(np.prod(x.shape[:axis], dtype=np.int64)), -1)]


@kernel("Range")
def _range(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    start, limit, delta = (np.asarray(a) for a in inputs[:3])
    if delta == 0:
        raise HostKernelError("Range with delta 0")
    return [np.arange(start, limit, delta).astype(start.dtype)]


@kernel("ConstantOfShape")
def _constant_of_shape(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    value = np.asarray(attrs.get("value", np.zeros(1, np.float32)))
    return [np.full(_ints(inputs[0]), value.reshape(-1)[0], dtype=value.dtype)]


@kernel("Expand")
def _expand(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x = np.asarray(inputs[0])
    shape = np.broadcast_shapes(x.shape, tuple(_ints(inputs[1])))
    return [np.broadcast_to(x, shape).copy()]


@kernel("Tile")
def _tile(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    return [np.tile(np.asarray(inputs[0]), _ints(inputs[1]))]


@kernel("Transpose")
def _transpose(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x = np.asarray(inputs[0])
    return [np.transpose(x, attrs.get("perm")).copy()]


@kernel("Split")
def _split(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x, axis = np.asarray(inputs[0]), attrs.get("axis", 0)
    sizes = attrs.get("split") or (_ints(inputs[1]) if len(inputs) > 1 and inputs[1] is not None else None)
    if sizes is None:
        count = attrs.get("num_outputs") or attrs["_outputs"]
        size = x.shape[axis]
        chunk = -(-size // count)
        sizes = [min(chunk, size - i * chunk) for i in range(count)]
    return list(np.split(x, np.cumsum(sizes)[:-1], axis=axis))


@kernel("NonZero")
def _nonzero(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    return [np.asarray(np.nonzero(np.asarray(inputs[0])), dtype=np.int64)]


@kernel("Constant")
def _constant(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    for name, dtype in (("value", None), ("value_float", np.float32), ("value_floats", np.float32),
                        ("value_int", np.int64), ("value_ints", np.int64)):
        if name in attrs:
            return [np.asarray(attrs[name], dtype=dtype)]
    raise HostKernelError(f"Constant with attributes {sorted(attrs)} is not implemented on the host")


# ---- reductions ----------------------------------------------------------------------------------------

_REDUCE: dict[str, Callable[..., Any]] = {
    "ReduceSum": np.sum, "ReduceMean": np.mean, "ReduceMax": np.max, "ReduceMin": np.min, "ReduceProd": np.prod,
    "ReduceL1": lambda x, **k: np.sum(np.abs(x), **k), "ReduceL2": lambda x, **k: np.sqrt(np.sum(x * x, **k)),
    "ReduceSumSquare": lambda x, **k: np.sum(x * x, **k),
    "ReduceLogSumExp": lambda x, **k: np.log(np.sum(np.exp(x), **k)),
}


def _make_reduce(op: str) -> Kernel:
    def reduce(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
        x = np.asarray(inputs[0])
        axes = _axes(inputs, attrs, 1)
        if not axes and attrs.get("noop_with_empty_axes", 0):
            return [x]
        keep = bool(attrs.get("keepdims", 1))
        out = _REDUCE[op](x, axis=None if not axes else tuple(axes), keepdims=keep)
        return [np.asarray(out).astype(x.dtype)]
    return reduce


for _op in _REDUCE:
    HOST_KERNELS[_op] = _make_reduce(_op)


@kernel("Softmax", "LogSoftmax")
def _softmax(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x = np.asarray(inputs[0])
    axis = attrs.get("axis", -1)
    shifted = x - x.max(axis=axis, keepdims=True)
    log_sum = np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
    out = shifted - log_sum if attrs.get("_log") else np.exp(shifted - log_sum)
    return [out.astype(x.dtype)]


HOST_KERNELS["LogSoftmax"] = lambda inputs, attrs: _softmax(inputs, {**attrs, "_log": True})


@kernel("ArgMax", "ArgMin")
def _argmax(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x, axis = np.asarray(inputs[0]), attrs.get("axis", 0)
    pick = np.argmin if attrs.get("_min") else np.argmax
    if attrs.get("select_last_index", 0):
        flipped = np.flip(x, axis)
        out = x.shape[axis] - 1 - pick(flipped, axis=axis)
    else:
        out = pick(x, axis=axis)
    out = np.expand_dims(out, axis) if attrs.get("keepdims", 1) else out
    return [np.asarray(out, dtype=np.int64)]


HOST_KERNELS["ArgMin"] = lambda inputs, attrs: _argmax(inputs, {**attrs, "_min": True})


@kernel("GatherElements")
def _gather_elements(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    data, indices, axis = _indices_along("GatherElements", inputs, attrs)
    return [np.take_along_axis(data, indices, axis=axis)]


@kernel("Pad")
def _pad(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    """The IR form: attributes `mode`, `pads` (begins then ends), `value`."""
    x = np.asarray(inputs[0])
    pads = list(attrs.get("pads", [0] * (2 * x.ndim)))
    if any(p < 0 for p in pads):
        raise HostKernelError("the host Pad does not crop (negative pads)")
    widths = list(zip(pads[:x.ndim], pads[x.ndim:]))
    mode = attrs.get("mode", "constant")
    if mode == "constant":
        return [np.pad(x, widths, constant_values=np.asarray(attrs.get("value", 0)).astype(x.dtype))]
    return [np.pad(x, widths, mode={"reflect": "reflect", "edge": "edge", "wrap": "wrap"}[mode])]


# ---- compute ops (with the fused-epilogue attributes) --------------------------------------------------

def _epilogue(out: Array, attrs: dict[str, Any]) -> list[Array]:
    return [activate(out, attrs.get("activation"), attrs.get("activation_alpha"), attrs.get("activation_beta"))]


@kernel("MatMul")
def _matmul(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    out = np.matmul(inputs[0], inputs[1])
    if len(inputs) > 2 and inputs[2] is not None:
        out = out + inputs[2]
    return _epilogue(np.asarray(out), attrs)


@kernel("Gemm")
def _gemm(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    a, b = np.asarray(inputs[0]), np.asarray(inputs[1])
    a = a.T if attrs.get("transA", 0) else a
    b = b.T if attrs.get("transB", 0) else b
    out = attrs.get("alpha", 1.0) * (a @ b)
    if len(inputs) > 2 and inputs[2] is not None:
        out = out + attrs.get("beta", 1.0) * inputs[2]
    return _epilogue(np.asarray(out).astype(a.dtype), attrs)


@kernel("Conv")
def _conv(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    """2-D convolution (NCHW, explicit pads, groups, strides, dilations) as one einsum per group."""
    x, w = np.asarray(inputs[0]), np.asarray(inputs[1])
    if x.ndim != 4 or attrs.get("auto_pad", "NOTSET") not in ("NOTSET", "VALID"):
        raise HostKernelError("the host Conv handles 2-D convolutions with explicit pads only")
    sh, sw = attrs.get("strides", [1, 1])
    dh, dw = attrs.get("dilations", [1, 1])
    top, left, bottom, right = attrs.get("pads", [0, 0, 0, 0])
    groups = attrs.get("group", 1)
    x = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    n, _, h, wd = x.shape
    m, cg, kh, kw = w.shape
    oh, ow = (h - dh * (kh - 1) - 1) // sh + 1, (wd - dw * (kw - 1) - 1) // sw + 1
    cols = np.empty((n, cg * groups, kh, kw, oh, ow), x.dtype)
    for i in range(kh):
        for j in range(kw):
            cols[:, :, i, j] = x[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw]
    cols = cols.reshape(n, groups, cg, kh, kw, oh, ow)
    wg = w.reshape(groups, m // groups, cg, kh, kw)
    out = np.einsum("ngckhyx,gmckh->ngmyx", cols, wg, optimize=True).reshape(n, m, oh, ow)
    if len(inputs) > 2 and inputs[2] is not None:
        out = out + np.asarray(inputs[2]).reshape(1, m, 1, 1)
    if attrs.get("fused_sum"):
        out = out + np.asarray(inputs[3])
    return _epilogue(out.astype(x.dtype), attrs)


@kernel("BatchNormalization")
def _batch_norm(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x, scale, bias, mean, var = (np.asarray(a) for a in inputs[:5])
    shape = (1, -1) + (1,) * (x.ndim - 2)
    s = scale / np.sqrt(var + attrs.get("epsilon", 1e-5))
    return _epilogue((x * s.reshape(shape) + (bias - mean * s).reshape(shape)).astype(x.dtype), attrs)


@kernel("LayerNormalization")
def _layer_norm(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x = np.asarray(inputs[0])
    axes = tuple(range(attrs.get("axis", -1) % x.ndim, x.ndim))
    centred = x - x.mean(axis=axes, keepdims=True)
    out = centred / np.sqrt((centred**2).mean(axis=axes, keepdims=True) + attrs.get("epsilon", 1e-5))
    out = out * np.asarray(inputs[1])
    if len(inputs) > 2 and inputs[2] is not None:
        out = out + inputs[2]
    return [out.astype(x.dtype)]


def _pool(inputs: Sequence[Array | None], attrs: dict[str, Any], is_max: bool) -> list[Array]:
    """2-D max/average pooling with explicit pads (average excludes pads unless count_include_pad); a 3-D pool
    whose last axis has kernel 1, stride 1 and no pads (the layout pass's NC1HWC0 pools) as the 2-D pool of
    its lanes."""
    x = np.asarray(inputs[0])
    if x.ndim == 5:
        return [_pool_lanes(x, attrs, is_max)]
    if x.ndim != 4 or attrs.get("ceil_mode", 0) or attrs.get("auto_pad", "NOTSET") not in ("NOTSET", "VALID"):
        raise HostKernelError("the host pools handle 2-D, floor mode, explicit pads only")
    kh, kw = attrs["kernel_shape"]
    sh, sw = attrs.get("strides", [1, 1])
    dh, dw = attrs.get("dilations", [1, 1])
    top, left, bottom, right = attrs.get("pads", [0, 0, 0, 0])
    fill = -np.inf if is_max else np.nan
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (top, bottom), (left, right)), constant_values=fill)
    oh = (xp.shape[2] - dh * (kh - 1) - 1) // sh + 1
    ow = (xp.shape[3] - dw * (kw - 1) - 1) // sw + 1
    windows = np.stack([xp[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw]
                        for i in range(kh) for j in range(kw)])
    if is_max:
        return [windows.max(axis=0).astype(x.dtype)]
    if attrs.get("count_include_pad", 0):
        windows = np.nan_to_num(windows, nan=0.0)
        return [windows.mean(axis=0).astype(x.dtype)]
    return [np.nanmean(windows, axis=0).astype(x.dtype)]


def _pool_lanes(x: Array, attrs: dict[str, Any], is_max: bool) -> Array:
    kernel, strides = attrs["kernel_shape"], attrs.get("strides", [1, 1, 1])
    dilations, pads = attrs.get("dilations", [1, 1, 1]), attrs.get("pads", [0] * 6)
    if len(kernel) != 3 or kernel[2] != 1 or strides[2] != 1 or dilations[2] != 1 or pads[2] or pads[5]:
        raise HostKernelError("the host pools handle 3-D only with kernel 1, stride 1 and no pads on the last axis")
    planar = {**attrs, "kernel_shape": kernel[:2], "strides": strides[:2], "dilations": dilations[:2],
              "pads": [pads[0], pads[1], pads[3], pads[4]]}
    n, c, h, w, lanes = x.shape
    y = _pool([x.transpose(0, 1, 4, 2, 3).reshape(n, c * lanes, h, w)], planar, is_max)[0]
    return np.ascontiguousarray(y.reshape(n, c, lanes, *y.shape[2:]).transpose(0, 1, 3, 4, 2))


HOST_KERNELS["MaxPool"] = lambda inputs, attrs: _pool(inputs, attrs, True)
HOST_KERNELS["AveragePool"] = lambda inputs, attrs: _pool(inputs, attrs, False)


@kernel("GlobalAveragePool", "GlobalMaxPool")
def _global_pool(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    x = np.asarray(inputs[0])
    reduce = np.max if attrs.get("_max") else np.mean
    return [reduce(x, axis=tuple(range(2, x.ndim)), keepdims=True).astype(x.dtype)]


HOST_KERNELS["GlobalMaxPool"] = lambda inputs, attrs: _global_pool(inputs, {**attrs, "_max": True})


@kernel("FusedElementwise")
def _fused_elementwise(inputs: Sequence[Array | None], attrs: dict[str, Any]) -> list[Array]:
    """Evaluates the `program`: index < n_inputs names a node input, else the result of an earlier step."""
    slots: list[Array | None] = list(inputs)
    for step in attrs["program"]:
        slots.append(run(step["op"], [slots[i] for i in step["inputs"]], step.get("attrs", {}))[0])
    result = slots[-1]
    assert result is not None
    return [result]


# ---- reference interpreter -----------------------------------------------------------------------------

def run_graph(graph: Graph, feeds: dict[str, Array]) -> dict[str, Array]:
    """Runs `graph` on the host with these kernels; returns the graph outputs by name."""
    env: dict[int, Array] = {}
    for value in graph.inputs:
        env[id(value)] = np.asarray(feeds[value.name])

    def fetch(value: Any) -> Array | None:
        if value is None:
            return None
        return value.data if value.is_constant else env[id(value)]

    for node in graph.nodes:
        results = run(node.op_type, [fetch(v) for v in node.inputs], node.attrs, len(node.outputs))
        for value, result in zip(node.outputs, results):
            env[id(value)] = result
    return {value.name: np.asarray(fetch(value)) for value in graph.outputs}


from . import host_index_kernels, host_layout_kernels  # noqa: F401  (register the index, quantization and layout kernels)
