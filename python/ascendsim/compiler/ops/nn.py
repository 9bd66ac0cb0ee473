"""Neural-network ops: Conv/ConvTranspose (with the fused epilogue attributes), Gemm, MatMul (batched,
broadcast, optional fused bias), Max/Average/Global pools, Batch/Layer/Instance normalization,
(Log)Softmax, LRN, GridSample, RoiAlign, MaxRoiPool and MaxUnpool.

Window ops share one size rule per spatial axis:
    out = floor_or_ceil((in + pad_begin + pad_end - dilation*(kernel-1) - 1) / stride) + 1
with ceil_mode dropping a last window that would start inside the end padding (as onnxruntime does), and
auto_pad SAME_UPPER/SAME_LOWER giving out = ceil(in / stride) with the total padding split (extra at the end
for UPPER). Unknown (symbolic) spatial sizes give fresh symbols.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..ir import Dim, DType, Shape
from ._common import InferContext, TensorType, broadcast, norm_axis
from ._registry import register

ACTIVATIONS = ("Relu", "Clip", "Sigmoid", "Tanh", "Gelu", "Silu", "HardSwish", "HardSigmoid", "LeakyRelu", "Elu")
AUTO_PADS = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")


def same_pads(auto_pad: str, sizes: Sequence[int], kernel: Sequence[int], strides: Sequence[int],
              dilations: Sequence[int]) -> list[int]:
    """Explicit pads [begin..., end...] equivalent to auto_pad on static spatial sizes."""
    n = len(sizes)
    if auto_pad in {"VALID", "NOTSET"}:
        return [0] * (2 * n)
    begins, ends = [], []
    for size, k, s, d in zip(sizes, kernel, strides, dilations):
        out = -(-size // s)
        total = max(0, (out - 1) * s + (k - 1) * d + 1 - size)
        small, large = total // 2, total - total // 2
        begins.append(small if auto_pad == "SAME_UPPER" else large)
        ends.append(large if auto_pad == "SAME_UPPER" else small)
    return begins + ends


def _window_params(ctx: InferContext, spatial: int, kernel: Sequence[int]) -> tuple[list[int], list[int], str]:
    strides = ctx.ints_attr("strides") or [1] * spatial
    dilations = ctx.ints_attr("dilations") or [1] * spatial
    auto_pad = str(ctx.attr("auto_pad", "NOTSET"))
    if auto_pad not in AUTO_PADS:
        ctx.fail(f"auto_pad={auto_pad!r} is not supported; supported: {', '.join(AUTO_PADS)}")
    if len(strides) != spatial or len(dilations) != spatial or len(kernel) != spatial:
        ctx.fail(f"kernel_shape/strides/dilations must have {spatial} values (the spatial rank)")
    if min(strides) < 1 or min(dilations) < 1:
        ctx.fail(f"strides {strides} and dilations {dilations} must be >= 1")
    return strides, dilations, auto_pad


def window_output(ctx: InferContext, in_shape: Shape, kernel: Sequence[int], ceil_mode: bool = False) -> list[Dim]:
    """Output spatial sizes of a Conv/pool window over the spatial part of `in_shape`."""
    spatial = len(in_shape) - 2
    strides, dilations, auto_pad = _window_params(ctx, spatial, kernel)
    pads = ctx.ints_attr("pads") or [0] * (2 * spatial)
    if len(pads) != 2 * spatial:
        ctx.fail(f"pads {pads} must have {2 * spatial} values")
    out: list[Dim] = []
    for axis in range(spatial):
        size = in_shape[2 + axis]
        if not isinstance(size, int):
            out.append(ctx.fresh(0, 2 + axis))
            continue
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            out.append(-(-size // strides[axis]))
            continue
        begin, end = (0, 0) if auto_pad == "VALID" else (pads[axis], pads[axis + spatial])
        span = size + begin + end - dilations[axis] * (kernel[axis] - 1) - 1
        if span < 0:
            ctx.fail(f"the window (kernel {list(kernel)}, dilations {dilations}) is larger than the padded "
                     f"input {list(in_shape[2:])}")
        count = (math.ceil if ceil_mode else math.floor)(span / strides[axis]) + 1
        if ceil_mode and (count - 1) * strides[axis] >= size + begin:
            count -= 1  # the last window would start in the end padding
        out.append(count)
    return out


FLOAT_DTYPES = (DType.FLOAT, DType.FLOAT16)  # what the kernels of this file's ops take (csrc/kernels/conv*.cpp,
# matmul.cpp, pool.cpp, softmax_norm.cpp)


def _check_float_operands(ctx: InferContext, *indices: int) -> None:
    """Conv, ConvTranspose, MatMul, Gemm, the pools, the normalizations and Softmax run on FLOAT or FLOAT16
    operands only (`indices`: the inputs to check, default all): another dtype compiled before and then found no
    kernel at load (issue 13, item 7's kind; found by tests/fuzz/onnx_atc.py)."""
    for index, value in enumerate(ctx.node.inputs):
        if indices and index not in indices:
            continue
        if value is not None and value.dtype is not None and value.dtype not in FLOAT_DTYPES:
            ctx.fail(f"input {index} ({value.name!r}) has dtype {value.dtype.name}; "
                     f"{ctx.node.op_type} supports FLOAT and FLOAT16")


def _check_bias(ctx: InferContext, channels: Dim) -> None:
    bias = ctx.shape(2)
    if bias is not None and all(isinstance(d, int) for d in (*bias, channels)) and list(bias) != [channels]:
        ctx.fail(f"bias of shape {list(bias)} must be [{channels}] (one value per output channel)")


def _check_activation(ctx: InferContext) -> None:
    activation = ctx.attr("activation")
    if activation is not None and activation not in ACTIVATIONS:
        ctx.fail(f"activation={activation!r} is not supported; supported: {', '.join(ACTIVATIONS)}")


@register("Conv")
def _conv(ctx: InferContext) -> list[TensorType]:
    return [(ctx.dtype(0), conv_output(ctx, ctx.shape(0)))]


def conv_output(ctx: InferContext, x: Shape | None) -> Shape | None:
    """A Conv node's output shape for input shape `x` (NCHW; the NC1HWC0 conv passes its input's logical
    shape), its activation, operand dtypes and bias checked."""
    _check_activation(ctx)
    _check_float_operands(ctx)
    w = ctx.shape(1)
    out = conv_shape(ctx, x, w)
    if out is not None:
        _check_bias(ctx, w[0])  # type: ignore[index]
    return out


def conv_shape(ctx: InferContext, x: Shape | None, w: Shape | None) -> Shape | None:
    """The output shape of a convolution of `x` by weights `w` under the node's window attributes."""
    if x is None or w is None:
        return None
    if len(x) < 3 or len(w) != len(x):
        ctx.fail(f"input {x} and weight {w} must have the same rank >= 3")
    group = ctx.int_attr("group", 1)
    channels, per_group = x[1], w[1]
    if isinstance(channels, int) and isinstance(per_group, int) and channels != per_group * group:
        ctx.fail(f"input channels {channels} != weight channels {per_group} x group {group}")
    given = ctx.ints_attr("kernel_shape")
    if given is not None and all(isinstance(d, int) for d in w[2:]) and list(given) != list(w[2:]):
        ctx.fail(f"kernel_shape {list(given)} contradicts the weight's spatial dims {list(w[2:])}")
    kernel = given or [int(d) for d in w[2:]]
    return (x[0], w[0], *window_output(ctx, x, kernel))


@register("ConvTranspose")
def _conv_transpose(ctx: InferContext) -> list[TensorType]:
    _check_activation(ctx)
    _check_float_operands(ctx)
    x, w = ctx.shape(0), ctx.shape(1)
    if x is None or w is None:
        return [(ctx.dtype(0), None)]
    if len(x) < 3 or len(w) != len(x):
        ctx.fail(f"input {x} and weight {w} must have the same rank >= 3")
    if isinstance(x[1], int) and isinstance(w[0], int) and x[1] != w[0]:
        ctx.fail(f"input channels {x[1]} != the weight's input channels {w[0]} (weight {w})")
    spatial = len(x) - 2
    group = ctx.int_attr("group", 1)
    kernel = ctx.ints_attr("kernel_shape") or [int(d) for d in w[2:]]
    channels: Dim = w[1] * group if isinstance(w[1], int) else ctx.fresh(0, 1)
    _check_bias(ctx, channels)
    output_shape = ctx.ints_attr("output_shape")
    if output_shape:
        return [(ctx.dtype(0), (x[0], channels, *output_shape[-spatial:]))]
    strides, dilations, auto_pad = _window_params(ctx, spatial, kernel)
    pads = ctx.ints_attr("pads") or [0] * (2 * spatial)
    extra = ctx.ints_attr("output_padding") or [0] * spatial
    out: list[Dim] = []
    for axis in range(spatial):
        size = x[2 + axis]
        if not isinstance(size, int):
            out.append(ctx.fresh(0, 2 + axis))
        elif auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            out.append(size * strides[axis])
        else:
            out.append(strides[axis] * (size - 1) + extra[axis] + (kernel[axis] - 1) * dilations[axis] + 1
                       - pads[axis] - pads[axis + spatial])
    return [(ctx.dtype(0), (x[0], channels, *out))]


@register("Gemm")
def _gemm(ctx: InferContext) -> list[TensorType]:
    _check_activation(ctx)
    _check_float_operands(ctx)
    a, b = ctx.shape(0), ctx.shape(1)
    if a is None or b is None:
        return [(ctx.dtype(0), None)]
    if len(a) != 2 or len(b) != 2:
        ctx.fail(f"A {a} and B {b} must be 2-D")
    m, k = (a[1], a[0]) if ctx.int_attr("transA", 0) else (a[0], a[1])
    k2, n = (b[1], b[0]) if ctx.int_attr("transB", 0) else (b[0], b[1])
    if isinstance(k, int) and isinstance(k2, int) and k != k2:
        ctx.fail(f"inner dimensions differ: A {a} (transA={ctx.int_attr('transA', 0)}), "
                 f"B {b} (transB={ctx.int_attr('transB', 0)})")
    if ctx.input(2) is not None:
        out = broadcast(ctx, [ctx.shape(2), (m, n)])
        if out is not None and tuple(out) != (m, n):
            ctx.fail(f"C {ctx.shape(2)} does not broadcast to ({m}, {n})")
    return [(ctx.dtype(0), (m, n))]


@register("MatMul")
def _matmul(ctx: InferContext) -> list[TensorType]:
    _check_activation(ctx)
    _check_float_operands(ctx)
    out = matmul_shape(ctx, ctx.shape(0), ctx.shape(1))
    if ctx.input(2) is not None and out is not None:  # fused bias
        full = broadcast(ctx, [ctx.shape(2), out])
        if full is not None and tuple(full) != tuple(out):
            ctx.fail(f"fused bias {ctx.shape(2)} does not broadcast to the output {out}")
    return [(ctx.dtype(0), out)]


def matmul_shape(ctx: InferContext, a: Shape | None, b: Shape | None) -> Shape | None:
    """numpy.matmul's output shape (1-D operands promoted and the added dim removed, batch dims broadcast)."""
    if a is None or b is None:
        return None
    if not a or not b:
        ctx.fail(f"inputs must not be scalars: {a}, {b}")
    a2 = (1, *a) if len(a) == 1 else a
    b2 = (*b, 1) if len(b) == 1 else b
    k, k2 = a2[-1], b2[-2]
    if isinstance(k, int) and isinstance(k2, int) and k != k2:
        ctx.fail(f"inner dimensions differ: {a} x {b}")
    batch = broadcast(ctx, [a2[:-2], b2[:-2]]) or ()
    return (*batch, *(a2[-2:-1] if len(a) > 1 else ()), *(b2[-1:] if len(b) > 1 else ()))


@register("MaxPool", "AveragePool")
def _pool(ctx: InferContext) -> list[TensorType]:
    _check_float_operands(ctx)
    x = ctx.shape(0)
    kernel = ctx.ints_attr("kernel_shape")
    if not kernel:
        ctx.fail("attribute kernel_shape is required")
    if x is None:
        return [(ctx.dtype(0), None)] * len(ctx.node.outputs)
    if len(x) != len(kernel) + 2:
        ctx.fail(f"kernel_shape {kernel} does not match input rank {len(x)}")
    shape = (x[0], x[1], *window_output(ctx, x, kernel, bool(ctx.int_attr("ceil_mode", 0))))
    return [(ctx.dtype(0), shape), (DType.INT64, shape)][: len(ctx.node.outputs)]


@register("GlobalAveragePool", "GlobalMaxPool")
def _global_pool(ctx: InferContext) -> list[TensorType]:
    _check_float_operands(ctx)
    x = ctx.shape(0)
    if x is not None and len(x) < 3:
        ctx.fail(f"input rank {len(x)} must be >= 3")
    return [(ctx.dtype(0), None if x is None else (x[0], x[1], *[1] * (len(x) - 2)))]


@register("BatchNormalization")
def _batch_norm(ctx: InferContext) -> list[TensorType]:
    _check_float_operands(ctx)
    _check_activation(ctx)
    x = ctx.shape(0)
    if x is not None and len(x) < 2:
        ctx.fail(f"input rank {len(x)} must be >= 2")
    channels = (ctx.fresh(0, 1),) if x is None else (x[1],)
    if x is not None and isinstance(x[1], int):
        for index, what in enumerate(("scale", "B", "input_mean", "input_var"), start=1):
            given = ctx.shape(index)
            if given is not None and all(isinstance(d, int) for d in given) and list(given) != [x[1]]:
                ctx.fail(f"{what} of shape {list(given)} must be [{x[1]}] (one value per channel)")
    return [ctx.type(0)] + [(ctx.dtype(1), channels)] * (len(ctx.node.outputs) - 1)


@register("InstanceNormalization")
def _instance_norm(ctx: InferContext) -> list[TensorType]:
    _check_float_operands(ctx)
    x = ctx.shape(0)
    if x is not None and len(x) < 3:
        ctx.fail(f"input rank {len(x)} must be >= 3")
    if x is not None and isinstance(x[1], int):
        _check_params(ctx, [x[1]], "one value per channel")
    return [ctx.type(0)]


def _check_params(ctx: InferContext, size: list[Dim], what: str) -> None:
    """Inputs 1 and 2 (scale, bias) of a normalization hold `size` values (the kernels' rule, softmax_norm.cpp)."""
    if not all(isinstance(d, int) for d in size):
        return
    want = math.prod(size)  # type: ignore[arg-type]
    for index, name in ((1, "scale"), (2, "bias")):
        given = ctx.shape(index)
        if ctx.input(index) is None or given is None or not all(isinstance(d, int) for d in given):
            continue
        count = math.prod(given)  # type: ignore[arg-type]
        if count != want and not (ctx.node.op_type == "LayerNormalization" and count == 1):
            ctx.fail(f"{name} of shape {list(given)} must hold {want} values ({what})")


@register("LayerNormalization", since=17)
def _layer_norm(ctx: InferContext) -> list[TensorType]:
    _check_float_operands(ctx)
    x = ctx.shape(0)
    out = [ctx.type(0)]
    if x is None:
        return out + [(DType.FLOAT, None)] * (len(ctx.node.outputs) - 1)
    axis = norm_axis(ctx, ctx.int_attr("axis", -1), len(x))
    _check_params(ctx, list(x[axis:]), f"the normalized shape {list(x[axis:])}")
    stats = (*x[:axis], *[1] * (len(x) - axis))
    return out + [(DType.FLOAT, stats)] * (len(ctx.node.outputs) - 1)


@register("Softmax", "LogSoftmax")
def _softmax(ctx: InferContext) -> list[TensorType]:
    _check_float_operands(ctx)
    x = ctx.shape(0)
    if x is not None:
        norm_axis(ctx, ctx.int_attr("axis", -1), len(x))
    return [ctx.type(0)]


GRID_SAMPLE_MODES = ("linear", "bilinear", "nearest", "cubic", "bicubic")  # opset 16 names bilinear/bicubic
GRID_SAMPLE_PADDING = ("zeros", "border", "reflection")


@register("GridSample", since=20)  # the IR has opset 20's mode names
def _grid_sample(ctx: InferContext) -> list[TensorType]:
    _check_float_operands(ctx)
    if ctx.attr("mode", "linear") not in GRID_SAMPLE_MODES:
        ctx.fail(f"mode={ctx.attr('mode')!r} is not supported; supported: {', '.join(GRID_SAMPLE_MODES)}")
    if ctx.attr("padding_mode", "zeros") not in GRID_SAMPLE_PADDING:
        ctx.fail(f"padding_mode={ctx.attr('padding_mode')!r} is not supported; supported: "
                 f"{', '.join(GRID_SAMPLE_PADDING)}")
    x, grid = ctx.shape(0), ctx.shape(1)
    if x is None or grid is None:
        return [(ctx.dtype(0), None)]
    spatial = len(x) - 2
    if spatial not in (2, 3) or len(grid) != len(x) or (isinstance(grid[-1], int) and grid[-1] != spatial):
        ctx.fail(f"input {x} and grid {grid}: a 4-D or 5-D input needs a grid of its rank with last dim {spatial}")
    if any(d == 0 for d in x[2:]):
        ctx.fail(f"input {x} has an empty spatial dim: nothing to sample")
    if spatial == 3 and ctx.attr("mode") in ("cubic", "bicubic"):
        ctx.fail("mode='cubic' is not defined for 5-D (volumetric) inputs")
    return [(ctx.dtype(0), (x[0], x[1], *grid[1:-1]))]


@register("LRN", since=13)
def _lrn(ctx: InferContext) -> list[TensorType]:
    _check_float_operands(ctx)
    x, size = ctx.shape(0), ctx.attr("size")
    if not isinstance(size, int) or size < 1:
        ctx.fail(f"size={size!r} must be a positive int")
    if x is not None and len(x) < 3:
        ctx.fail(f"input rank {len(x)} must be >= 3 (N, C, spatial...)")
    return [ctx.type(0)]


@register("RoiAlign", since=16)
def _roi_align(ctx: InferContext) -> list[TensorType]:
    _check_float_operands(ctx, 0, 1)
    if ctx.attr("mode", "avg") not in ("avg", "max"):
        ctx.fail(f"mode={ctx.attr('mode')!r} is not supported; supported: 'avg', 'max'")
    if ctx.attr("coordinate_transformation_mode", "half_pixel") not in ("half_pixel", "output_half_pixel"):
        ctx.fail(f"coordinate_transformation_mode={ctx.attr('coordinate_transformation_mode')!r} is not supported; "
                 "supported: 'half_pixel', 'output_half_pixel'")
    if ctx.dtype(2) not in (None, DType.INT64):
        ctx.fail(f"batch_indices must be int64, got {ctx.dtype(2).name}")  # type: ignore[union-attr]
    x, rois = ctx.shape(0), ctx.shape(1)
    if (x is not None and len(x) != 4) or (rois is not None and (len(rois) != 2 or rois[1] not in (4,))):
        ctx.fail(f"X {x} must be 4-D and rois {rois} [num_rois, 4]")
    if min(ctx.int_attr("output_height", 1), ctx.int_attr("output_width", 1)) < 1:
        ctx.fail(f"output_height and output_width must be positive, got {ctx.attr('output_height')}, "
                 f"{ctx.attr('output_width')}")
    batch = ctx.shape(2)
    if rois is not None and batch is not None and (len(batch) != 1 or _differ(batch[0], rois[0])):
        ctx.fail(f"batch_indices of shape {list(batch)} must be [{rois[0]}] (one per roi)")
    if x is None or rois is None:
        return [(ctx.dtype(0), None)]
    return [(ctx.dtype(0), (rois[0], x[1], ctx.int_attr("output_height", 1), ctx.int_attr("output_width", 1)))]


def _differ(a: Dim, b: Dim) -> bool:
    """Two dims that are known to differ (both static and unequal)."""
    return isinstance(a, int) and isinstance(b, int) and a != b


@register("MaxRoiPool")
def _max_roi_pool(ctx: InferContext) -> list[TensorType]:
    _check_float_operands(ctx)
    x, rois, pooled = ctx.shape(0), ctx.shape(1), ctx.ints_attr("pooled_shape")
    if pooled is None or len(pooled) != 2 or min(pooled) < 1:
        ctx.fail(f"pooled_shape={pooled} must be two positive ints")
    if (x is not None and len(x) != 4) or (rois is not None and (len(rois) != 2 or rois[1] not in (5,))):
        ctx.fail(f"X {x} must be 4-D and rois {rois} [num_rois, 5] (batch index, x1, y1, x2, y2)")
    if x is None or rois is None:
        return [(ctx.dtype(0), None)]
    return [(ctx.dtype(0), (rois[0], x[1], *pooled))]  # type: ignore[misc]


@register("MaxUnpool", since=11)
def _max_unpool(ctx: InferContext) -> list[TensorType]:
    _check_float_operands(ctx, 0)
    if ctx.dtype(1) not in (None, DType.INT64):
        ctx.fail(f"I must be int64, got {ctx.dtype(1).name}")  # type: ignore[union-attr]
    x, kernel = ctx.shape(0), ctx.ints_attr("kernel_shape")
    if kernel is None:
        ctx.fail("attribute kernel_shape is required")
    if x is None:
        return [(ctx.dtype(0), None)]
    spatial = len(x) - 2
    if spatial < 1 or len(kernel) != spatial or ctx.shape(1) not in (None, x):
        ctx.fail(f"X {x}, I {ctx.shape(1)} and kernel_shape {kernel} do not fit")
    if ctx.input(2) is not None:
        given = ctx.static_ints(2)
        if given is None:
            return [(ctx.dtype(0), tuple(ctx.fresh(0, i) for i in range(len(x))))]
        return [(ctx.dtype(0), tuple(given))]
    strides = ctx.ints_attr("strides") or [1] * spatial
    pads = ctx.ints_attr("pads") or [0] * (2 * spatial)
    out: list[Dim] = [x[0], x[1]]
    for axis in range(spatial):
        size = x[2 + axis]
        out.append((size - 1) * strides[axis] + kernel[axis] - pads[axis] - pads[axis + spatial]
                   if isinstance(size, int) else ctx.fresh(0, 2 + axis))
    return [(ctx.dtype(0), tuple(out))]
