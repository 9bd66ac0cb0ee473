"""Linear quantization: QuantizeLinear (float -> 8/16-bit integers: y = saturate(round_half_even(x / scale) +
zero_point)) and DequantizeLinear (integers -> float: y = (x - zero_point) * scale), with a scale (and zero point)
per tensor (a scalar), per axis (1-D, one value per entry of `axis`) or per block (opset 21: the rank of x, each
value covering `block_size` entries along `axis`). The float8 and 4-bit types are not supported (no such dtypes
here). QuantizeLinear's output dtype is the zero point's, else opset 21's `output_dtype`, else uint8.
The integer products: MatMulInteger / ConvInteger (int32 results of 8-bit operands minus their zero points) and
QLinearMatMul / QLinearConv (the same products requantized to the output's scale and zero point).
"""

from __future__ import annotations

from ..ir import DType, Shape
from ._common import InferContext, TensorType, norm_axis
from ._registry import register
from .nn import conv_shape, matmul_shape

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


INT8 = (DType.INT8, DType.UINT8)


def _check_int8(ctx: InferContext, *indices: int) -> None:
    for index in indices:
        value = ctx.input(index)
        if value is not None and value.dtype is not None and value.dtype not in INT8:
            ctx.fail(f"input {index} ({value.name!r}) has dtype {value.dtype.name}; supported: INT8, UINT8")


@register("MatMulInteger", "ConvInteger", since=10)
def _integer_product(ctx: InferContext) -> list[TensorType]:
    """int32 = (a - a_zero_point) x (b - b_zero_point), a MatMul or a Conv."""
    _check_int8(ctx, 0, 1, 2, 3)
    shape = (matmul_shape if ctx.node.op_type == "MatMulInteger" else conv_shape)(ctx, ctx.shape(0), ctx.shape(1))
    return [(DType.INT32, shape)]


@register("QLinearMatMul", "QLinearConv", since=10)
def _qlinear_product(ctx: InferContext) -> list[TensorType]:
    """The quantized product requantized: inputs (x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale,
    y_zero_point[, int32 bias for QLinearConv]); the output has y_zero_point's dtype."""
    _check_int8(ctx, 0, 2, 3, 5, 7)
    for index in (1, 4, 6):
        if ctx.dtype(index) not in (None, *_SCALES):
            ctx.fail(f"input {index} (a scale) has dtype {ctx.dtype(index).name}; supported: FLOAT, FLOAT16")  # type: ignore[union-attr]
    if ctx.input(8) is not None and ctx.dtype(8) not in (None, DType.INT32):
        ctx.fail(f"the bias has dtype {ctx.dtype(8).name}; supported: INT32")  # type: ignore[union-attr]
    shape = (matmul_shape if ctx.node.op_type == "QLinearMatMul" else conv_shape)(ctx, ctx.shape(0), ctx.shape(3))
    return [(ctx.dtype(7), shape)]
