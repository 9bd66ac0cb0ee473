"""ONNX models generated for the backend tests: ResNet-style (unfolded BatchNorm), Inception-style
multi-branch block, MobileNet-style (depthwise), a BERT-style encoder layer."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

_rng = np.random.default_rng(0)


class _Builder:
    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.count = 0

    def name(self, base: str) -> str:
        self.count += 1
        return f"{base}_{self.count}"

    def const(self, array: np.ndarray, base: str = "w") -> str:
        name = self.name(base)
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(self, op_type: str, inputs: list[str], **attrs: object) -> str:
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=self.name(op_type), **attrs))
        return out

    def conv_bn_relu(self, x: str, cin: int, cout: int, *, k: int = 3, stride: int = 1, group: int = 1,
                     relu: bool = True) -> str:
        w = self.const(_rng.standard_normal((cout, cin // group, k, k)).astype(np.float32) * 0.1)
        y = self.op("Conv", [x, w], kernel_shape=[k, k], pads=[k // 2] * 4, strides=[stride] * 2, group=group)
        bn = [self.const(v.astype(np.float32)) for v in (_rng.random(cout) + 0.5, _rng.standard_normal(cout) * 0.1,
                                                         _rng.standard_normal(cout) * 0.1, _rng.random(cout) + 0.5)]
        y = self.op("BatchNormalization", [y, *bn], epsilon=1e-5)
        return self.op("Relu", [y]) if relu else y

    def model(self, inputs: list[tuple[str, list[int]]], outputs: list[str], name: str) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes, name,
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
            [helper.make_tensor_value_info(o, TensorProto.FLOAT, []) for o in outputs], self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        return model


def resnet(blocks: int = 3, channels: int = 16, size: int = 32, batch: int | str = 1) -> onnx.ModelProto:
    b = _Builder()
    x = b.conv_bn_relu("input", 3, channels)
    for i in range(blocks):
        stride = 2 if i == blocks - 1 else 1
        y = b.conv_bn_relu(x, channels, channels, stride=stride)
        y = b.conv_bn_relu(y, channels, channels, relu=False)
        shortcut = b.conv_bn_relu(x, channels, channels, k=1, stride=stride, relu=False) if stride != 1 else x
        x = b.op("Relu", [b.op("Add", [y, shortcut])])
    pooled = b.op("Flatten", [b.op("GlobalAveragePool", [x])])
    fc = b.op("Gemm", [pooled, b.const(_rng.standard_normal((10, channels)).astype(np.float32)),
                       b.const(np.zeros(10, np.float32))], transB=1)
    return b.model([("input", [batch, 3, size, size])], [fc], "resnet")


def inception(channels: int = 16, size: int = 16) -> onnx.ModelProto:
    b = _Builder()
    x = b.conv_bn_relu("input", 3, channels)
    branches = [b.conv_bn_relu(x, channels, channels, k=1),
                b.conv_bn_relu(b.conv_bn_relu(x, channels, channels, k=1), channels, channels, k=3),
                b.conv_bn_relu(b.conv_bn_relu(x, channels, channels, k=1), channels, channels, k=5),
                b.conv_bn_relu(b.op("MaxPool", [x], kernel_shape=[3, 3], pads=[1, 1, 1, 1]), channels, channels, k=1)]
    y = b.op("Concat", branches, axis=1)
    return b.model([("input", [1, 3, size, size])], [y], "inception")


def mobilenet(channels: int = 16, size: int = 32) -> onnx.ModelProto:
    b = _Builder()
    x = b.conv_bn_relu("input", 3, channels, stride=2)
    for _ in range(3):
        x = b.conv_bn_relu(x, channels, channels, group=channels)
        x = b.conv_bn_relu(x, channels, channels, k=1)
    return b.model([("input", [1, 3, size, size])], [b.op("GlobalAveragePool", [x])], "mobilenet")


def bert(hidden: int = 32, seq: int = 8, heads: int = 2) -> onnx.ModelProto:
    b = _Builder()
    head = hidden // heads

    def dense(x: str, n_in: int, n_out: int) -> str:
        w = b.const(_rng.standard_normal((n_in, n_out)).astype(np.float32) * 0.1)
        return b.op("Add", [b.op("MatMul", [x, w]), b.const(np.zeros(n_out, np.float32), "bias")])

    def split_heads(x: str) -> str:
        r = b.op("Reshape", [x, b.const(np.array([1, seq, heads, head], np.int64), "shape")])
        return b.op("Transpose", [r], perm=[0, 2, 1, 3])

    x = "input"
    q, k, v = (split_heads(dense(x, hidden, hidden)) for _ in range(3))
    scores = b.op("Mul", [b.op("MatMul", [q, b.op("Transpose", [k], perm=[0, 1, 3, 2])]),
                          b.const(np.array(1 / np.sqrt(head), np.float32), "scale")])
    ctx = b.op("MatMul", [b.op("Softmax", [scores], axis=-1), v])
    ctx = b.op("Reshape", [b.op("Transpose", [ctx], perm=[0, 2, 1, 3]),
                           b.const(np.array([1, seq, hidden], np.int64), "shape")])
    x1 = b.op("Add", [dense(ctx, hidden, hidden), x])
    x1 = b.op("LayerNormalization", [x1, b.const(np.ones(hidden, np.float32)), b.const(np.zeros(hidden, np.float32))],
              axis=-1)
    ff = dense(b.op("Relu", [dense(x1, hidden, 4 * hidden)]), 4 * hidden, hidden)
    out = b.op("LayerNormalization", [b.op("Add", [ff, x1]), b.const(np.ones(hidden, np.float32)),
                                      b.const(np.zeros(hidden, np.float32))], axis=-1)
    return b.model([("input", [1, seq, hidden])], [out], "bert")


MODELS = {"resnet": resnet, "inception": inception, "mobilenet": mobilenet, "bert": bert}
