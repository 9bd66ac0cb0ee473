"""Index ops: GatherND, ScatterND, ScatterElements, OneHot, Trilu, CumSum, ReverseSequence, and the ops whose
output shape depends on the values of their input (NonZero, Unique: `value_shaped`, typed exactly only when
that input is a constant, which constant folding then evaluates).

IR form: as ONNX writes them (opset 11-21), every defaulted attribute explicit (onnx_opsets.DEFAULTS). OneHot's
depth must be known at compile time (it sizes the output); CumSum's axis and Trilu's k may be computed at run
time (the output shape does not depend on them).
"""

from __future__ import annotations

import numpy as np

from .. import host_kernels
from ..ir import Dim, DType
from ._common import InferContext, TensorType, norm_axis
from ._registry import register

SCATTER_REDUCTIONS = ("none", "add", "mul", "max", "min")
_INDEX_DTYPES = (None, DType.INT32, DType.INT64)


def _check_indices(ctx: InferContext, index: int, name: str = "indices") -> None:
    if ctx.dtype(index) not in _INDEX_DTYPES:
        ctx.fail(f"{name} must be int32 or int64, got {ctx.dtype(index).name}")  # type: ignore[union-attr]


@register("GatherND", since=12)
def _gather_nd(ctx: InferContext) -> list[TensorType]:
    _check_indices(ctx, 1)
    data, indices = ctx.shape(0), ctx.shape(1)
    if data is None or indices is None:
        return [(ctx.dtype(0), None)]
    batch = ctx.int_attr("batch_dims", 0)
    depth = indices[-1] if indices else None
    if not indices or not isinstance(depth, int):
        ctx.fail(f"the last dim of indices {indices} must be static")
    if not 0 <= batch < min(len(data), len(indices)) or not 1 <= depth <= len(data) - batch:  # type: ignore[operator]
        ctx.fail(f"batch_dims={batch} and indices {indices} do not fit data {data}")
    for axis in range(batch):
        if isinstance(data[axis], int) and isinstance(indices[axis], int) and data[axis] != indices[axis]:
            ctx.fail(f"batch dim {axis}: data {data} and indices {indices} differ")
    return [(ctx.dtype(0), (*indices[:-1], *data[batch + depth :]))]  # type: ignore[operator]


@register("ScatterND", since=11)
def _scatter_nd(ctx: InferContext) -> list[TensorType]:
    _check_indices(ctx, 1)
    _check_reduction(ctx)
    data, indices, updates = ctx.shape(0), ctx.shape(1), ctx.shape(2)
    if data is not None and indices is not None and updates is not None:
        depth = indices[-1] if indices else None
        if not isinstance(depth, int) or not 1 <= depth <= len(data):
            ctx.fail(f"the last dim of indices {indices} must be static and at most the rank of data {data}")
        want = (*indices[:-1], *data[depth:])  # type: ignore[misc]
        if len(want) != len(updates) or any(
            isinstance(a, int) and isinstance(b, int) and a != b for a, b in zip(want, updates)
        ):
            ctx.fail(f"updates {updates} must have shape {want} (indices {indices}, data {data})")
    return [ctx.type(0)]


@register("ScatterElements", since=11)
def _scatter_elements(ctx: InferContext) -> list[TensorType]:
    _check_indices(ctx, 1)
    _check_reduction(ctx)
    data, indices, updates = ctx.shape(0), ctx.shape(1), ctx.shape(2)
    if data is not None and indices is not None:
        if len(data) != len(indices) or (updates is not None and tuple(updates) != tuple(indices)):
            ctx.fail(
                f"data {data}, indices {indices} and updates {updates}: indices and updates must have the "
                "shape, of the rank of data"
            )
        norm_axis(ctx, ctx.int_attr("axis", 0), len(data))
    return [ctx.type(0)]


def _check_reduction(ctx: InferContext) -> None:
    """The scatters' reduction, and updates of data's dtype."""
    if None not in (ctx.dtype(0), ctx.dtype(2)) and ctx.dtype(0) != ctx.dtype(2):
        ctx.fail(f"updates have dtype {ctx.dtype(2).name}, data {ctx.dtype(0).name}: they must match")  # type: ignore[union-attr]
    if ctx.attr("reduction", "none") not in SCATTER_REDUCTIONS:
        ctx.fail(f"reduction={ctx.attr('reduction')!r} is not supported; supported: {', '.join(SCATTER_REDUCTIONS)}")


@register("OneHot", since=11)
def _one_hot(ctx: InferContext) -> list[TensorType]:
    indices, values = ctx.shape(0), ctx.shape(2)
    if values is not None and (len(values) != 1 or (isinstance(values[0], int) and values[0] != 2)):
        ctx.fail(f"values must hold 2 elements [off, on], got shape {values}")
    if indices is None:
        return [(ctx.dtype(2), None)]
    axis = norm_axis(ctx, ctx.int_attr("axis", -1), len(indices) + 1)
    depth = _depth(ctx)
    return [(ctx.dtype(2), (*indices[:axis], depth, *indices[axis:]))]


