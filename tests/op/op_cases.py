"""One case per supported CANN operator (csrc/op/cann_ops.def): inputs, output descriptions, attributes and
the numpy reference. Used by test_op_kernels.py through both Python faces."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from op_helpers import Const, Out

RNG = np.random.default_rng(7)


def f32(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def pos(*shape: int) -> np.ndarray:
    return (RNG.random(shape) + 0.5).astype(np.float32)


def i64(*values: int) -> Const:
    return Const(np.array(values, np.int64))


def i32(*values: int) -> Const:
    return Const(np.array(values, np.int32))


@dataclass
class Case:
    op: str
    inputs: list[Any]
    outputs: list[Out]
    reference: Callable[..., list[np.ndarray]]
    attrs: dict[str, Any] = field(default_factory=dict)
    fmt: int | None = None
    rtol: float = 1e-5
    atol: float = 1e-5

    def expected(self) -> list[np.ndarray]:
        arrays = [v.array if isinstance(v, Const) else v for v in self.inputs]
        return self.reference(*arrays)


def erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(__import__("math").erf)(x).astype(np.float32)


def gelu_tanh(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def pool2d(x: np.ndarray, k: tuple[int, int], s: tuple[int, int], pads: tuple[int, int, int, int], mode: str, *,
           ceil: bool = False, exclusive: bool = True) -> np.ndarray:
    """NCHW pooling; pads [top, bottom, left, right]; padding is ignored by max and (exclusive) average."""
    n, c, h, w = x.shape
    t, b, left, r = pads

    def size(i: int, p: int, kk: int, ss: int) -> int:
        span = i + p - kk
        return (-(-span // ss) if ceil else span // ss) + 1

    oh, ow = size(h, t + b, k[0], s[0]), size(w, left + r, k[1], s[1])
    out = np.zeros((n, c, oh, ow), np.float32)
    for y in range(oh):
        for x_ in range(ow):
            y0, x0 = y * s[0] - t, x_ * s[1] - left
            y1, x1 = min(y0 + k[0], h + b), min(x0 + k[1], w + r)
            win = x[:, :, max(y0, 0):min(y1, h), max(x0, 0):min(x1, w)]
            if mode == "max":
                out[:, :, y, x_] = win.max(axis=(2, 3))
            else:
                count = win.shape[2] * win.shape[3] if exclusive else (y1 - y0) * (x1 - x0)
                out[:, :, y, x_] = win.sum(axis=(2, 3)) / count
    return out


def conv2d(x: np.ndarray, w: np.ndarray, stride: int, pad: tuple[int, int, int, int], *, groups: int = 1,
           dilation: int = 1) -> np.ndarray:
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[1]), (pad[2], pad[3])))
    n, _, h, wd = xp.shape
    m, cg, kh, kw = w.shape
    ekh, ekw = dilation * (kh - 1) + 1, dilation * (kw - 1) + 1
    oh, ow = (h - ekh) // stride + 1, (wd - ekw) // stride + 1
    out = np.zeros((n, m, oh, ow), np.float32)
    per = m // groups
    for g in range(groups):
        xs = xp[:, g * cg:(g + 1) * cg]
        for y in range(oh):
            for x_ in range(ow):
                patch = xs[:, :, y * stride:y * stride + ekh:dilation, x_ * stride:x_ * stride + ekw:dilation]
                out[:, g * per:(g + 1) * per, y, x_] = np.einsum("nchw,mchw->nm", patch, w[g * per:(g + 1) * per])
    return out


def nc1hwc0(x: np.ndarray) -> np.ndarray:
    n, c, h, w = x.shape
    c1 = -(-c // 16)
    padded = np.zeros((n, c1 * 16, h, w), x.dtype)
    padded[:, :c] = x
    return padded.reshape(n, c1, 16, h, w).transpose(0, 1, 3, 4, 2).copy()


def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, axis: int, eps: float) -> list[np.ndarray]:
    """CANN's LayerNorm over the axes from `axis`: y, and mean and variance with those axes kept."""
    axes = tuple(range(axis, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return [(x - mean) / np.sqrt(var + eps) * gamma + beta, mean, var]


A, B = f32(2, 3, 4), f32(2, 3, 4)
M = f32(3, 4)
X4 = f32(1, 3, 6, 6)
U = np.array([[1, -2, 3]], np.float32)
I8A, I8B = RNG.integers(-128, 128, (3, 40)).astype(np.int8), RNG.integers(-128, 128, (40, 6)).astype(np.int8)


def unary(op: str, fn: Callable[[np.ndarray], np.ndarray], x: np.ndarray | None = None, **attrs: Any) -> Case:
    x = A if x is None else x
    return Case(op, [x], [Out(np.float32, list(x.shape))], lambda a: [fn(a).astype(np.float32)], attrs, atol=1e-4,
                rtol=1e-4)


def binary(op: str, fn: Callable[[np.ndarray, np.ndarray], np.ndarray], a: np.ndarray = A,
           b: np.ndarray = B[0], out: Any = np.float32) -> Case:
    shape = list(np.broadcast_shapes(a.shape, b.shape))
    return Case(op, [a, b], [Out(out, shape)], lambda x, y: [fn(x, y)], rtol=1e-4, atol=1e-5)


CASES: list[Case] = [
    unary("Abs", np.abs), unary("Neg", np.negative), unary("Sqrt", np.sqrt, pos(2, 3)),
    unary("Exp", np.exp), unary("Log", np.log, pos(2, 3)), unary("Reciprocal", np.reciprocal, pos(2, 3)),
    unary("Floor", np.floor), unary("Ceil", np.ceil), unary("Round", np.round, np.array([0.5, 1.5, -2.5, 2.4], np.float32)),
    unary("Sign", np.sign), unary("Sin", np.sin), unary("Cos", np.cos), unary("Erf", erf),
    unary("Relu", lambda x: np.maximum(x, 0)), unary("Sigmoid", lambda x: 1 / (1 + np.exp(-x))),
    unary("Tanh", np.tanh), unary("Softplus", lambda x: np.log1p(np.exp(x))),
    unary("Softsign", lambda x: x / (1 + np.abs(x))),
    unary("LeakyRelu", lambda x: np.where(x > 0, x, 0.2 * x), negative_slope=0.2),
    unary("Elu", lambda x: np.where(x > 0, x, 0.5 * (np.exp(x) - 1)), alpha=0.5),
    unary("Selu", lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * (np.exp(x) - 1))),
    unary("HardSigmoid", lambda x: np.clip(x / 6 + 0.5, 0, 1)),
    unary("HardSwish", lambda x: x * np.clip(x / 6 + 0.5, 0, 1)),
    unary("Gelu", gelu_tanh), unary("Identity", lambda x: x),
    Case("LogicalNot", [A > 0], [Out(np.bool_, [2, 3, 4])], lambda a: [~a]),
    Case("Cast", [A * 10], [Out(np.int32, [2, 3, 4])], lambda a: [a.astype(np.int32)], {"dst_type": 3}),
    binary("Add", np.add), binary("AddV2", np.add), binary("Sub", np.subtract), binary("Mul", np.multiply),
    binary("RealDiv", np.divide, b=pos(3, 4)), binary("Div", np.divide, b=pos(4)),
    binary("Maximum", np.maximum), binary("Minimum", np.minimum), binary("Pow", np.power, pos(2, 3), f32(3)),
    binary("PRelu", lambda x, s: np.where(x > 0, x, x * s), b=np.array([0.1, 0.2, 0.3, 0.4], np.float32)),
    binary("Equal", np.equal, A, A[0], np.bool_), binary("Greater", np.greater, out=np.bool_),
    binary("Less", np.less, out=np.bool_), binary("GreaterEqual", np.greater_equal, out=np.bool_),
    binary("LessEqual", np.less_equal, out=np.bool_),
    binary("LogicalAnd", np.logical_and, A > 0, B[0] > 0, np.bool_),
    binary("LogicalOr", np.logical_or, A > 0, B[0] > 0, np.bool_),
    Case("Select", [A > 0, A, B], [Out(np.float32, [2, 3, 4])], lambda c, x, y: [np.where(c, x, y)]),
    Case("ClipByValue", [A, np.array([-0.5], np.float32), np.array([0.5], np.float32)], [Out(np.float32, [2, 3, 4])],
         lambda x, lo, hi: [np.clip(x, lo, hi)]),
    Case("MatMul", [M, f32(5, 4)], [Out(np.float32, [3, 5])], lambda a, b: [a @ b.T], {"transpose_x2": True},
         rtol=1e-4, atol=1e-4),
    Case("MatMul", [f32(4, 3), f32(4, 5), f32(5)], [Out(np.float32, [3, 5])], lambda a, b, c: [a.T @ b + c],
         {"transpose_x1": True}, rtol=1e-4, atol=1e-4),
    Case("MatMulV2", [M, f32(4, 2)], [Out(np.float32, [3, 2])], lambda a, b: [a @ b], rtol=1e-4, atol=1e-4),
    Case("BatchMatMul", [f32(2, 3, 4), f32(2, 5, 4)], [Out(np.float32, [2, 3, 5])],
         lambda a, b: [a @ b.transpose(0, 2, 1)], {"adj_x2": True}, rtol=1e-4, atol=1e-4),
    Case("BatchMatMulV2", [f32(2, 4, 3), f32(1, 4, 5)], [Out(np.float32, [2, 3, 5])],
         lambda a, b: [a.transpose(0, 2, 1) @ b], {"adj_x1": True}, rtol=1e-4, atol=1e-4),
    Case("Conv2D", [X4, f32(4, 3, 3, 3)], [Out(np.float32, [1, 4, 3, 3], 0)], lambda x, w: [conv2d(x, w, 2, (1, 0, 1, 0))],
         {"strides": [1, 1, 2, 2], "pads": [1, 0, 1, 0], "dilations": [1, 1, 1, 1], "data_format": "NCHW"}, fmt=0,
         rtol=1e-4, atol=1e-4),
    Case("Conv2D", [f32(1, 4, 5, 5), f32(4, 2, 2, 2), f32(4)], [Out(np.float32, [1, 4, 3, 3], 0)],
         lambda x, w, b: [conv2d(x, w, 1, (0, 0, 0, 0), groups=2, dilation=2) + b.reshape(1, 4, 1, 1)],
         {"strides": [1, 1, 1, 1], "pads": [0, 0, 0, 0], "dilations": [1, 1, 2, 2], "groups": 2,
          "data_format": "NCHW"}, fmt=0, rtol=1e-4, atol=1e-4),
    Case("Conv2D", [f32(1, 6, 6, 3), f32(4, 3, 3, 3), f32(4)], [Out(np.float32, [1, 3, 3, 4], 1)],
         lambda x, w, b: [(conv2d(x.transpose(0, 3, 1, 2), w.transpose(0, 3, 1, 2), 2, (1, 0, 1, 0))
                           + b.reshape(1, 4, 1, 1)).transpose(0, 2, 3, 1)],
         {"strides": [1, 2, 2, 1], "pads": [1, 0, 1, 0], "data_format": "NHWC"}, fmt=1, rtol=1e-4, atol=1e-4),
    Case("GEMM", [M, f32(5, 4), f32(3, 5), np.array(2.0, np.float32), np.array(0.5, np.float32)],
         [Out(np.float32, [3, 5])], lambda a, b, c, alpha, beta: [alpha * (a @ b.T) + beta * c],
         {"transpose_a": False, "transpose_b": True}, rtol=1e-4, atol=1e-4),
    Case("GEMM", [I8A, I8B, np.arange(-9, 9, dtype=np.int32).reshape(3, 6), np.array(3, np.int32),
                  np.array(-2, np.int32)], [Out(np.int32, [3, 6])],
         lambda a, b, c, alpha, beta: [alpha * (a.astype(np.int32) @ b.astype(np.int32)) + beta * c]),
    Case("GEMM", [M.astype(np.float16).T.copy(), f32(4, 2).astype(np.float16), f32(3, 2),
                  np.array(1.0, np.float32), np.array(0.0, np.float32)], [Out(np.float32, [3, 2])],
         lambda a, b, c, alpha, beta: [a.T.astype(np.float32) @ b.astype(np.float32)], {"transpose_a": True},
         rtol=1e-3, atol=1e-3),
    Case("MaxPool", [X4], [Out(np.float32, [1, 3, 3, 3], 0)], lambda x: [pool2d(x, (2, 2), (2, 2), (0, 0, 0, 0), "max")],
         {"ksize": [1, 1, 2, 2], "strides": [1, 1, 2, 2], "padding": "VALID", "data_format": "NCHW"}, fmt=0),
    Case("AvgPool", [f32(1, 2, 5, 5)], [Out(np.float32, [1, 2, 3, 3], 0)],
         lambda x: [pool2d(x, (3, 3), (2, 2), (1, 1, 1, 1), "avg")],
         {"ksize": [1, 1, 3, 3], "strides": [1, 1, 2, 2], "padding": "SAME", "data_format": "NCHW"}, fmt=0),
    Case("MaxPoolV3", [X4], [Out(np.float32, [1, 3, 3, 3], 0)],
         lambda x: [pool2d(x, (3, 3), (2, 2), (1, 0, 1, 0), "max", ceil=True)],
         {"ksize": [1, 1, 3, 3], "strides": [1, 1, 2, 2], "pads": [1, 0, 1, 0], "ceil_mode": True}, fmt=0),
    Case("AvgPoolV2", [X4], [Out(np.float32, [1, 3, 3, 3], 0)],
         lambda x: [pool2d(x, (3, 3), (2, 2), (1, 1, 1, 1), "avg", exclusive=False)],
         {"ksize": [1, 1, 3, 3], "strides": [1, 1, 2, 2], "pads": [1, 1, 1, 1], "exclusive": False}, fmt=0),
    Case("SoftmaxV2", [A], [Out(np.float32, [2, 3, 4])],
         lambda x: [np.exp(x - x.max(1, keepdims=True)) / np.exp(x - x.max(1, keepdims=True)).sum(1, keepdims=True)],
         {"axes": [1]}),
    Case("LogSoftmaxV2", [A], [Out(np.float32, [2, 3, 4])],
         lambda x: [x - x.max(-1, keepdims=True) - np.log(np.exp(x - x.max(-1, keepdims=True)).sum(-1, keepdims=True))]),
    Case("ReduceSum", [A, i64(0, 2)], [Out(np.float32, [3])], lambda x, ax: [x.sum(axis=(0, 2))], rtol=1e-4),
    Case("ReduceSumD", [A], [Out(np.float32, [2, 1, 4])], lambda x: [x.sum(axis=1, keepdims=True)],
         {"axes": [1], "keep_dims": True}),
    Case("ReduceMean", [A, i32(-1)], [Out(np.float32, [2, 3])], lambda x, ax: [x.mean(axis=-1)]),
    Case("ReduceMeanD", [A], [Out(np.float32, [])], lambda x: [np.array(x.mean(), np.float32)], {"axes": []}),
    Case("ReduceMax", [A, i64(1)], [Out(np.float32, [2, 4])], lambda x, ax: [x.max(axis=1)]),
    Case("ReduceMaxD", [A], [Out(np.float32, [3, 4])], lambda x: [x.max(axis=0)], {"axes": [0]}),
    Case("ReduceMin", [A, i64(2)], [Out(np.float32, [2, 3])], lambda x, ax: [x.min(axis=2)]),
    Case("ReduceMinD", [A], [Out(np.float32, [2, 4])], lambda x: [x.min(axis=1)], {"axes": [1]}),
    Case("ReduceProd", [pos(2, 3), i64(1)], [Out(np.float32, [2])], lambda x, ax: [x.prod(axis=1)], rtol=1e-4),
    Case("ReduceProdD", [pos(2, 3)], [Out(np.float32, [3])], lambda x: [x.prod(axis=0)], {"axes": [0]}, rtol=1e-4),
    Case("ArgMaxV2", [A, i32(1)], [Out(np.int32, [2, 4])], lambda x, d: [x.argmax(axis=1).astype(np.int32)]),
    Case("ArgMaxD", [A], [Out(np.int64, [2, 3])], lambda x: [x.argmax(axis=2)], {"dimension": 2, "dtype": ("dtype", 9)}),
    Case("ArgMin", [A, i64(0)], [Out(np.int32, [3, 4])], lambda x, d: [x.argmin(axis=0).astype(np.int32)]),
    Case("ArgMinD", [A], [Out(np.int32, [2, 4])], lambda x: [x.argmin(axis=1).astype(np.int32)], {"dimension": 1}),
    Case("LayerNorm", [A, f32(4), f32(4)], [Out(np.float32, [2, 3, 4]), Out(np.float32, [2, 3, 1]),
                                             Out(np.float32, [2, 3, 1])],
         lambda x, g, b: layer_norm(x, g, b, 2, 0.25), {"begin_norm_axis": -1, "begin_params_axis": -1,
                                                         "epsilon": 0.25}, rtol=1e-4, atol=1e-5),
    Case("LayerNorm", [A, f32(3, 4), f32(3, 4)], [Out(np.float32, [2, 3, 4]), Out(np.float32, [2, 1, 1]),
                                                 Out(np.float32, [2, 1, 1])],
         lambda x, g, b: layer_norm(x, g, b, 1, 1e-7), {"begin_norm_axis": 1, "begin_params_axis": 1},
         rtol=1e-4, atol=1e-5),
    Case("Transpose", [A, i64(2, 0, 1)], [Out(np.float32, [4, 2, 3])], lambda x, p: [x.transpose(2, 0, 1)]),
    Case("TransposeD", [A], [Out(np.float32, [3, 2, 4])], lambda x: [x.transpose(1, 0, 2)], {"perm": [1, 0, 2]}),
    Case("Reshape", [A, i64(0, -1)], [Out(np.float32, [2, 12])], lambda x, s: [x.reshape(2, 12)]),
    Case("Concat", [i32(2), A, B], [Out(np.float32, [2, 3, 8])], lambda d, *x: [np.concatenate(x, axis=2)],
         {"N": 2}),
    Case("ConcatV2", [A, B, i64(0)], [Out(np.float32, [4, 3, 4])], lambda *x: [np.concatenate(x[:2], axis=0)],
         {"N": 2}),
    Case("ConcatD", [A, B, A], [Out(np.float32, [2, 9, 4])], lambda *x: [np.concatenate(x, axis=1)],
         {"concat_dim": 1, "N": 3}),
    Case("ConcatV2D", [A, B], [Out(np.float32, [2, 3, 8])], lambda *x: [np.concatenate(x, axis=-1)],
         {"concat_dim": -1, "N": 2}),
    Case("SplitD", [A], [Out(np.float32, [2, 3, 2]), Out(np.float32, [2, 3, 2])], lambda x: np.split(x, 2, axis=2),
         {"split_dim": 2, "num_split": 2}),
    Case("Split", [i32(1), A], [Out(np.float32, [2, 1, 4])] * 3, lambda d, x: np.split(x, 3, axis=1),
         {"num_split": 3}),
    Case("Gather", [M, np.array([[2, 0], [1, 1]], np.int32)], [Out(np.float32, [2, 2, 4])],
         lambda x, i: [np.take(x, i, axis=0)]),
    Case("Slice", [A, i64(0, 1, 1), i64(2, -1, 2)], [Out(np.float32, [2, 2, 2])],
         lambda x, o, s: [x[0:2, 1:, 1:3]]),
    Case("SliceD", [A], [Out(np.float32, [1, 2, 4])], lambda x: [x[1:2, 0:2, :]], {"offsets": [1, 0, 0],
                                                                                 "size": [1, 2, -1]}),
    Case("StridedSlice", [A, i32(0, 2, -1), i32(2, 0, 0), i32(1, -1, -2)], [Out(np.float32, [2, 2, 2])],
         lambda x, b, e, s: [x[0:2, 2:0:-1, -1::-2]], {"end_mask": 4}),
    Case("StridedSliceD", [A], [Out(np.float32, [3, 1, 2])], lambda x: [x[1, ..., None, 1:3]],
         {"begin": [1, 0, 0, 1], "end": [2, 0, 0, 3], "strides": [1, 1, 1, 1], "shrink_axis_mask": 1,
          "ellipsis_mask": 2, "new_axis_mask": 4}),
    Case("GatherV2", [A, np.array([2, 0], np.int32), i32(1)], [Out(np.float32, [2, 2, 4])],
         lambda x, i, a: [np.take(x, i, axis=1)]),
    Case("GatherV2D", [M, np.array([[3, 1], [0, 0]], np.int64)], [Out(np.float32, [3, 2, 2])],
         lambda x, i: [np.take(x, i, axis=1)], {"axis": 1}),
    Case("PadD", [M], [Out(np.float32, [5, 5])], lambda x: [np.pad(x, ((1, 1), (0, 1)))],
         {"paddings": [[1, 1], [0, 1]]}),
    Case("Pad", [M, Const(np.array([[0, 2], [1, 0]], np.int32))], [Out(np.float32, [5, 5])],
         lambda x, p: [np.pad(x, ((0, 2), (1, 0)))]),
    Case("Tile", [M, i64(2, 1)], [Out(np.float32, [6, 4])], lambda x, m: [np.tile(x, (2, 1))]),
    Case("TileD", [M], [Out(np.float32, [3, 8])], lambda x: [np.tile(x, (1, 2))], {"multiples": [1, 2]}),
    Case("BroadcastTo", [U, i64(2, 3)], [Out(np.float32, [2, 3])], lambda x, s: [np.broadcast_to(x, (2, 3))]),
    Case("BroadcastToD", [U], [Out(np.float32, [4, 3])], lambda x: [np.broadcast_to(x, (4, 3))], {"shape": [4, 3]}),
    Case("Fill", [i64(2, 3), np.array([1.5], np.float32)], [Out(np.float32, [2, 3])],
         lambda d, v: [np.full((2, 3), 1.5, np.float32)]),
    Case("TransData", [f32(2, 20, 3, 2)], [Out(np.float32, [2, 2, 3, 2, 16], 3)], lambda x: [nc1hwc0(x)],
         {"src_format": "NCHW", "dst_format": "NC1HWC0"}, fmt=0),
    Case("TransData", [f32(1, 2, 3, 4)], [Out(np.float32, [1, 3, 4, 2], 1)], lambda x: [x.transpose(0, 2, 3, 1)],
         {"src_format": "NCHW", "dst_format": "NHWC"}, fmt=0),
]
