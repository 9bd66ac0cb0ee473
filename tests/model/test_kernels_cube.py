"""MatMul, Gemm and Conv kernels (csrc/kernels/matmul.cpp, conv.cpp) through the kernel driver, against
numpy and onnxruntime: batching and broadcasting, transposes, groups/depthwise/dilation/pads/strides,
fused bias and activations, float16 storage and ROUND_INPUTS_FP16."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from kernel_harness import Driver, Refused, run_kernel
from onnx import TensorProto, helper

RNG = np.random.default_rng(11)


def ort_conv(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, op: str = "Conv", **attrs) -> np.ndarray:
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)]
    inits = [onnx.numpy_helper.from_array(w, "w")]
    names = ["x", "w"]
    if b is not None:
        inits.append(onnx.numpy_helper.from_array(b, "b"))
        names.append("b")
    node = helper.make_node(op, names, ["y"], **attrs)
    graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {"x": x})[0]


@pytest.mark.parametrize(("a", "b"), [((5, 7), (7, 3)), ((2, 3, 5, 7), (7, 4)), ((2, 1, 5, 7), (3, 7, 4)),
                                      ((7,), (7, 4)), ((3, 5, 7), (7,)), ((4, 6, 0), (0, 3)), ((1, 64, 96), (96, 80))])
def test_matmul(driver: Driver, tmp_path: Path, a: tuple, b: tuple) -> None:
    x, y = RNG.standard_normal(a).astype(np.float32), RNG.standard_normal(b).astype(np.float32)
    want = np.matmul(x, y)
    got = run_kernel(driver, tmp_path, "MatMul", [x, y], [(np.float32, want.shape)])[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_matmul_fused_bias_activation(driver: Driver, tmp_path: Path) -> None:
    x, y = RNG.standard_normal((2, 6, 16)).astype(np.float32), RNG.standard_normal((16, 10)).astype(np.float32)
    bias = RNG.standard_normal(10).astype(np.float32)
    got = run_kernel(driver, tmp_path, "MatMul", [x, y, bias], [(np.float32, (2, 6, 10))],
                     attrs={"fused_bias": 1, "activation": "Relu"})[0]
    np.testing.assert_allclose(got, np.maximum(x @ y + bias, 0), rtol=1e-4, atol=1e-5)


def test_matmul_fp16_storage_and_rounding(driver: Driver, tmp_path: Path) -> None:
    x, y = RNG.standard_normal((8, 32)).astype(np.float16), RNG.standard_normal((32, 8)).astype(np.float16)
    got = run_kernel(driver, tmp_path / "h", "MatMul", [x, y], [(np.float16, (8, 8))])[0]
    np.testing.assert_allclose(got.astype(np.float32), (x.astype(np.float32) @ y.astype(np.float32)), rtol=2e-3, atol=2e-2)
    xf, yf = RNG.standard_normal((8, 32)).astype(np.float32), RNG.standard_normal((32, 8)).astype(np.float32)
    got = run_kernel(driver, tmp_path / "r", "MatMul", [xf, yf], [(np.float32, (8, 8))], flags=2)[0]
    want = xf.astype(np.float16).astype(np.float32) @ yf.astype(np.float16).astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("ta", "tb"), [(0, 0), (1, 0), (0, 1), (1, 1)])
@pytest.mark.parametrize("c_shape", [None, (6,), (4, 1), (4, 6), ()])
def test_gemm(driver: Driver, tmp_path: Path, ta: int, tb: int, c_shape: tuple | None) -> None:
    a = RNG.standard_normal((9, 4) if ta else (4, 9)).astype(np.float32)
    b = RNG.standard_normal((6, 9) if tb else (9, 6)).astype(np.float32)
    c = None if c_shape is None else RNG.standard_normal(c_shape).astype(np.float32)
    inputs = [a, b] + ([c] if c is not None else [])
    got = run_kernel(driver, tmp_path, "Gemm", inputs, [(np.float32, (4, 6))],
                     attrs={"alpha": 0.5, "beta": 2.0, "transA": ta, "transB": tb, "activation": "LeakyRelu",
                            "activation_alpha": 0.1})[0]
    want = 0.5 * (a.T if ta else a) @ (b.T if tb else b) + (0 if c is None else 2.0 * c)
    want = np.where(want >= 0, want, 0.1 * want)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


CONVS = [
    {"x": (2, 3, 11, 13), "w": (8, 3, 3, 3), "pads": [1, 1, 1, 1], "strides": [1, 1]},
    {"x": (1, 4, 12, 12), "w": (6, 2, 3, 3), "group": 2, "pads": [0, 1, 2, 1], "strides": [2, 2]},
    {"x": (1, 8, 10, 9), "w": (8, 1, 3, 3), "group": 8, "pads": [1, 1, 1, 1], "strides": [2, 1]},
    {"x": (2, 6, 9, 9), "w": (6, 1, 5, 3), "group": 6, "pads": [2, 0, 1, 1], "dilations": [1, 2]},
    {"x": (1, 5, 7, 7), "w": (4, 5, 1, 1)},
    {"x": (1, 3, 15, 15), "w": (4, 3, 3, 3), "dilations": [2, 2], "pads": [2, 2, 2, 2], "strides": [3, 2]},
    {"x": (2, 4, 20), "w": (5, 4, 3), "pads": [1, 1], "strides": [2]},
    # Few input channels (stem_conv.h): output channels past whole tiles of 4, asymmetric pads, strides 1 and 2
    # per axis, rows wider than one step of every variant's loop (64 columns with AVX-512).
    {"x": (2, 3, 19, 23), "w": (10, 3, 7, 7), "pads": [3, 3, 3, 3], "strides": [2, 2]},
    {"x": (1, 1, 9, 40), "w": (5, 1, 3, 5), "pads": [0, 2, 1, 0], "strides": [1, 2]},
    {"x": (1, 4, 8, 8), "w": (3, 4, 2, 2), "strides": [2, 2]},
    {"x": (1, 2, 5, 150), "w": (6, 2, 3, 3), "pads": [1, 1, 1, 1], "strides": [2, 1]},
]


@pytest.mark.parametrize("case", range(len(CONVS)))
@pytest.mark.parametrize("bias", [False, True])
def test_conv(driver: Driver, tmp_path: Path, case: int, bias: bool) -> None:
    spec = dict(CONVS[case])
    x = RNG.standard_normal(spec.pop("x")).astype(np.float32)
    w = RNG.standard_normal(spec.pop("w")).astype(np.float32)
    b = RNG.standard_normal(w.shape[0]).astype(np.float32) if bias else None
    want = ort_conv(x, w, b, **spec)
    inputs = [x, w] + ([b] if b is not None else [])
    got = run_kernel(driver, tmp_path, "Conv", inputs, [(np.float32, want.shape)], attrs=spec, constant=(1,))[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("activation", ["Relu", "Clip", "Sigmoid", "Tanh", "Gelu", "Silu", "HardSwish",
                                        "HardSigmoid", "LeakyRelu", "Elu"])
def test_conv_epilogue(driver: Driver, tmp_path: Path, activation: str) -> None:
    x = RNG.standard_normal((1, 3, 8, 8)).astype(np.float32)
    w = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
    b = RNG.standard_normal(4).astype(np.float32)
    attrs = {"pads": [1, 1, 1, 1], "activation": activation}
    y = ort_conv(x, w, b, pads=[1, 1, 1, 1]).astype(np.float64)
    ref = {"Relu": np.maximum(y, 0), "Clip": np.clip(y, 0, 6), "Sigmoid": 1 / (1 + np.exp(-y)), "Tanh": np.tanh(y),
           "Silu": y / (1 + np.exp(-y)), "HardSwish": y * np.clip(y / 6 + 0.5, 0, 1),
           "HardSigmoid": np.clip(0.2 * y + 0.5, 0, 1), "LeakyRelu": np.where(y >= 0, y, 0.01 * y),
           "Elu": np.where(y >= 0, y, np.exp(y) - 1)}
    if activation == "Clip":
        attrs.update(activation_alpha=0.0, activation_beta=6.0)
    if activation == "Gelu":
        import math
        want = 0.5 * y * (1 + np.vectorize(math.erf)(y / np.sqrt(2)))
    else:
        want = ref[activation]
    got = run_kernel(driver, tmp_path, "Conv", [x, w, b], [(np.float32, y.shape)], attrs=attrs)[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_conv_fp16(driver: Driver, tmp_path: Path) -> None:
    x = RNG.standard_normal((1, 4, 9, 9)).astype(np.float16)
    w = RNG.standard_normal((4, 4, 3, 3)).astype(np.float16)
    want = ort_conv(x.astype(np.float32), w.astype(np.float32), None)
    got = run_kernel(driver, tmp_path, "Conv", [x, w], [(np.float16, want.shape)])[0]
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=3e-3, atol=3e-2)


def half(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float16).astype(np.float32)


@pytest.mark.parametrize("case", ["winograd", "pointwise", "strided", "depthwise", "matmul", "gemm", "transpose"])
def test_rounding_inputs_to_fp16_with_constant_weights(driver: Driver, tmp_path: Path, case: str) -> None:
    """ROUND_INPUTS_FP16 (flags 2) with constant fp32 weights that were not rounded: the kernel rounds them once
    at build and keeps its fast paths (Winograd, packed products), matching the product of rounded operands."""
    x = RNG.standard_normal((1, 32, 10, 10)).astype(np.float32)
    attrs: dict = {}
    if case in ("matmul", "gemm"):
        a, w = RNG.standard_normal((12, 40)).astype(np.float32), RNG.standard_normal((40, 24)).astype(np.float32)
        want = half(a) @ half(w)
        got = run_kernel(driver, tmp_path, "Gemm" if case == "gemm" else "MatMul", [a, w],
                         [(np.float32, want.shape)], flags=2, constant=(1,))[0]
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
        return
    if case == "transpose":
        w = RNG.standard_normal((32, 8, 3, 3)).astype(np.float32)
        want = ort_conv(half(x), half(w), None, op="ConvTranspose", strides=[2, 2])
        got = run_kernel(driver, tmp_path, "ConvTranspose", [x, w], [(np.float32, want.shape)],
                         attrs={"strides": [2, 2]}, flags=2, constant=(1,))[0]
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
        return
    shape = {"winograd": (32, 32, 3, 3), "pointwise": (48, 32, 1, 1), "strided": (16, 32, 3, 3),
             "depthwise": (32, 1, 3, 3)}[case]
    w = RNG.standard_normal(shape).astype(np.float32)
    attrs = {"pads": [1, 1, 1, 1]} if shape[2] == 3 else {}
    attrs.update({"strides": [2, 2]} if case == "strided" else {}, **({"group": 32} if case == "depthwise" else {}))
    want = ort_conv(half(x), half(w), None, **attrs)
    got = run_kernel(driver, tmp_path, "Conv", [x, w], [(np.float32, want.shape)], attrs=attrs, flags=2,
                     constant=(1,))[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_refusals(driver: Driver, tmp_path: Path) -> None:
    x = np.ones((2, 3), np.float32)
    with pytest.raises(Refused, match="inner dimensions"):
        run_kernel(driver, tmp_path, "MatMul", [x, np.ones((4, 2), np.float32)], [(np.float32, (2, 2))])
    with pytest.raises(Refused, match="INT64"):
        run_kernel(driver, tmp_path, "MatMul", [x.astype(np.int64), np.ones((3, 2), np.int64)], [(np.int64, (2, 2))])
    with pytest.raises(Refused, match="activation='Swish'"):
        run_kernel(driver, tmp_path, "Gemm", [x, np.ones((3, 2), np.float32)], [(np.float32, (2, 2))],
                   attrs={"activation": "Swish"})
    with pytest.raises(Refused, match="2-D convolutions"):
        run_kernel(driver, tmp_path, "Conv", [np.ones((1, 1, 2, 2, 2), np.float32), np.ones((1, 1, 1, 1, 1), np.float32)],
                   [(np.float32, (1, 1, 2, 2, 2))])
    with pytest.raises(Refused, match="group 2"):
        run_kernel(driver, tmp_path, "Conv", [np.ones((1, 3, 4, 4), np.float32), np.ones((2, 3, 1, 1), np.float32)],
                   [(np.float32, (1, 2, 4, 4))], attrs={"group": 2})


CONV_TRANSPOSES = [
    {"x": (1, 4, 5, 5), "w": (4, 3, 3, 3), "strides": [2, 2], "pads": [1, 1, 1, 1], "output_padding": [1, 1]},
    {"x": (2, 4, 4, 3), "w": (4, 2, 2, 3), "group": 2, "strides": [2, 1], "dilations": [1, 2], "pads": [0, 1, 0, 0]},
    {"x": (1, 3, 7), "w": (3, 2, 4), "strides": [3], "pads": [1, 2]},
]


@pytest.mark.parametrize("case", range(len(CONV_TRANSPOSES)))
def test_conv_transpose(driver: Driver, tmp_path: Path, case: int) -> None:
    spec = dict(CONV_TRANSPOSES[case])
    x = RNG.standard_normal(spec.pop("x")).astype(np.float32)
    w = RNG.standard_normal(spec.pop("w")).astype(np.float32)
    b = RNG.standard_normal(w.shape[1] * spec.get("group", 1)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], **spec)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)], [onnx.ValueInfoProto(name="y")],
        [onnx.numpy_helper.from_array(w, "w"), onnx.numpy_helper.from_array(b, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    got = run_kernel(driver, tmp_path, "ConvTranspose", [x, w, b], [(np.float32, want.shape)], attrs=spec)[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
