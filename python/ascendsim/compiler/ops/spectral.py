"""DFT: the discrete Fourier transform along one axis of a real ([..., 1]) or complex ([..., 2]: real, imaginary)
signal. IR form (onnx_opsets._dft): the attributes `axis` (non-negative), `inverse`, `onesided` and `dft_length`
(absent: the axis' length; opset 20's axis and dft_length inputs must be constants). Output: complex [..., 2] of
`dft_length` bins along the axis (onesided: the first dft_length // 2 + 1); inverse with onesided is the inverse of
a onesided spectrum, a real [..., 1] signal of dft_length (default 2 * (bins - 1)) samples.
MelWeightMatrix: the [dft_length // 2 + 1, num_mel_bins] triangular filter bank, whose shape comes from the values of
its (scalar) inputs: compiled only when they are constants (folded; `output_datatype` keeps ONNX's numbering).
"""

from __future__ import annotations

from ..ir import Dim, DType
from ..onnx_types import dtype_from_onnx
from ._common import InferContext, TensorType
from ._registry import register


@register("DFT", since=17)
def _dft(ctx: InferContext) -> list[TensorType]:
    if ctx.dtype(0) not in (None, DType.FLOAT, DType.FLOAT16):
        ctx.fail(f"dtype {ctx.dtype(0).name} is not supported; supported: FLOAT, FLOAT16")  # type: ignore[union-attr]
    x = ctx.shape(0)
    if x is None:
        return [(ctx.dtype(0), None)]
    axis = ctx.int_attr("axis", 1)
    if len(x) < 2 or not 0 <= axis < len(x) - 1 or (x[-1] not in (1, 2) and isinstance(x[-1], int)):
        ctx.fail(f"input {list(x)} and axis {axis}: the signal needs a last dim of 1 or 2 and an axis before it")
    inverse, onesided = bool(ctx.int_attr("inverse", 0)), bool(ctx.int_attr("onesided", 0))
    size = x[axis]
    length: Dim | None = ctx.attr("dft_length")  # type: ignore[assignment]
    if length is None:
        length = 2 * (size - 1) if inverse and onesided and isinstance(size, int) else size
    if isinstance(length, int) and length < 1:
        ctx.fail(f"dft_length {length} must be positive")
    if inverse and onesided:
        out: Dim = length
    elif onesided:
        out = length // 2 + 1 if isinstance(length, int) else ctx.fresh(0, axis)
    else:
        out = length
    shape = list(x)
    shape[axis], shape[-1] = out, 1 if inverse and onesided else 2
    return [(ctx.dtype(0), tuple(shape))]


@register("MelWeightMatrix", since=17, value_shaped=True)
def _mel_weight_matrix(ctx: InferContext) -> list[TensorType]:
    given = ctx.attr("output_datatype")
    dtype = DType.FLOAT if given is None else dtype_from_onnx(int(given), f"node {ctx.node.name!r} output_datatype")  # type: ignore[call-overload]
    bins, length = ctx.static_ints(0), ctx.static_ints(1)
    if bins is None or length is None:
        return [(dtype, (ctx.fresh(0, 0), ctx.fresh(0, 1)))]
    if len(bins) != 1 or len(length) != 1 or bins[0] < 1 or length[0] < 1:
        ctx.fail(f"num_mel_bins {bins} and dft_length {length} must be positive scalars")
    return [(dtype, (length[0] // 2 + 1, bins[0]))]
