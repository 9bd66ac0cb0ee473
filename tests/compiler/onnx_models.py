"""Compiler test helpers: ONNX model builders (onnx.helper, random weights from fixed seeds, small sizes)
shared by the frontend, passes and backend tests, and helpers to run models in onnxruntime.

Builders return an onnx.ModelProto: `resnet_block` (Conv -> unfolded BatchNormalization -> Relu, residual Add,
MaxPool, GlobalAveragePool, Flatten, Gemm), `mobilenet_block` (depthwise Conv, Clip as Relu6, HardSwish),
`bert_layer` (MatMul+Add projections, Reshape/Transpose attention with Softmax, LayerNormalization or its
ReduceMean/Sub/Pow/Sqrt/Div decomposition, Gelu in Erf form), `inception_block` (4 branches concatenated) and
`shape_arith_model` (Shape -> Gather -> Unsqueeze -> Concat -> Reshape as exporters emit). `ModelBuilder`
writes ops in the form of the chosen opset (axes as attribute or input) so the same model exists at 11..21.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

Dim = Any  # int or str (a symbolic dim)


class ModelBuilder:
    """Builds an ONNX graph node by node; `weight` makes seeded random initializers."""

    def __init__(self, opset: int = 17, seed: int = 0, name: str = "model") -> None:
        self.opset, self.name = opset, name
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.inputs: list[onnx.ValueInfoProto] = []
        self._ids = itertools.count()

    def input(self, name: str, shape: list[Dim], elem: int = TensorProto.FLOAT) -> str:
        self.inputs.append(helper.make_tensor_value_info(name, elem, shape))
        return name

    def const(self, array: Any, name: str | None = None) -> str:
        name = name or f"c{next(self._ids)}"
        self.initializers.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def weight(self, *shape: int, scale: float = 0.3, positive: bool = False) -> str:
        data = self.rng.standard_normal(shape).astype(np.float32) * scale
        return self.const(np.abs(data) + 0.5 if positive else data)

    def node(self, op: str, inputs: list[str], outputs: int = 1, **attrs: Any) -> Any:
        index = next(self._ids)
        names = [f"{op.lower()}{index}_{i}" for i in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, names, name=f"{op}_{index}", **attrs))
        return names[0] if outputs == 1 else names

    # ---- opset-dependent forms ------------------------------------------------------------------------

    def axes_op(self, op: str, x: str, axes: list[int], since: int, **attrs: Any) -> str:
        if self.opset >= since:
            return self.node(op, [x, self.const(np.array(axes, np.int64))], **attrs)
        return self.node(op, [x], axes=axes, **attrs)

    def unsqueeze(self, x: str, axes: list[int]) -> str:
        return self.axes_op("Unsqueeze", x, axes, 13)

    def reduce_mean(self, x: str, axes: list[int], keepdims: int = 1) -> str:
        return self.axes_op("ReduceMean", x, axes, 18, keepdims=keepdims)

    # ---- layers ---------------------------------------------------------------------------------------

    def conv(self, x: str, cin: int, cout: int, k: int, *, stride: int = 1, group: int = 1, bias: bool = True) -> str:
        inputs = [x, self.weight(cout, cin // group, k, k)] + ([self.weight(cout)] if bias else [])
        return self.node("Conv", inputs, kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4,
                         group=group)

    def batch_norm(self, x: str, channels: int) -> str:
        return self.node("BatchNormalization", [x, self.weight(channels, positive=True), self.weight(channels),
                                                self.weight(channels), self.weight(channels, positive=True)],
                         epsilon=1e-5)

    def linear(self, x: str, din: int, dout: int) -> str:
        return self.node("Add", [self.node("MatMul", [x, self.weight(din, dout)]), self.weight(dout)])

    def layer_norm(self, x: str, hidden: int, decomposed: bool) -> str:
        scale, bias = self.weight(hidden, positive=True), self.weight(hidden)
        if not decomposed:
            return self.node("LayerNormalization", [x, scale, bias], axis=-1, epsilon=1e-5)
        centred = self.node("Sub", [x, self.reduce_mean(x, [-1])])
        var = self.reduce_mean(self.node("Pow", [centred, self.const(np.array(2.0, np.float32))]), [-1])
        std = self.node("Sqrt", [self.node("Add", [var, self.const(np.array(1e-5, np.float32))])])
        return self.node("Add", [self.node("Mul", [self.node("Div", [centred, std]), scale]), bias])

    def gelu_erf(self, x: str) -> str:
        erf = self.node("Erf", [self.node("Div", [x, self.const(np.array(np.sqrt(2.0), np.float32))])])
        one_plus = self.node("Add", [erf, self.const(np.array(1.0, np.float32))])
        return self.node("Mul", [self.node("Mul", [x, one_plus]), self.const(np.array(0.5, np.float32))])

    def model(self, outputs: list[str], shapes: dict[str, list[Dim]] | None = None) -> onnx.ModelProto:
        """The model; output types come from onnx.shape_inference, or from `shapes` (float) where it
        cannot infer them (older opsets do not propagate shape arithmetic)."""
        graph = helper.make_graph(self.nodes, self.name, self.inputs,
                                  [onnx.ValueInfoProto(name=o) for o in outputs], self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)])
        model.ir_version = min(model.ir_version, 10)
        model = onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
        for out in model.graph.output:
            if out.name in (shapes or {}) and not out.type.tensor_type.HasField("shape"):
                out.CopyFrom(helper.make_tensor_value_info(out.name, TensorProto.FLOAT, shapes[out.name]))  # type: ignore[index]
        return model


# ---- the model builders ------------------------------------------------------------------------------

def resnet_block(opset: int = 17, *, batch: Dim = 1, channels: int = 8, size: int = 16, seed: int = 0) -> onnx.ModelProto:
    b = ModelBuilder(opset, seed, "resnet_block")
    x = b.input("image", [batch, 3, size, size])
    stem = b.node("Relu", [b.batch_norm(b.conv(x, 3, channels, 3), channels)])
    pooled = b.node("MaxPool", [stem], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    branch = b.node("Relu", [b.batch_norm(b.conv(pooled, channels, channels, 3, bias=False), channels)])
    branch = b.batch_norm(b.conv(branch, channels, channels, 3, bias=False), channels)
    merged = b.node("Relu", [b.node("Add", [branch, pooled])])
    flat = b.node("Flatten", [b.node("GlobalAveragePool", [merged])], axis=1)
    logits = b.node("Gemm", [flat, b.weight(10, channels), b.weight(10)], transB=1)
    return b.model([logits])


def mobilenet_block(opset: int = 17, *, batch: Dim = 1, channels: int = 8, size: int = 16, seed: int = 1) -> onnx.ModelProto:
    b = ModelBuilder(opset, seed, "mobilenet_block")
    x = b.input("image", [batch, 3, size, size])
    zero, six = b.const(np.array(0.0, np.float32)), b.const(np.array(6.0, np.float32))
    stem = b.node("Clip", [b.batch_norm(b.conv(x, 3, channels, 3, stride=2), channels), zero, six])
    expanded = b.node("Clip", [b.conv(stem, channels, 2 * channels, 1), zero, six])
    depthwise = b.conv(expanded, 2 * channels, 2 * channels, 3, group=2 * channels)
    activated = b.node("HardSwish", [depthwise]) if opset >= 14 else \
        b.node("Mul", [depthwise, b.node("HardSigmoid", [depthwise], alpha=1 / 6, beta=0.5)])
    projected = b.batch_norm(b.conv(activated, 2 * channels, channels, 1), channels)
    out = b.node("Add", [projected, stem])
    return b.model([b.node("GlobalAveragePool", [out])])


def bert_layer(opset: int = 17, *, batch: Dim = 2, seq: int = 8, hidden: int = 32, heads: int = 4,
               decomposed_layernorm: bool = False, seed: int = 2) -> onnx.ModelProto:
    if opset < 17:
        decomposed_layernorm = True
    b = ModelBuilder(opset, seed, "bert_layer")
    x = b.input("hidden_states", [batch, seq, hidden])
    head_dim = hidden // heads
    split_heads = b.const(np.array([0, 0, heads, head_dim], np.int64))

    def project(perm: list[int]) -> str:
        return b.node("Transpose", [b.node("Reshape", [b.linear(x, hidden, hidden), split_heads])], perm=perm)

    q, k, v = project([0, 2, 1, 3]), project([0, 2, 3, 1]), project([0, 2, 1, 3])
    scores = b.node("Div", [b.node("MatMul", [q, k]), b.const(np.array(np.sqrt(head_dim), np.float32))])
    context = b.node("MatMul", [b.node("Softmax", [scores], axis=-1 if opset >= 13 else 3), v])
    merged = b.node("Reshape", [b.node("Transpose", [context], perm=[0, 2, 1, 3]),
                                b.const(np.array([0, 0, hidden], np.int64))])
    attn = b.layer_norm(b.node("Add", [b.linear(merged, hidden, hidden), x]), hidden, decomposed_layernorm)
    ffn = b.linear(b.gelu_erf(b.linear(attn, hidden, 2 * hidden)), 2 * hidden, hidden)
    return b.model([b.layer_norm(b.node("Add", [ffn, attn]), hidden, decomposed_layernorm)])


def inception_block(opset: int = 17, *, batch: Dim = 1, channels: int = 8, size: int = 12, seed: int = 3) -> onnx.ModelProto:
    b = ModelBuilder(opset, seed, "inception_block")
    x = b.input("image", [batch, channels, size, size])
    b1 = b.node("Relu", [b.conv(x, channels, 4, 1)])
    b2 = b.node("Relu", [b.conv(b.node("Relu", [b.conv(x, channels, 4, 1)]), 4, 6, 3)])
    b3 = b.node("Relu", [b.conv(b.conv(x, channels, 2, 1), 2, 4, 5)])
    pool = b.node("MaxPool", [x], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1])
    b4 = b.node("Relu", [b.conv(pool, channels, 4, 1)])
    return b.model([b.node("Concat", [b1, b2, b3, b4], axis=1)])


def shape_arith_model(opset: int = 17, *, batch: Dim = "N", channels: int = 4, size: int = 6,
                      seed: int = 4) -> onnx.ModelProto:
    b = ModelBuilder(opset, seed, "shape_arith")
    x = b.input("x", [batch, channels, size, size])
    act = b.node("Relu", [x])
    n = b.unsqueeze(b.node("Gather", [b.node("Shape", [act]), b.const(np.array(0, np.int64))], axis=0), [0])
    target = b.node("Concat", [n, b.const(np.array([-1], np.int64))], axis=0)
    flat = b.node("Reshape", [act, target])
    logits = b.node("Gemm", [flat, b.weight(channels * size * size, 5), b.weight(5)])
    return b.model([logits], {logits: [batch, 5]})


MODEL_BUILDERS: dict[str, Callable[..., onnx.ModelProto]] = {
    "resnet": resnet_block, "mobilenet": mobilenet_block, "bert": bert_layer,
    "bert_decomposed": lambda **kw: bert_layer(decomposed_layernorm=True, **kw),
    "inception": inception_block, "shape_arith": shape_arith_model,
}


# ---- running models ----------------------------------------------------------------------------------

_ORT_TYPES = {"tensor(float)": np.float32, "tensor(float16)": np.float16, "tensor(int64)": np.int64,
              "tensor(int32)": np.int32, "tensor(bool)": np.bool_, "tensor(uint8)": np.uint8,
              "tensor(int8)": np.int8, "tensor(double)": np.float64}


def ort_session(model: onnx.ModelProto) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def random_feeds(model: onnx.ModelProto, seed: int = 0, symbolic: int = 2) -> dict[str, np.ndarray]:
    """Random inputs for every graph input (symbolic dims take the size `symbolic`)."""
    rng = np.random.default_rng(seed)
    feeds = {}
    for info in ort_session(model).get_inputs():
        shape = [d if isinstance(d, int) else symbolic for d in info.shape]
        dtype = _ORT_TYPES[info.type]
        if np.issubdtype(dtype, np.floating):
            feeds[info.name] = rng.standard_normal(shape).astype(dtype)
        elif dtype is np.bool_:
            feeds[info.name] = rng.random(shape) > 0.5
        else:
            feeds[info.name] = rng.integers(0, 3, shape).astype(dtype)
    return feeds


def run_ort(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    return ort_session(model).run(None, feeds)
