"""ascendsim's NC1HWC0 ops, put in by the layout pass (passes/layout_5hd.py): TransData between a 4-D NCHW
tensor and its 5-D NC1HWC0 form [N, C1, H, W, C0] (C0 = 16 channels per block, C1 = ceil(C / 16), the lanes past
C zero; Ascend's 5HD format), and BlockedConv, a Conv whose input, output and fused sum are NC1HWC0 while its
weight and bias keep their ONNX shapes (the runtime packs them at load); a stem's input (few channels) may be
NCHW."""

from __future__ import annotations

from ..ir import ASCENDSIM_DOMAIN, Dim, Shape
from ..om_format import FORMATS
from ._common import InferContext, TensorType
from ._registry import register
from .nn import conv_output

C0 = 16
NCHW, NC1HWC0 = FORMATS["NCHW"], FORMATS["NC1HWC0"]


def blocks(channels: Dim) -> Dim:
    return -(-channels // C0) if isinstance(channels, int) else channels


def blocked_shape(shape: Shape) -> Shape:
    """The NC1HWC0 shape of an NCHW one."""
    n, c, h, w = shape
    return (n, blocks(c), h, w, C0)


@register("TransData", domain=ASCENDSIM_DOMAIN)
def _transdata(ctx: InferContext) -> list[TensorType]:
    x = ctx.shape(0)
    src, dst, channels = ctx.int_attr("src_format", -1), ctx.int_attr("dst_format", -1), ctx.int_attr("channels", -1)
    if (src, dst) not in ((NCHW, NC1HWC0), (NC1HWC0, NCHW)):
        ctx.fail(f"src_format {src} -> dst_format {dst}: only NCHW ({NCHW}) <-> NC1HWC0 ({NC1HWC0}) is supported")
    if x is None:
        return [(ctx.dtype(0), None)]
    if dst == NC1HWC0:
        if len(x) != 4 or x[1] != channels:
            ctx.fail(f"input {x} is not an NCHW tensor of {channels} channels")
        return [(ctx.dtype(0), blocked_shape(x))]
    if len(x) != 5 or x[4] != C0 or x[1] != blocks(channels):
        ctx.fail(f"input {x} is not the NC1HWC0 form of {channels} channels")
    return [(ctx.dtype(0), (x[0], channels, x[2], x[3]))]


@register("BlockedConv", domain=ASCENDSIM_DOMAIN)
def _blocked_conv(ctx: InferContext) -> list[TensorType]:
    x, w = ctx.shape(0), ctx.shape(1)
    if x is None or w is None:
        return [(ctx.dtype(0), None)]
    if (len(x) != 4 and (len(x) != 5 or x[4] != C0)) or len(w) != 4:
        ctx.fail(f"needs an NC1HWC0 input [N, C1, H, W, {C0}] (or NCHW: a stem's image) and a 4-D weight, given {x} and {w}")
    channels = w[1] * ctx.int_attr("group", 1) if isinstance(w[1], int) else w[1]
    if x[1] != (channels if len(x) == 4 else blocks(channels)):
        ctx.fail(f"input {x} does not hold the weight's {channels} input channels")
    out = conv_output(ctx, (x[0], channels, x[2], x[3]))
    return [(ctx.dtype(0), blocked_shape(out) if out is not None else None)]
