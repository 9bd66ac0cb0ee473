"""Data-movement and shape ops: Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split, Slice,
Gather, GatherElements, Expand, Tile, Pad, Resize, Shape, Size, ConstantOfShape, Range, Constant.

Besides types, Shape/Gather/Unsqueeze/Squeeze/Concat/Slice propagate the (partially symbolic) contents of the
1-D int64 tensors that exporters build shapes with, so that `Shape -> Gather -> Unsqueeze -> Concat ->
Reshape` gives the Reshape an exact output shape, with symbols such as the batch dim carried through.
"""

from __future__ import annotations

import math

import numpy as np

from ..ir import Dim, DType, Shape
from ._common import InferContext, TensorType, broadcast, dim_prod, infer_minus_one, norm_axis, sliced_len
from ._registry import register

RESIZE_MODES = ("nearest", "linear", "cubic")


@register("Reshape")
def _reshape(ctx: InferContext) -> list[TensorType]:
    x, target = ctx.shape(0), ctx.known_dims(1)
    if target is None:
        length = (ctx.shape(1) or (None,))[0]
        return [(ctx.dtype(0), None if not isinstance(length, int) else
                 tuple(ctx.fresh(0, i) for i in range(length)))]
    allowzero = ctx.int_attr("allowzero", 0)
    out: list[Dim] = []
    for i, d in enumerate(target):
        if d == 0 and not allowzero:
            if x is None or i >= len(x):
                ctx.fail(f"shape {target}: 0 copies dim {i} of an input of unknown or smaller rank")
            out.append(x[i])  # type: ignore[index]
        else:
            out.append(d)
    if out.count(-1) > 1:
        ctx.fail(f"shape {target} has more than one -1")
    if -1 in out:
        index = out.index(-1)
        size = None if x is None else infer_minus_one(x, [d for d in out if d != -1])
        if size == -2:
            ctx.fail(f"cannot reshape {x} to {target}: the sizes do not divide")
        out[index] = ctx.fresh(0, index) if size is None else size
    _check_same_size(ctx, x, out)
    return [(ctx.dtype(0), tuple(out))]


def _check_same_size(ctx: InferContext, x: Shape | None, out: list[Dim]) -> None:
    if x is not None and all(isinstance(d, int) for d in (*x, *out)) and int(np.prod(x, dtype=np.int64)) != int(np.prod(out, dtype=np.int64)):  # type: ignore[arg-type]
        ctx.fail(f"cannot reshape {tuple(x)} to {tuple(out)}: element counts differ")


@register("Flatten")
def _flatten(ctx: InferContext) -> list[TensorType]:
    x = ctx.shape(0)
    if x is None:
        return [(ctx.dtype(0), None)]
    axis = ctx.int_attr("axis", 1)
    axis = axis + len(x) if axis < 0 else axis
    if not 0 <= axis <= len(x):
        ctx.fail(f"axis {ctx.int_attr('axis', 1)} is out of range for rank {len(x)}")
    outer, inner = dim_prod(x[:axis]), dim_prod(x[axis:])
    return [(ctx.dtype(0), (ctx.fresh(0, 0) if outer is None else outer, ctx.fresh(0, 1) if inner is None else inner))]


@register("Squeeze")
def _squeeze(ctx: InferContext) -> list[TensorType]:
    x = ctx.shape(0)
    if x is None:
        return [(ctx.dtype(0), None)]
    axes_attr = ctx.ints_attr("axes")
    if axes_attr is None:
        if any(isinstance(d, str) for d in x):
            return [(ctx.dtype(0), None)]
        axes = {i for i, d in enumerate(x) if d == 1}
    else:
        axes = {norm_axis(ctx, a, len(x), "axes value") for a in axes_attr}
    for a in axes:
        if isinstance(x[a], int) and x[a] != 1:
            ctx.fail(f"cannot squeeze axis {a} of size {x[a]} (shape {x})")
    _propagate_same(ctx)
    return [(ctx.dtype(0), tuple(d for i, d in enumerate(x) if i not in axes))]


