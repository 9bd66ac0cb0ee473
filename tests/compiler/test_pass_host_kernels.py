"""Host kernels against onnxruntime: one single-node model per case, imported into the IR (so kernels see
the IR form of the attributes), run by host_kernels.run_graph and by onnxruntime."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx import helper, numpy_helper

from ascendsim.compiler import host_kernels
from ascendsim.compiler.onnx_import import import_onnx
from onnx_models import run_ort

rng = np.random.default_rng(7)
F = rng.standard_normal((2, 3, 4)).astype(np.float32)
P = (np.abs(F) + 0.1).astype(np.float32)
I = np.array([[7, -7, 5], [-5, 9, 0]], np.int64)
J = np.array([[2, 2, -3], [3, -4, 1]], np.int64)
IMG = rng.standard_normal((1, 4, 7, 7)).astype(np.float32)
i64 = lambda *v: np.array(v, np.int64)
f32 = lambda *v: np.array(v, np.float32)

CASES: list[tuple[str, list[np.ndarray], dict[str, Any], int]] = [
    ("Add", [F, F[0]], {}, 17), ("Sub", [F, f32(1.5)], {}, 17), ("Mul", [F, F], {}, 17), ("Div", [F, P], {}, 17),
    ("Div", [I, J], {}, 17), ("Mod", [I, J], {}, 17), ("Mod", [I, J], {"fmod": 1}, 17), ("Pow", [P, f32(1.5)], {}, 17),
    ("Equal", [I, J], {}, 17), ("Less", [F, f32(0)], {}, 17), ("Where", [F > 0, F, P], {}, 17),
    ("Not", [F > 0], {}, 17), ("And", [F > 0, P > 0.5], {}, 17), ("Max", [F, P, f32(0.2)], {}, 17),
    ("Min", [F, P], {}, 17), ("Or", [F > 0, P > 0.5], {}, 17),
    ("Sqrt", [P], {}, 17), ("Exp", [F], {}, 17), ("Log", [P], {}, 17), ("Erf", [F], {}, 17), ("Relu", [F], {}, 17),
    ("Sigmoid", [F], {}, 17), ("Tanh", [F], {}, 17), ("LeakyRelu", [F], {"alpha": 0.2}, 17),
    ("Elu", [F], {"alpha": 0.7}, 17), ("HardSigmoid", [F], {"alpha": 0.3, "beta": 0.4}, 17),
    ("HardSwish", [F], {}, 17), ("Softplus", [F], {}, 17), ("Neg", [F], {}, 17), ("Abs", [F], {}, 17),
    ("Reciprocal", [P], {}, 17), ("Floor", [F], {}, 17), ("Sign", [F], {}, 17), ("Gelu", [F], {}, 20),
    ("Clip", [F, f32(-0.5), f32(0.5)], {}, 17), ("Cast", [F], {"to": 7}, 17), ("Cast", [I], {"to": 1}, 17),
    ("Shape", [F], {}, 17), ("Shape", [F], {"start": 1, "end": -1}, 17), ("Round", [F * 3], {}, 17), ("Selu", [F], {}, 17), ("Softsign", [F], {}, 17),
    ("Gather", [F, i64(-1, 0)], {"axis": 1}, 17), ("Gather", [I, np.array(1, np.int64)], {"axis": 0}, 17),
    ("Unsqueeze", [F, i64(0, 4)], {}, 17), ("Squeeze", [F[:, :1], i64(1)], {}, 17),
    ("Concat", [F, P], {"axis": 2}, 17), ("Slice", [F, i64(0, -1), i64(9, 0), i64(1, 2), i64(1, -1)], {}, 17),
    ("Reshape", [F, i64(0, -1)], {}, 17), ("Flatten", [F], {"axis": 2}, 17),
    ("Range", [np.array(1, np.int64), np.array(9, np.int64), np.array(3, np.int64)], {}, 17),
    ("ConstantOfShape", [i64(2, 3)], {"value": numpy_helper.from_array(f32(4.5))}, 17),
    ("Expand", [F[:, :1], i64(2, 3, 4)], {}, 17), ("Tile", [F, i64(1, 2, 1)], {}, 17),
    ("Transpose", [F], {"perm": [2, 0, 1]}, 17), ("Split", [F, i64(1, 3)], {"axis": 2}, 17),
    ("ReduceSum", [F, i64(1)], {"keepdims": 0}, 17), ("ReduceMean", [F], {"axes": [2]}, 17),
    ("ReduceMax", [F], {"axes": [0, 2], "keepdims": 1}, 17), ("Softmax", [F], {"axis": 1}, 17),
    ("LogSoftmax", [F], {"axis": -1}, 17), ("ReduceL2", [F], {"axes": [1]}, 17),
    ("ReduceLogSumExp", [F, i64(2)], {"keepdims": 0}, 18), ("ReduceSumSquare", [F], {"keepdims": 1}, 17),
    ("ArgMax", [F], {"axis": 1, "keepdims": 0}, 17), ("ArgMin", [I], {"axis": 1, "select_last_index": 1}, 17),
    ("GatherElements", [F, np.zeros((2, 3, 2), np.int64) - 1], {"axis": 2}, 17),
    ("Pad", [F, i64(0, 1, 0, 0, 2, 1)], {"mode": "constant"}, 17), ("Pad", [F, i64(0, 1, 2, 0, 1, 1)],
                                                                        {"mode": "reflect"}, 17),
    ("GlobalMaxPool", [IMG], {}, 17),
    ("MatMul", [F, P[0].T], {}, 17), ("Gemm", [F[0], P[1], f32(0.5)], {"transB": 1, "alpha": 0.5, "beta": 2.0}, 17),
    ("Conv", [IMG, rng.standard_normal((6, 2, 3, 3)).astype(np.float32), f32(*range(6))],
     {"pads": [1, 0, 2, 1], "strides": [2, 1], "dilations": [1, 2], "group": 2}, 17),
    ("BatchNormalization", [IMG, P[0, 0] + 0.5, F[0, 0], F[1, 0], P[1, 0]], {"epsilon": 1e-3}, 17),
    ("MaxPool", [IMG], {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}, 17),
    ("AveragePool", [IMG], {"kernel_shape": [3, 2], "pads": [1, 0, 1, 1]}, 17),
    ("AveragePool", [IMG], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "count_include_pad": 1}, 17),
    ("GlobalAveragePool", [IMG], {}, 17), ("LayerNormalization", [F, P[0, 0], F[0, 0]], {"axis": -1}, 17),
]


def _model(op: str, inputs: list[np.ndarray], attrs: dict[str, Any], opset: int) -> Any:
    first = inputs[0]
    elem = helper.np_dtype_to_tensor_dtype(first.dtype)
    x = helper.make_tensor_value_info("x", elem, list(first.shape))
    inits = [numpy_helper.from_array(a, f"c{i}") for i, a in enumerate(inputs[1:])]
    n_out = 2 if op == "Split" else 1
    outs = [f"y{i}" for i in range(n_out)]
    node = helper.make_node(op, ["x"] + [f"c{i}" for i in range(len(inputs) - 1)], outs, **attrs)
    graph = helper.make_graph([node], "case", [x], [helper.make_tensor_value_info(o, 0, None) for o in outs], inits)
    import onnx
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = min(model.ir_version, 10)
    return onnx.shape_inference.infer_shapes(model, strict_mode=True)


@pytest.mark.parametrize(("op", "inputs", "attrs", "opset"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_host_kernel_matches_onnxruntime(op: str, inputs: list[np.ndarray], attrs: dict[str, Any], opset: int) -> None:
    model = _model(op, inputs, attrs, opset)
    expected = run_ort(model, {"x": inputs[0]})
    got = host_kernels.run_graph(import_onnx(model), {"x": inputs[0]})
    for index, want in enumerate(expected):
        have = got[f"y{index}"]
        assert have.dtype == want.dtype and have.shape == want.shape, (have.dtype, have.shape, want.dtype, want.shape)
        np.testing.assert_allclose(have, want, rtol=1e-5, atol=1e-6)


def test_fused_elementwise_program() -> None:
    x, y = F, P
    program = [{"op": "Mul", "inputs": [0, 1]}, {"op": "Add", "inputs": [2, 0]}, {"op": "Relu", "inputs": [3]}]
    out = host_kernels.run("FusedElementwise", [x, y], {"program": program})[0]
    np.testing.assert_allclose(out, np.maximum(x * y + x, 0))


def test_epilogue_attributes() -> None:
    a, b, bias = F[0], P[1].T, f32(1, -2, 3)
    out = host_kernels.run("MatMul", [a, b, bias], {"fused_bias": 1, "activation": "Clip", "activation_alpha": 0.0,
                                                    "activation_beta": 1.0})[0]
    np.testing.assert_allclose(out, np.clip(a @ b + bias, 0, 1), rtol=1e-6)


@pytest.mark.parametrize(("op", "inputs", "attrs"), [
    ("Div", [I, np.zeros_like(J)], {}), ("Mod", [I, np.zeros_like(J)], {}), ("Gather", [F, i64(5)], {"axis": 0}),
    ("Range", [np.array(0), np.array(3), np.array(0)], {}), ("Conv", [F, F], {}),
])
def test_host_kernel_refuses(op: str, inputs: list[np.ndarray], attrs: dict[str, Any]) -> None:
    with pytest.raises(host_kernels.HostKernelError):
        host_kernels.run(op, inputs, attrs)