def _depth(ctx: InferContext) -> Dim:
    data = ctx.const(1)
    if data is not None:
        if data.size != 1:
            ctx.fail(f"depth must be a scalar, got shape {list(data.shape)}")
        depth = int(np.asarray(data).reshape(-1)[0])  # ONNX: a float depth is truncated
        if depth < 1:
            ctx.fail(f"depth {depth} must be positive")
        return depth
    known = ctx.static_ints(1)
    return known[0] if known and len(known) == 1 else ctx.fresh(0, 0)


@register("Trilu", since=14)
def _trilu(ctx: InferContext) -> list[TensorType]:
    x = ctx.shape(0)
    if x is not None and len(x) < 2:
        ctx.fail(f"input rank {len(x)} must be >= 2")
    if ctx.input(1) is not None and ctx.dtype(1) not in (None, DType.INT64):
        ctx.fail(f"k must be int64, got {ctx.dtype(1).name}")  # type: ignore[union-attr]
    k = ctx.shape(1) if ctx.input(1) is not None else None
    if k is not None and all(isinstance(d, int) for d in k) and int(np.prod(k)) != 1:  # type: ignore[arg-type]
        ctx.fail(f"k must be a scalar, got shape {list(k)}")
    return [ctx.type(0)]


@register("CumSum", since=11)
def _cumsum(ctx: InferContext) -> list[TensorType]:
    _check_indices(ctx, 1, "axis")
    if ctx.dtype(0) == DType.BOOL:
        ctx.fail("x is bool; CumSum takes numeric tensors")
    given = ctx.shape(1)
    if given is not None and all(isinstance(d, int) for d in given) and int(np.prod(given)) != 1:  # type: ignore[arg-type]
        ctx.fail(f"axis must be a scalar, got shape {list(given)}")
    axis, x = ctx.static_ints(1), ctx.shape(0)
    if axis is not None and x is not None:
        if len(axis) != 1:
            ctx.fail(f"axis must be a scalar, got {axis}")
        norm_axis(ctx, axis[0], max(len(x), 1))
    return [ctx.type(0)]


@register("ReverseSequence", since=10)
def _reverse_sequence(ctx: InferContext) -> list[TensorType]:
    x, lens = ctx.shape(0), ctx.shape(1)
    if ctx.dtype(1) not in (None, DType.INT64):
        ctx.fail(f"sequence_lens must be int64, got {ctx.dtype(1).name}")  # type: ignore[union-attr]
    if x is not None:
        batch = norm_axis(ctx, ctx.int_attr("batch_axis", 1), len(x), "batch_axis")
        time = norm_axis(ctx, ctx.int_attr("time_axis", 0), len(x), "time_axis")
        if len(x) < 2 or {batch, time} != {0, 1}:
            ctx.fail(f"batch_axis {batch} and time_axis {time} must be 0 and 1 (in some order) of a rank >= 2 input")
        wrong = lens is not None and (
            len(lens) != 1 or (isinstance(lens[0], int) and isinstance(x[batch], int) and lens[0] != x[batch])
        )
        if wrong:
            ctx.fail(f"sequence_lens of shape {lens} must be [{x[batch]}] (one length per batch entry)")
    return [ctx.type(0)]


@register("NonZero", since=9, value_shaped=True)
def _nonzero(ctx: InferContext) -> list[TensorType]:
    x, data = ctx.shape(0), ctx.const(0)
    rank: Dim = len(x) if x is not None else ctx.fresh(0, 0)
    count = int(np.count_nonzero(data)) if data is not None else ctx.fresh(0, 1)
    return [(DType.INT64, (rank, count))]


@register("Unique", since=11, value_shaped=True)
def _unique(ctx: InferContext) -> list[TensorType]:
    x, data = ctx.shape(0), ctx.const(0)
    axis = ctx.attr("axis")
    if x is not None and axis is not None:
        norm_axis(ctx, int(axis), len(x))  # type: ignore[call-overload]
    if data is None:
        values: tuple[Dim, ...] | None = None
        if x is not None:
            values = (
                (ctx.fresh(0, 0),)
                if axis is None
                else tuple(ctx.fresh(0, i) if i == int(axis) % len(x) else d for i, d in enumerate(x))
            )  # type: ignore[call-overload]
        return [(ctx.dtype(0), values)] + [(DType.INT64, (ctx.fresh(k, 0),)) for k in range(1, 4)]
    results = host_kernels.run("Unique", [data], ctx.node.attrs, 4)  # the sizes come from the values
    return [(DType.of_numpy(r.dtype), tuple(r.shape)) for r in results]