@register("Unsqueeze")
def _unsqueeze(ctx: InferContext) -> list[TensorType]:
    x, axes_attr = ctx.shape(0), ctx.ints_attr("axes")
    if axes_attr is None:
        ctx.fail("attribute 'axes' is required")
    if x is None:
        return [(ctx.dtype(0), None)]
    rank = len(x) + len(axes_attr)
    axes = sorted({norm_axis(ctx, a, rank, "axes value") for a in axes_attr})
    if len(axes) != len(axes_attr):
        ctx.fail(f"axes {axes_attr} has duplicates")
    rest = iter(x)
    _propagate_same(ctx)
    return [(ctx.dtype(0), tuple(1 if i in axes else next(rest) for i in range(rank)))]


def _propagate_same(ctx: InferContext) -> None:
    dims = ctx.known_dims(0)
    if dims is not None:
        ctx.set_known(0, dims)


@register("Transpose")
def _transpose(ctx: InferContext) -> list[TensorType]:
    x = ctx.shape(0)
    if x is None:
        return [(ctx.dtype(0), None)]
    perm = ctx.ints_attr("perm") or list(range(len(x)))[::-1]
    if sorted(perm) != list(range(len(x))):
        ctx.fail(f"perm {perm} is not a permutation of the {len(x)} axes")
    return [(ctx.dtype(0), tuple(x[p] for p in perm))]


@register("Concat")
def _concat(ctx: InferContext) -> list[TensorType]:
    dtypes = {ctx.dtype(i) for i in range(len(ctx.node.inputs))} - {None}
    if len(dtypes) > 1:
        ctx.fail(f"inputs have different dtypes {sorted(d.name for d in dtypes)}")  # type: ignore[union-attr]
    shapes = [ctx.shape(i) for i in range(len(ctx.node.inputs))]
    if any(s is None for s in shapes):
        return [(ctx.dtype(0), None)]
    rank = len(shapes[0])  # type: ignore[arg-type]
    if any(len(s) != rank for s in shapes):  # type: ignore[arg-type]
        ctx.fail(f"inputs have different ranks: {shapes}")
    axis = norm_axis(ctx, ctx.int_attr("axis", 0), rank)
    sizes = [s[axis] for s in shapes]  # type: ignore[index]
    total: Dim = sum(sizes) if all(isinstance(d, int) for d in sizes) else ctx.fresh(0, axis)  # type: ignore[arg-type]
    out = list(shapes[0])  # type: ignore[arg-type]
    out[axis] = total
    for i in range(rank):
        if i != axis:
            static = {s[i] for s in shapes if isinstance(s[i], int)}  # type: ignore[index]
            if len(static) > 1:
                ctx.fail(f"inputs differ on axis {i} (not the concat axis): {shapes}")
            out[i] = static.pop() if static else out[i]
    parts = [ctx.known_dims(i) for i in range(len(ctx.node.inputs))]
    if rank == 1 and all(p is not None for p in parts):
        ctx.set_known(0, [d for p in parts for d in p])  # type: ignore[union-attr]
    return [(ctx.dtype(0), tuple(out))]


