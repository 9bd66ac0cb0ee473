"""Pools, Softmax/LogSoftmax, Batch/Layer/Instance normalization, Reduce* and ArgMax/ArgMin kernels through
the kernel driver, against onnxruntime (one-node models) with odd sizes, negative axes, ceil_mode, pads,
count_include_pad, float16 storage and the factories' refusals."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from kernel_harness import Driver, Refused, run_kernel
from onnx import helper

RNG = np.random.default_rng(5)


def ort_run(op: str, inputs: list[np.ndarray], n_out: int = 1, opset: int = 18, **attrs) -> list[np.ndarray]:
    names = [f"i{k}" for k in range(len(inputs))]
    graph = helper.make_graph(
        [helper.make_node(op, names, [f"o{k}" for k in range(n_out)], **attrs)], "g",
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(x.dtype), x.shape) for n, x in zip(names, inputs)],
        [onnx.ValueInfoProto(name=f"o{k}") for k in range(n_out)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, dict(zip(names, inputs)))


POOLS = [
    ("MaxPool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    ("MaxPool", {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}),
    ("MaxPool", {"kernel_shape": [2, 3], "strides": [1, 2], "dilations": [2, 1], "pads": [0, 1, 1, 0]}),
    ("AveragePool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    ("AveragePool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "count_include_pad": 1}),
    ("AveragePool", {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1, "count_include_pad": 1}),
    ("AveragePool", {"kernel_shape": [2, 2], "strides": [2, 2], "ceil_mode": 1, "pads": [1, 0, 0, 1]}),
    ("MaxPool", {"kernel_shape": [3], "strides": [2], "pads": [1, 1]}),
]


@pytest.mark.parametrize("case", range(len(POOLS)))
@pytest.mark.parametrize("channels", [3, 17])
def test_pool(driver: Driver, tmp_path: Path, case: int, channels: int) -> None:
    # 17 channels: 34 narrow planes, two groups of 16 pooled as the lanes of one plane of pixels, then two alone.
    op, attrs = POOLS[case]
    shape = (2, channels, 11) if len(attrs["kernel_shape"]) == 1 else (2, channels, 11, 10)
    x = RNG.standard_normal(shape).astype(np.float32)
    want = ort_run(op, [x], **attrs)[0]
    got = run_kernel(driver, tmp_path, op, [x], [(np.float32, want.shape)], attrs=attrs)[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


AVERAGE_WINDOWS = [
    {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]},
    {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "count_include_pad": 1},
    {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [0, 2, 1, 0], "ceil_mode": 1},
    {"kernel_shape": [2, 2], "strides": [2, 2]},
    {"kernel_shape": [5, 3], "strides": [1, 1], "pads": [2, 1, 2, 1]},
    {"kernel_shape": [10, 3], "strides": [1, 2], "pads": [4, 1, 5, 1]},  # more than 8 rows: two passes a row
]


@pytest.mark.parametrize("case", range(len(AVERAGE_WINDOWS)))
@pytest.mark.parametrize("width", [14, 37])
def test_average_pool_counts_of_every_row_and_column(driver: Driver, tmp_path: Path, case: int, width: int) -> None:
    # Each output is the window's sum times the reciprocal of its count (a table per count of window rows, made
    # once per call): planes of several vectors and a tail per row, with windows clipped by the pads on every side
    # (1 to kh rows, 1 to kw columns), in one call over many planes.
    attrs = AVERAGE_WINDOWS[case]
    x = RNG.standard_normal((2, 9, 15, width)).astype(np.float32)
    want = ort_run("AveragePool", [x], **attrs)[0]
    got = run_kernel(driver, tmp_path, "AveragePool", [x], [(np.float32, want.shape)], attrs=attrs)[0]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


# 3-D pools of kernel 1 over the last axis: the layout pass's pools of NC1HWC0 pixels (16 lanes), and other lane
# counts (a partial vector; more than one vector).
LANE_POOLS = [
    ("MaxPool", {"kernel_shape": [3, 3, 1], "strides": [2, 2, 1], "pads": [1, 1, 0, 1, 1, 0]}),
    ("MaxPool", {"kernel_shape": [3, 3, 1], "strides": [2, 2, 1], "ceil_mode": 1}),
    ("MaxPool", {"kernel_shape": [2, 3, 1], "strides": [1, 2, 1], "dilations": [2, 1, 1], "pads": [0, 1, 0, 1, 0, 0]}),
    ("MaxPool", {"kernel_shape": [3, 3, 1], "strides": [1, 1, 1], "pads": [1, 1, 0, 1, 1, 0]}),
    ("AveragePool", {"kernel_shape": [3, 3, 1], "strides": [2, 2, 1], "pads": [1, 1, 0, 1, 1, 0]}),
    ("AveragePool", {"kernel_shape": [3, 3, 1], "strides": [2, 2, 1], "pads": [1, 1, 0, 1, 1, 0], "count_include_pad": 1}),
    ("AveragePool", {"kernel_shape": [2, 2, 1], "strides": [2, 2, 1], "ceil_mode": 1, "pads": [1, 0, 0, 0, 1, 0]}),
]


@pytest.mark.parametrize("case", range(len(LANE_POOLS)))
@pytest.mark.parametrize("lanes", [16, 5, 20])
def test_pool_of_pixel_lanes(driver: Driver, tmp_path: Path, case: int, lanes: int) -> None:
    # Rows of 13 pixels: groups of 4 interior outputs, a remainder and the border pixels with their valid columns.
    op, attrs = LANE_POOLS[case]
    x = RNG.standard_normal((2, 3, 11, 13, lanes)).astype(np.float32)
    want = ort_run(op, [x], **attrs)[0]
    got = run_kernel(driver, tmp_path, op, [x], [(np.float32, want.shape)], attrs=attrs)[0]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_pool_of_pixel_lanes_refuses_a_window_across_lanes(driver: Driver, tmp_path: Path) -> None:
    x = np.zeros((1, 2, 5, 5, 16), np.float32)
    with pytest.raises(Refused, match="3-D needs kernel 1, stride 1, dilation 1 and no pads on the last axis"):
        run_kernel(driver, tmp_path, "MaxPool", [x], [(np.float32, (1, 2, 5, 5, 15))], attrs={"kernel_shape": [1, 1, 2]})


@pytest.mark.parametrize("op", ["GlobalAveragePool", "GlobalMaxPool"])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_global_pool(driver: Driver, tmp_path: Path, op: str, dtype: str) -> None:
    x = RNG.standard_normal((2, 5, 7, 9)).astype(dtype)
    want = ort_run(op, [x.astype(np.float32)])[0]
    got = run_kernel(driver, tmp_path, op, [x], [(dtype, want.shape)])[0]
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("axis", [-1, 1, 0])
@pytest.mark.parametrize("inplace", [False, True])  # the memory planner may write the output over the input
# rows of whole vectors and a partial one (37: odd and even counts of them by variant; 197: a ViT's attention),
# only a partial one, and whole vectors in an odd count (the max and the sum run in two chains of vectors)
@pytest.mark.parametrize("length", [37, 197, 3, 48])
def test_softmax(driver: Driver, tmp_path: Path, *, op: str, axis: int, inplace: bool, length: int) -> None:
    x = RNG.standard_normal((3, 7, length)).astype(np.float32) * 5
    want = ort_run(op, [x], axis=axis)[0]
    got = run_kernel(driver, tmp_path, op, [x], [(np.float32, x.shape)], attrs={"axis": axis},
                     inplace=(0, 0) if inplace else None)[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("axis", [-1, 0])
def test_log_softmax_of_large_values(driver: Driver, tmp_path: Path, axis: int) -> None:
    # Regression: x - (max + log(sum)) rounds log(sum) away next to a max of 10000 (float32's step there is
    # 1e-3); x - max must come first, as in onnxruntime.
    x = (10000 + RNG.standard_normal((4, 19)) * 3).astype(np.float32)
    want = ort_run("LogSoftmax", [x], axis=axis)[0]
    got = run_kernel(driver, tmp_path, "LogSoftmax", [x], [(np.float32, x.shape)], attrs={"axis": axis})[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


# The compiler's fused activation (epilogue.h): a clamp inside the affine loop, any other after it per plane.
BATCH_NORM_ACTIVATIONS = {
    None: ({}, lambda v: v), "Relu": ({"activation": "Relu"}, lambda v: np.maximum(v, 0)),
    "Clip": ({"activation": "Clip", "activation_alpha": -0.5, "activation_beta": 0.75}, lambda v: np.clip(v, -0.5, 0.75)),
    "Sigmoid": ({"activation": "Sigmoid"}, lambda v: 1 / (1 + np.exp(-v))),
}


@pytest.mark.parametrize("activation", list(BATCH_NORM_ACTIVATIONS))
def test_batchnorm(driver: Driver, tmp_path: Path, activation: str | None) -> None:
    x = RNG.standard_normal((2, 4, 5, 3)).astype(np.float32)
    scale, bias, mean = (RNG.standard_normal(4).astype(np.float32) for _ in range(3))
    var = RNG.uniform(0.5, 2, 4).astype(np.float32)
    attrs, act = BATCH_NORM_ACTIVATIONS[activation]
    want = act(ort_run("BatchNormalization", [x, scale, bias, mean, var], epsilon=1e-3)[0].astype(np.float64))
    got = run_kernel(driver, tmp_path, "BatchNormalization", [x, scale, bias, mean, var], [(np.float32, x.shape)],
                     attrs={"epsilon": 1e-3, **attrs})[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("axis", [-1, -2, 1])
@pytest.mark.parametrize("with_bias", [True, False])
def test_layernorm(driver: Driver, tmp_path: Path, axis: int, with_bias: bool) -> None:
    x = RNG.standard_normal((2, 6, 10)).astype(np.float32) * 3 + 1
    norm_shape = x.shape[axis:]
    scale = RNG.standard_normal(norm_shape).astype(np.float32)
    bias = RNG.standard_normal(norm_shape).astype(np.float32)
    inputs = [x, scale, bias] if with_bias else [x, scale]
    want = ort_run("LayerNormalization", inputs, n_out=3, axis=axis, epsilon=1e-5)
    got = run_kernel(driver, tmp_path, "LayerNormalization", inputs,
                     [(np.float32, w.shape) for w in want], attrs={"axis": axis, "epsilon": 1e-5})
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("axis", [-1, 1])
def test_layernorm_in_place(driver: Driver, tmp_path: Path, axis: int) -> None:
    x = RNG.standard_normal((3, 5, 37)).astype(np.float32) * 3 + 1
    scale = RNG.standard_normal(x.shape[axis:]).astype(np.float32)
    bias = RNG.standard_normal(x.shape[axis:]).astype(np.float32)
    want = ort_run("LayerNormalization", [x, scale, bias], axis=axis, epsilon=1e-5)[0]
    got = run_kernel(driver, tmp_path, "LayerNormalization", [x, scale, bias], [(np.float32, x.shape)],
                     attrs={"axis": axis, "epsilon": 1e-5}, inplace=(0, 0))[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("width", [96, 384, 768, 771])
def test_layernorm_wide_rows(driver: Driver, tmp_path: Path, width: int) -> None:
    # Rows of ConvNeXt's and ViT's widths (several chunks of the row sums' four vectors, whose lanes are added
    # pairwise in double), far from zero so that the variance is a small difference of large sums.
    x = RNG.standard_normal((5, width)).astype(np.float32) * 0.5 + 40.0
    scale, bias = RNG.standard_normal(width).astype(np.float32), RNG.standard_normal(width).astype(np.float32)
    want = ort_run("LayerNormalization", [x, scale, bias], n_out=3, axis=-1, epsilon=1e-6)
    got = run_kernel(driver, tmp_path, "LayerNormalization", [x, scale, bias], [(np.float32, w.shape) for w in want],
                     attrs={"axis": -1, "epsilon": 1e-6})
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)


def test_instancenorm(driver: Driver, tmp_path: Path) -> None:
    x = RNG.standard_normal((2, 3, 6, 5)).astype(np.float32)
    scale, bias = RNG.standard_normal(3).astype(np.float32), RNG.standard_normal(3).astype(np.float32)
    want = ort_run("InstanceNormalization", [x, scale, bias], epsilon=1e-4)[0]
    got = run_kernel(driver, tmp_path, "InstanceNormalization", [x, scale, bias], [(np.float32, x.shape)],
                     attrs={"epsilon": 1e-4})[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


REDUCES = ["ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
           "ReduceSumSquare", "ReduceLogSumExp"]


@pytest.mark.parametrize("op", REDUCES)
@pytest.mark.parametrize(("axes", "keep"), [(None, 1), ([-1], 1), ([0, 2], 0), ([1], 0)])
def test_reduce(driver: Driver, tmp_path: Path, op: str, axes: list | None, keep: int) -> None:
    x = RNG.uniform(0.5, 1.5, (3, 4, 5)).astype(np.float32)
    inputs = [x] if axes is None else [x, np.array(axes, np.int64)]
    want = ort_run(op, inputs, keepdims=keep)[0]
    got = run_kernel(driver, tmp_path, op, [x], [(np.float32, want.shape)], attrs={"axes": axes, "keepdims": keep})[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", ["ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin"])
@pytest.mark.parametrize("case", [((2, 3, 5, 7, 16), [2, 3], np.float32), ((2, 3, 5, 7, 16), [2, 3], np.float16),
                                  ((2, 6, 1, 300), [1, 2], np.float32), ((1, 2, 3, 5, 272), [2, 3], np.float32),
                                  ((1, 2, 9, 11, 48), [2, 3], np.float32), ((1, 1, 56, 56, 16), [2, 3], np.float32)])
def test_reduce_rows_before_kept_axes(driver: Driver, tmp_path: Path, op: str, case: tuple) -> None:
    """Axes followed by kept ones (a blocked tensor's spatial mean): whole rows combined (reduce_rows), rows
    longer than its 256-value chunk included; rows of whole lines of 16 summed by the variant's line_sums (15
    lines: 3 past its 4 chains; 3136 lines; 272 = a chunk of 256 and one line)."""
    shape, axes, dtype = case
    x = RNG.uniform(-1.5, 1.5, shape).astype(dtype)
    want = ort_run(op, [x.astype(np.float32), np.array(axes, np.int64)], keepdims=1)[0]
    if op in ("ReduceSum", "ReduceMean"):  # against float64 sums: onnxruntime's float32 ones drift ~3e-5 over 3136
        want = getattr(x.astype(np.float64), "sum" if op == "ReduceSum" else "mean")(axis=tuple(axes), keepdims=True)
    got = run_kernel(driver, tmp_path, op, [x], [(dtype, want.shape)], attrs={"axes": axes, "keepdims": 1})[0]
    tol = 1e-5 if dtype == np.float32 else 2e-3
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=tol, atol=tol)


def test_reduce_int64(driver: Driver, tmp_path: Path) -> None:
    x = RNG.integers(-5, 5, (4, 3)).astype(np.int64)
    got = run_kernel(driver, tmp_path, "ReduceSum", [x], [(np.int64, (3,))], attrs={"axes": [0], "keepdims": 0})[0]
    np.testing.assert_array_equal(got, x.sum(0))
    got = run_kernel(driver, tmp_path, "ReduceProd", [x], [(np.int64, (4, 1))], attrs={"axes": [1]})[0]
    np.testing.assert_array_equal(got, x.prod(1, keepdims=True))


@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
@pytest.mark.parametrize(("axis", "keep", "last"), [(0, 1, 0), (-1, 0, 0), (1, 1, 1)])
def test_arg(driver: Driver, tmp_path: Path, op: str, axis: int, keep: int, last: int) -> None:  # noqa: PLR0917
    x = RNG.integers(0, 4, (3, 5, 4)).astype(np.float32)  # ties exercise select_last_index
    want = ort_run(op, [x], axis=axis, keepdims=keep, select_last_index=last)[0]
    got = run_kernel(driver, tmp_path, op, [x], [(np.int64, want.shape)],
                     attrs={"axis": axis, "keepdims": keep, "select_last_index": last})[0]
    np.testing.assert_array_equal(got, want)


def test_refusals(driver: Driver, tmp_path: Path) -> None:
    x = np.ones((2, 3, 4, 4), np.float32)
    with pytest.raises(Refused, match="axis 4"):
        run_kernel(driver, tmp_path, "Softmax", [x], [(np.float32, x.shape)], attrs={"axis": 4})
    with pytest.raises(Refused, match="axes value 7"):
        run_kernel(driver, tmp_path, "ReduceSum", [x], [(np.float32, (1,))], attrs={"axes": [7]})
    with pytest.raises(Refused, match="Indices"):
        run_kernel(driver, tmp_path, "MaxPool", [x], [(np.float32, (2, 3, 2, 2)), (np.int64, (2, 3, 2, 2))],
                   attrs={"kernel_shape": [2, 2], "strides": [2, 2]})
    with pytest.raises(Refused, match="INT64"):
        run_kernel(driver, tmp_path, "Softmax", [x.astype(np.int64)], [(np.int64, x.shape)])


HOSTILE_WINDOWS = [  # (op, attrs, fragment): values a flipped bit of a .om gives; each overflowed or divided by 0
    ("Conv", {"auto_pad": "SAME_UPPER", "strides": [0, 1]}, r"strides \[0, 1\] must be in \[1, 2\^31\]"),
    ("Conv", {"dilations": [1 << 62, 1]}, r"dilations \[4611686018427387904, 1\]"),
    ("Conv", {"pads": [0, 1 << 62, 0, 0]}, r"pads \[0, 4611686018427387904, 0, 0\]"),
    ("MaxPool", {"kernel_shape": [2, 2], "dilations": [1, 1 << 62]}, r"dilations \[1, 4611686018427387904\]"),
    ("AveragePool", {"kernel_shape": [2, 2], "auto_pad": "SAME_LOWER", "strides": [1, 0]}, r"strides \[1, 0\]"),
    ("ConvTranspose", {"strides": [1 << 62, 1]}, r"strides \[4611686018427387904, 1\]"),
]


@pytest.mark.parametrize(("op", "attrs", "fragment"), HOSTILE_WINDOWS)
def test_window_attributes_out_of_range_are_refused(driver: Driver, tmp_path: Path, op: str, attrs: dict,
                                                    fragment: str) -> None:
    """Checked before any arithmetic on them (issue 13, item 5): a refusal naming the attribute and its values."""
    x = np.ones((1, 2, 4, 4), np.float32)
    inputs = [x] if "Pool" in op else [x, np.ones((2, 2, 3, 3), np.float32)]
    with pytest.raises(Refused, match=fragment):
        run_kernel(driver, tmp_path, op, inputs, [(np.float32, (1, 2, 4, 4))], attrs=attrs)
