"""Reductions: ReduceMean/Sum/Max/Min/Prod/L2/L1/SumSquare/LogSumExp (IR form: attribute `axes`, absent =
every axis, and `keepdims`), ArgMax/ArgMin (int64 indices) and TopK (values and int64 indices along `axis`,
K from the second input; an unknown K gives a symbolic size) and Det (the determinant of each matrix of the
last two dims)."""

from __future__ import annotations

from ..ir import Dim, DType
from ._common import InferContext, TensorType, norm_axis
from ._registry import register

REDUCE_OPS = ("ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2", "ReduceL1",
              "ReduceSumSquare", "ReduceLogSumExp")


@register(*REDUCE_OPS)
def _reduce(ctx: InferContext) -> list[TensorType]:
    x = ctx.shape(0)
    if len(ctx.node.inputs) > 1 and ctx.input(1) is not None:
        ctx.fail("axes must be the attribute 'axes' in the IR (the frontend converts the input form)")
    if x is None:
        return [(ctx.dtype(0), None)]
    axes_attr = ctx.ints_attr("axes")
    axes = {norm_axis(ctx, a, len(x), "axes value") for a in axes_attr} if axes_attr else set(range(len(x)))
    keep = bool(ctx.int_attr("keepdims", 1))
    shape = tuple(1 if i in axes else d for i, d in enumerate(x) if keep or i not in axes)
    return [(ctx.dtype(0), shape)]


@register("ArgMax", "ArgMin")
def _arg(ctx: InferContext) -> list[TensorType]:
    x = ctx.shape(0)
    if x is None:
        return [(DType.INT64, None)]
    axis = norm_axis(ctx, ctx.int_attr("axis", 0), len(x))
    keep = bool(ctx.int_attr("keepdims", 1))
    shape = tuple(1 if i == axis else d for i, d in enumerate(x) if keep or i != axis)
    return [(DType.INT64, shape)]


@register("TopK")
def _topk(ctx: InferContext) -> list[TensorType]:
    x = ctx.shape(0)
    if x is None:
        return [(ctx.dtype(0), None), (DType.INT64, None)]
    axis = norm_axis(ctx, ctx.int_attr("axis", -1), len(x))
    k = ctx.static_ints(1)
    if k is not None and len(k) != 1:  # ONNX: K is a 1-D tensor of one value
        ctx.fail(f"K must hold one value, not {len(k)}")
    size: Dim = ctx.fresh(0, axis) if k is None else k[0]
    if isinstance(size, int) and isinstance(x[axis], int) and not 0 <= size <= x[axis]:
        ctx.fail(f"K={size} is out of range for axis {axis} of size {x[axis]}")
    shape = tuple(size if i == axis else d for i, d in enumerate(x))
    return [(ctx.dtype(0), shape), (DType.INT64, shape)]


@register("Det", since=11)
def _det(ctx: InferContext) -> list[TensorType]:
    x = ctx.shape(0)
    if ctx.dtype(0) not in (None, DType.FLOAT, DType.FLOAT16):
        ctx.fail(f"dtype {ctx.dtype(0).name} is not supported; supported: FLOAT, FLOAT16")  # type: ignore[union-attr]
    if x is None:
        return [(ctx.dtype(0), None)]
    if len(x) < 2 or (isinstance(x[-1], int) and isinstance(x[-2], int) and x[-1] != x[-2]):
        ctx.fail(f"the input must be square matrices [..., M, M], got shape {list(x)}")
    return [(ctx.dtype(0), tuple(x[:-2]))]
