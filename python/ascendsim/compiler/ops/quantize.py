"""Linear quantization: QuantizeLinear (float -> 8/16-bit integers: y = saturate(round_half_even(x / scale) +
zero_point)) and DequantizeLinear (integers -> float: y = (x - zero_point) * scale), with a scale (and zero point)
per tensor (a scalar), per axis (1-D, one value per entry of `axis`) or per block (opset 21: the rank of x, each
value covering `block_size` entries along `axis`). The float8 and 4-bit types are not supported (no such dtypes
here). QuantizeLinear's output dtype is the zero point's, else opset 21's `output_dtype`, else uint8.
"""

from __future__ import annotations

from ..ir import DType, Shape
from . import register
from ._common import InferContext, TensorType, norm_axis

QUANTIZED = (DType.UINT8, DType.INT8, DType.UINT16, DType.INT16)
_SCALES = (DType.FLOAT, DType.FLOAT16)


@register("QuantizeLinear", since=13)
def _quantize(ctx: InferContext) -> list[TensorType]:
    if ctx.dtype(0) not in (None, *_SCALES, DType.INT32):
        ctx.fail(f"x has dtype {ctx.dtype(0).name}; supported: FLOAT, FLOAT16, INT32")  # type: ignore[union-attr]
    out = ctx.dtype(2) if ctx.input(2) is not None else ctx.attr("output_dtype") or DType.UINT8
    if not isinstance(out, DType) or out not in QUANTIZED:
        ctx.fail(
            f"the output dtype {getattr(out, 'name', out)} is not supported; supported: "
            + ", ".join(d.name for d in QUANTIZED)
        )
    check_scales(ctx)
    return [(out, ctx.shape(0))]


@register("DequantizeLinear", since=13)
def _dequantize(ctx: InferContext) -> list[TensorType]:
    if ctx.dtype(0) not in (None, *QUANTIZED, DType.INT32):
        ctx.fail(f"x has dtype {ctx.dtype(0).name}; supported: " + ", ".join(d.name for d in (*QUANTIZED, DType.INT32)))  # type: ignore[union-attr]
    if ctx.input(2) is not None and ctx.dtype(2) not in (None, ctx.dtype(0)):
        ctx.fail(f"x_zero_point has dtype {ctx.dtype(2).name}, x {ctx.dtype(0).name}: they must match")  # type: ignore[union-attr]
    check_scales(ctx)
    return [(ctx.dtype(1), ctx.shape(0))]


def check_scales(ctx: InferContext) -> None:
    """Scale and zero point: per tensor, per axis or per block, as the node's attributes say."""
    if ctx.dtype(1) not in (None, *_SCALES):
        ctx.fail(f"the scale has dtype {ctx.dtype(1).name}; supported: FLOAT, FLOAT16")  # type: ignore[union-attr]
    x, scale = ctx.shape(0), ctx.shape(1)
    if x is None or scale is None:
        return
    zero = ctx.shape(2) if ctx.input(2) is not None else None
    if zero is not None and tuple(zero) != tuple(scale):
        ctx.fail(f"the zero point's shape {zero} differs from the scale's {scale}")
    block = ctx.int_attr("block_size", 0)
    if len(scale) == 0 or (len(scale) == 1 and scale[0] == 1 and not block):
        return
    axis = norm_axis(ctx, ctx.int_attr("axis", 1), len(x))
    if block:
        _check_blocked(ctx, x, scale, axis, block)
    elif len(scale) != 1 or (isinstance(scale[0], int) and isinstance(x[axis], int) and scale[0] != x[axis]):
        ctx.fail(f"a per-axis scale of shape {scale} must be [{x[axis]}] (axis {axis} of {x})")


def _check_blocked(ctx: InferContext, x: Shape, scale: Shape, axis: int, block: int) -> None:
    if block < 0 or len(scale) != len(x):
        ctx.fail(f"block_size={block} needs a scale of the rank of x {x}, got {scale}")
    for i, (d, s) in enumerate(zip(x, scale)):
        if not isinstance(d, int) or not isinstance(s, int):
            continue
        want = -(-d // block) if i == axis else d
        if s != want:
            ctx.fail(
                f"a blocked scale of shape {scale} must be {[*x[:axis], want, *x[axis + 1 :]]} "
                f"(block_size {block} on axis {axis} of {x})"
            )