@register("Split")
def _split(ctx: InferContext) -> list[TensorType]:
    x, count = ctx.shape(0), len(ctx.node.outputs)
    if x is None:
        return [(ctx.dtype(0), None)] * count
    axis = norm_axis(ctx, ctx.int_attr("axis", 0), len(x))
    sizes: list[Dim] | None = ctx.ints_attr("split")
    if sizes is None and isinstance(x[axis], int):
        chunk = -(-x[axis] // count)
        sizes = [min(chunk, x[axis] - i * chunk) for i in range(count)]
    if sizes is not None and len(sizes) != count:
        ctx.fail(f"split {sizes} has {len(sizes)} parts but the node has {count} outputs")
    if sizes is not None and isinstance(x[axis], int) and sum(sizes) != x[axis]:  # type: ignore[arg-type]
        ctx.fail(f"split {sizes} does not add up to {x[axis]} (axis {axis} of {x})")
    out = []
    for i in range(count):
        shape = list(x)
        shape[axis] = ctx.fresh(i, axis) if sizes is None else sizes[i]
        out.append((ctx.dtype(0), tuple(shape)))
    return out


@register("Slice")
def _slice(ctx: InferContext) -> list[TensorType]:
    x = ctx.shape(0)
    if x is None:
        return [(ctx.dtype(0), None)]
    starts, ends = ctx.static_ints(1), ctx.static_ints(2)
    axes = ctx.static_ints(3) if ctx.input(3) is not None else list(range(len(starts or ())))
    steps = ctx.static_ints(4) if ctx.input(4) is not None else [1] * len(starts or ())
    if starts is None or ends is None or axes is None or steps is None:
        return [(ctx.dtype(0), tuple(ctx.fresh(0, i) for i in range(len(x))))]
    if not len(starts) == len(ends) == len(axes) == len(steps):
        ctx.fail(f"starts {starts}, ends {ends}, axes {axes} and steps {steps} differ in length")
    out = list(x)
    for start, end, given, step in zip(starts, ends, axes, steps):
        axis = norm_axis(ctx, given, len(x), "axes value")
        if step == 0:
            ctx.fail("steps must not be 0")
        # (a -1 dim is ATC's "dynamic": as unknown as a symbolic one; the build refuses it later, naming it)
        known = isinstance(x[axis], int) and x[axis] >= 0
        out[axis] = sliced_len(x[axis], start, end, step) if known else ctx.fresh(0, axis)
    data = ctx.known_dims(0)
    if data is not None and len(x) == 1 and len(starts) == 1:
        ctx.set_known(0, data[slice(starts[0], ends[0], steps[0])])
    return [(ctx.dtype(0), tuple(out))]


@register("Gather")
def _gather(ctx: InferContext) -> list[TensorType]:
    x, indices = ctx.shape(0), ctx.shape(1)
    if ctx.dtype(1) not in (None, DType.INT32, DType.INT64):
        ctx.fail(f"indices must be int32 or int64, got {ctx.dtype(1).name}")  # type: ignore[union-attr]
    if x is None or indices is None:
        return [(ctx.dtype(0), None)]
    axis = norm_axis(ctx, ctx.int_attr("axis", 0), len(x))
    data, picks = ctx.known_dims(0), ctx.static_ints(1)
    size = x[axis]
    if picks is not None and isinstance(size, int):
        wrong = [i for i in picks if not -size <= i < size]
        if wrong:
            ctx.fail(f"indices {wrong[:8]} are out of range for axis {axis} of size {size} (valid: [{-size}, {size - 1}])")
    if data is not None and picks is not None and len(x) == 1:
        ctx.set_known(0, [data[i] for i in picks])
    return [(ctx.dtype(0), (*x[:axis], *indices, *x[axis + 1:]))]


@register("GatherElements")
def _gather_elements(ctx: InferContext) -> list[TensorType]:
    x, indices = ctx.shape(0), ctx.shape(1)
    if x is not None and indices is not None:
        if len(x) != len(indices):
            ctx.fail(f"data {x} and indices {indices} must have the same rank")
        norm_axis(ctx, ctx.int_attr("axis", 0), len(x))
    return [(ctx.dtype(0), indices)]


@register("Expand")
def _expand(ctx: InferContext) -> list[TensorType]:
    target = ctx.known_dims(1)
    if target is None:
        length = (ctx.shape(1) or (None,))[0]
        x = ctx.shape(0)
        if not isinstance(length, int) or x is None:
            return [(ctx.dtype(0), None)]
        return [(ctx.dtype(0), tuple(ctx.fresh(0, i) for i in range(max(length, len(x)))))]
    return [(ctx.dtype(0), broadcast(ctx, [ctx.shape(0), tuple(target)]))]


@register("Tile")
def _tile(ctx: InferContext) -> list[TensorType]:
    x, repeats = ctx.shape(0), ctx.static_ints(1)
    if x is None:
        return [(ctx.dtype(0), None)]
    if repeats is None:
        return [(ctx.dtype(0), tuple(ctx.fresh(0, i) for i in range(len(x))))]
    if len(repeats) != len(x):
        ctx.fail(f"repeats {repeats} must have one value per axis of {x}")
    return [(ctx.dtype(0), tuple(d * r if isinstance(d, int) else (d if r == 1 else ctx.fresh(0, i))
                                 for i, (d, r) in enumerate(zip(x, repeats))))]


@register("Pad")
def _pad(ctx: InferContext) -> list[TensorType]:
    x, pads = ctx.shape(0), ctx.ints_attr("pads")
    mode = ctx.attr("mode", "constant")
    if mode not in ("constant", "reflect", "edge", "wrap"):
        ctx.fail(f"mode={mode!r} is not supported; supported: constant, reflect, edge, wrap")
    if pads is None:
        ctx.fail("attribute 'pads' is required in the IR (the frontend converts the input form)")
    if x is None:
        return [(ctx.dtype(0), None)]
    if len(pads) != 2 * len(x):
        ctx.fail(f"pads {pads} must have {2 * len(x)} values for rank {len(x)}")
    out = [d + pads[i] + pads[i + len(x)] if isinstance(d, int) else
           (d if pads[i] == pads[i + len(x)] == 0 else ctx.fresh(0, i)) for i, d in enumerate(x)]
    if any(isinstance(d, int) and d < 0 for d in out):
        ctx.fail(f"pads {pads} make a negative size from {x}")
    return [(ctx.dtype(0), tuple(out))]


@register("Resize")
def _resize(ctx: InferContext) -> list[TensorType]:
    mode = ctx.attr("mode", "nearest")
    if mode not in RESIZE_MODES:
        ctx.fail(f"mode={mode!r} is not supported; supported: {', '.join(RESIZE_MODES)}")
    if mode != "nearest" and ctx.dtype(0) not in (None, DType.FLOAT, DType.FLOAT16):
        ctx.fail(f"mode={mode!r} needs FLOAT or FLOAT16 input, got {ctx.dtype(0).name}")  # type: ignore[union-attr]
    x = ctx.shape(0)
    if x is None:
        return [(ctx.dtype(0), None)]
    sizes = ctx.static_ints(3) if ctx.input(3) is not None else None
    scales = ctx.const(2)
    if sizes is not None:
        out: list[Dim] = list(sizes)
    elif scales is not None and scales.size == len(x):
        if not all(math.isfinite(s) and s > 0 for s in scales.tolist()):
            ctx.fail(f"scales {scales.tolist()} must be finite and greater than 0")
        out = [math.floor(d * float(s)) if isinstance(d, int) else (d if s == 1 else ctx.fresh(0, i))
               for i, (d, s) in enumerate(zip(x, scales.tolist()))]
    else:
        out = [ctx.fresh(0, i) for i in range(len(x))]
    if len(out) != len(x):
        ctx.fail(f"sizes/scales must have one value per axis of {x}")
    return [(ctx.dtype(0), tuple(out))]


@register("Shape")
def _shape(ctx: InferContext) -> list[TensorType]:
    x = ctx.shape(0)
    if x is None:
        return [(DType.INT64, None)]
    start, end = ctx.int_attr("start", 0), ctx.attr("end")
    dims = list(x)[slice(start, None if end is None else int(end))]  # type: ignore[call-overload]
    ctx.set_known(0, dims)
    return [(DType.INT64, (len(dims),))]


@register("Size")
def _size(ctx: InferContext) -> list[TensorType]:
    return [(DType.INT64, ())]


@register("ConstantOfShape")
def _constant_of_shape(ctx: InferContext) -> list[TensorType]:
    value = ctx.attr("value")
    dtype = DType.FLOAT if value is None else DType.of_numpy(np.asarray(value).dtype)
    target = ctx.known_dims(0)
    if target is None:
        length = (ctx.shape(0) or (None,))[0]
        return [(dtype, None if not isinstance(length, int) else tuple(ctx.fresh(0, i) for i in range(length)))]
    return [(dtype, tuple(target))]


@register("Range")
def _range(ctx: InferContext) -> list[TensorType]:
    bounds = [ctx.const(i) for i in range(3)]
    if any(b is None for b in bounds):
        return [(ctx.dtype(0), (ctx.fresh(0, 0),))]
    if any(b.size != 1 for b in bounds):  # type: ignore[union-attr]
        ctx.fail(f"start, limit and delta must be scalars, got shapes {[list(b.shape) for b in bounds]}")  # type: ignore[union-attr]
    start, limit, delta = (float(b.reshape(-1)[0]) for b in bounds)  # type: ignore[union-attr]
    if not all(math.isfinite(v) for v in (start, limit, delta)):
        ctx.fail(f"start, limit and delta must be finite, got {start}, {limit}, {delta}")
    if delta == 0:
        ctx.fail("delta must not be 0")
    return [(ctx.dtype(0), (max(math.ceil((limit - start) / delta), 0),))]


@register("Constant")
def _constant(ctx: InferContext) -> list[TensorType]:
    value = np.asarray(ctx.attr("value"))
    return [(DType.of_numpy(value.dtype), tuple(value.shape))]

