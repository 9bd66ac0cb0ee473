"""Malformed and contradictory ONNX models for the atc fuzzer, generated from a seeded `random.Random`.

`generate(rng)` builds a model of 1-3 nodes, each from a TEMPLATE (a small valid use of a supported op: its
inputs, constants and attributes) or, one time in five, a random op type of the compiler's supported set with
random inputs; node outputs become graph outputs, a node's input is sometimes the previous node's output. Then
it applies 1-3 CORRUPTIONS, each one way a hostile or careless exporter gets a model wrong: attribute values of
the wrong value, type or length (extreme and negative ints, out-of-range axes, floats for ints, strings), too
few or too many inputs, graph input shapes with huge, zero or negative dims or another rank, wrong dtypes,
dangling input names, cycles, empty graphs, initializers whose data contradicts their dims or dtype, constant
values out of range (pads of 2^40, indices past the end, shapes of [2^31, 2^31], scales of 1e9 or NaN),
declared output shapes that contradict inference, another opset, another op type or domain, two nodes writing
one tensor. The model is returned serialized; it is never checked here (the compiler must do that).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

Spec = Any  # ("f", shape) a float graph input, ("b", shape) a bool one, or an np.ndarray constant
INTS = [0, 1, -1, 2, 3, -2, 5, 99, -99, 2**31 - 1, 2**31, -(2**31), 2**40, 2**62, 2**63 - 1, -(2**63)]
DTYPES = [TensorProto.FLOAT16, TensorProto.DOUBLE, TensorProto.INT8, TensorProto.INT32, TensorProto.INT64,
          TensorProto.UINT8, TensorProto.BOOL, TensorProto.STRING, TensorProto.COMPLEX64, TensorProto.BFLOAT16,
          TensorProto.UINT64, TensorProto.UNDEFINED]
OPSETS = [1, 6, 9, 11, 13, 15, 17, 18, 19, 21, 99]


def f(*shape: int) -> Spec:
    return ("f", shape)


def c(values: Any, dtype: Any = np.int64) -> np.ndarray:
    return np.array(values, dtype)


def w(*shape: int) -> np.ndarray:
    return np.full(shape, 0.5, np.float32)


# (op, inputs, attributes, number of outputs, opset)
TEMPLATES: list[tuple[str, list[Spec], dict[str, Any], int, int]] = [
    ("Conv", [f(1, 3, 8, 8), w(4, 3, 3, 3), w(4)], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1],
                                                    "strides": [1, 1], "dilations": [1, 1], "group": 1}, 1, 17),
    ("ConvTranspose", [f(1, 2, 4, 4), w(2, 3, 3, 3)], {"kernel_shape": [3, 3], "strides": [2, 2]}, 1, 17),
    ("Concat", [f(2, 3), f(2, 4)], {"axis": 1}, 1, 17),
    ("Pad", [f(2, 3), c([0, 1, 0, 1]), c(0.0, np.float32)], {"mode": "constant"}, 1, 18),
    ("MatMul", [f(2, 8), w(8, 4)], {}, 1, 17),
    ("Gemm", [f(2, 8), w(4, 8), w(4)], {"transB": 1, "alpha": 1.0}, 1, 17),
    ("Reshape", [f(2, 6), c([3, 4])], {}, 1, 17),
    ("Add", [f(2, 3, 4), f(3, 1)], {}, 1, 17),
    ("Mul", [f(2, 3), w(3)], {}, 1, 17),
    ("Relu", [f(2, 3)], {}, 1, 17),
    ("LeakyRelu", [f(2, 3)], {"alpha": 0.1}, 1, 17),
    ("MaxPool", [f(1, 2, 6, 6)], {"kernel_shape": [2, 2], "strides": [2, 2], "pads": [0, 0, 0, 0]}, 1, 17),
    ("AveragePool", [f(1, 2, 6, 6)], {"kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1]}, 1, 17),
    ("GlobalAveragePool", [f(1, 2, 6, 6)], {}, 1, 17),
    ("Softmax", [f(2, 5)], {"axis": -1}, 1, 17),
    ("Transpose", [f(2, 3, 4)], {"perm": [2, 0, 1]}, 1, 17),
    ("Split", [f(4, 6), c([3, 3])], {"axis": 1}, 2, 17),
    ("Slice", [f(4, 6), c([1]), c([3]), c([0]), c([1])], {}, 1, 17),
    ("Gather", [f(4, 6), c([0, 2])], {"axis": 0}, 1, 17),
    ("Resize", [f(1, 1, 4, 4), c([], np.float32), c([1, 1, 2, 2], np.float32)], {"mode": "nearest"}, 1, 17),
    ("ReduceMean", [f(2, 3, 4)], {"axes": [1], "keepdims": 1}, 1, 17),
    ("ReduceSum", [f(2, 3, 4), c([1])], {"keepdims": 0}, 1, 17),
    ("BatchNormalization", [f(1, 3, 4, 4), w(3), w(3), w(3), w(3)], {"epsilon": 1e-5}, 1, 17),
    ("LayerNormalization", [f(2, 4), w(4), w(4)], {"axis": -1, "epsilon": 1e-5}, 1, 17),
    ("Expand", [f(1, 3), c([2, 3])], {}, 1, 17),
    ("Tile", [f(2, 2), c([2, 1])], {}, 1, 17),
    ("ConstantOfShape", [c([2, 3])], {}, 1, 17),
    ("Cast", [f(2, 3)], {"to": TensorProto.INT64}, 1, 17),
    ("Squeeze", [f(1, 3, 1), c([0])], {}, 1, 17),
    ("Unsqueeze", [f(3, 4), c([1])], {}, 1, 17),
    ("Clip", [f(2, 3), c(0.0, np.float32), c(1.0, np.float32)], {}, 1, 17),
    ("Flatten", [f(2, 3, 4)], {"axis": 1}, 1, 17),
    ("Where", [("b", (2, 3)), f(2, 3), f(2, 3)], {}, 1, 17),
    ("TopK", [f(2, 6), c([3])], {"axis": -1}, 2, 17),
    ("DepthToSpace", [f(1, 4, 2, 2)], {"blocksize": 2}, 1, 17),
    ("InstanceNormalization", [f(1, 2, 3, 3), w(2), w(2)], {}, 1, 17),
    ("ArgMax", [f(2, 5)], {"axis": 1, "keepdims": 0}, 1, 17),
    ("Range", [c(0.0, np.float32), c(5.0, np.float32), c(1.0, np.float32)], {}, 1, 17),
    ("CumSum", [f(2, 5), c(1)], {}, 1, 17),
    ("Einsum", [f(2, 3), f(3, 4)], {"equation": "ij,jk->ik"}, 1, 17),
    ("IsInf", [f(2, 3)], {"detect_negative": 0}, 1, 17),
    ("GatherND", [f(3, 4), c([[0, 1], [2, 3]])], {"batch_dims": 0}, 1, 17),
    ("ScatterND", [f(4, 3), c([[1], [3]]), w(2, 3)], {"reduction": "add"}, 1, 17),
    ("ScatterElements", [f(3, 3), c([[1, 0], [2, 2]]), w(2, 2)], {"axis": 1}, 1, 17),
    ("OneHot", [c([0, 2, 1]), c(3), c([0.0, 1.0], np.float32)], {"axis": -1}, 1, 17),
    ("Trilu", [f(3, 4), c(1)], {"upper": 0}, 1, 17),
    ("GridSample", [f(1, 1, 4, 4), w(1, 2, 2, 2)], {"mode": "linear", "padding_mode": "border"}, 1, 20),
    ("LSTM", [f(3, 1, 2), w(1, 8, 2), w(1, 8, 2)], {"hidden_size": 2, "direction": "forward"}, 3, 17),
    ("QuantizeLinear", [f(2, 3), c(0.1, np.float32), c(0, np.uint8)], {"axis": 1}, 1, 17),
    ("DFT", [f(1, 4, 1)], {"axis": 1, "onesided": 1}, 1, 17),
    ("RoiAlign", [f(1, 1, 4, 4), w(2, 4), c([0, 0])], {"output_height": 2, "output_width": 2}, 1, 17),
    ("QLinearMatMul", [c([[1, 2], [3, 4]], np.uint8), c(0.1, np.float32), c(0, np.uint8), c([[1], [2]], np.uint8),
                       c(0.1, np.float32), c(0, np.uint8), c(0.2, np.float32), c(0, np.uint8)], {}, 1, 17),
]
ATTR_NAMES = ["axis", "axes", "perm", "pads", "kernel_shape", "strides", "dilations", "group", "to", "mode",
              "keepdims", "blocksize", "alpha", "epsilon", "transA", "transB", "split", "equation", "auto_pad",
              "batch_dims", "reduction", "upper", "hidden_size", "direction", "layout", "padding_mode",
              "output_height", "sampling_ratio", "onesided", "inverse", "dft_length", "block_size"]


def make_attribute(name: str, value: Any) -> onnx.AttributeProto:
    """helper.make_attribute, also for an empty list (an empty INTS)."""
    if isinstance(value, list) and not value:
        return helper.make_attribute(name, value, attr_type=onnx.AttributeProto.INTS)
    return helper.make_attribute(name, value)


class Builder:
    """The model under construction: nodes, graph inputs, initializers, outputs, opset."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.nodes: list[onnx.NodeProto] = []
        self.inputs: list[onnx.ValueInfoProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.outputs: list[onnx.ValueInfoProto] = []
        self.opset = 17
        self.names = 0

    def name(self, base: str) -> str:
        self.names += 1
        return f"{base}{self.names}"

    def value(self, spec: Spec) -> str:
        if isinstance(spec, np.ndarray):
            name = self.name("c")
            self.initializers.append(numpy_helper.from_array(spec, name))
        else:
            name = self.name("in")
            elem = TensorProto.BOOL if spec[0] == "b" else TensorProto.FLOAT
            self.inputs.append(helper.make_tensor_value_info(name, elem, list(spec[1])))
        return name

    def add(self, op: str, specs: list[Spec], attrs: dict[str, Any], outputs: int) -> None:
        names = [self.value(s) for s in specs]
        if self.nodes and names and self.rng.random() < 0.4:
            names[0] = self.nodes[-1].output[0]  # chain: shapes may well disagree
        outs = [self.name("out") for _ in range(outputs)]
        node = helper.make_node(op, names, outs, name=self.name(f"the_{op}_"))
        node.attribute.extend(make_attribute(k, v) for k, v in attrs.items())
        self.nodes.append(node)
        self.outputs += [onnx.ValueInfoProto(name=o) for o in outs]

    def model(self) -> onnx.ModelProto:
        graph = helper.make_graph(self.nodes, "fuzz", self.inputs, self.outputs, self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)])
        model.ir_version = 8
        return model


def _random_op(b: Builder, supported: list[str]) -> None:
    rng = b.rng
    op = rng.choice(supported)
    specs: list[Spec] = []
    for _ in range(rng.randint(0, 3)):
        specs.append(f(*[rng.choice([1, 2, 3, 4]) for _ in range(rng.randint(0, 4))]) if rng.random() < 0.7
                     else c([rng.choice(INTS[:9]) for _ in range(rng.randint(0, 4))]))
    attrs = {rng.choice(ATTR_NAMES): _attr_value(rng) for _ in range(rng.randint(0, 2))}
    b.add(op, specs, attrs, rng.randint(1, 2))


def _attr_value(rng: random.Random) -> Any:
    roll = rng.random()
    if roll < 0.35:
        return rng.choice(INTS)
    if roll < 0.7:
        return [rng.choice(INTS) for _ in range(rng.randint(0, 9))]
    if roll < 0.8:
        return rng.choice([0.0, -1.0, 1e30, float("nan"), float("inf"), 1e-30])
    if roll < 0.9:
        return rng.choice(["", "constant", "reflect", "edge", "nearest", "linear", "cubic", "SAME_UPPER", "x" * 300])
    return [rng.choice([0.5, -1.0, 1e9, float("nan")]) for _ in range(rng.randint(0, 4))]


# ---- corruptions ------------------------------------------------------------------------------------------

def _attr(b: Builder) -> None:
    node = b.rng.choice(b.nodes)
    if node.attribute and b.rng.random() < 0.7:
        old = b.rng.choice(list(node.attribute))
        node.attribute.remove(old)
        name = old.name
    else:
        name = b.rng.choice(ATTR_NAMES)
        for existing in [a for a in node.attribute if a.name == name]:
            node.attribute.remove(existing)
    node.attribute.append(make_attribute(name, _attr_value(b.rng)))


def _input_count(b: Builder) -> None:
    node = b.rng.choice(b.nodes)
    roll = b.rng.random()
    if node.input and roll < 0.4:
        del node.input[-1]
    elif roll < 0.8:
        node.input.append(b.rng.choice([*node.input, *[i.name for i in b.inputs], ""]) if node.input or b.inputs else "")
    else:
        node.input.insert(0, "")


def _input_shape(b: Builder) -> None:
    if not b.inputs:
        return
    shape = b.rng.choice(b.inputs).type.tensor_type.shape
    roll = b.rng.random()
    if shape.dim and roll < 0.6:
        dim = b.rng.choice(list(shape.dim))
        value = b.rng.choice([0, 2**31, 2**40, 2**62, 2**63 - 1, -1, -5, 7])
        if b.rng.random() < 0.15:
            dim.dim_param = "N"
        else:
            dim.dim_value = value
    elif shape.dim and roll < 0.8:
        del shape.dim[-1]
    else:
        shape.dim.add().dim_value = b.rng.choice([1, 2, 3])


def _dtype(b: Builder) -> None:
    pool = [v.type.tensor_type for v in b.inputs + b.outputs if v.HasField("type")]
    if b.initializers and b.rng.random() < 0.3:
        tensor = b.rng.choice(b.initializers)
        tensor.data_type = b.rng.choice(DTYPES)
    elif pool:
        b.rng.choice(pool).elem_type = b.rng.choice(DTYPES)


def _dangling(b: Builder) -> None:
    node = b.rng.choice(b.nodes)
    if node.input:
        node.input[b.rng.randrange(len(node.input))] = "nowhere"
    elif b.outputs:
        b.outputs[0].name = "nowhere"


def _cycle(b: Builder) -> None:
    first, last = b.nodes[0], b.nodes[-1]
    if first.input:
        first.input[0] = last.output[-1]
    else:
        first.input.append(last.output[-1])


def _empty(b: Builder) -> None:
    roll = b.rng.random()
    if roll < 0.4:
        del b.nodes[:]
    elif roll < 0.7:
        del b.outputs[:]
    else:
        del b.nodes[:]
        del b.outputs[:]
        del b.inputs[:]


def _initializer(b: Builder) -> None:
    if not b.initializers:
        return
    tensor = b.rng.choice(b.initializers)
    roll = b.rng.random()
    if roll < 0.4 and tensor.dims:
        tensor.dims[b.rng.randrange(len(tensor.dims))] = b.rng.choice([0, 2, 7, 2**31, 2**40])
    elif roll < 0.6:
        tensor.dims.append(b.rng.choice([2, 3]))
    elif roll < 0.8 and tensor.raw_data:
        tensor.raw_data = tensor.raw_data[: b.rng.randrange(len(tensor.raw_data))]
    else:  # an initializer that is also a graph input, of another shape
        b.inputs.append(helper.make_tensor_value_info(tensor.name, TensorProto.FLOAT, [b.rng.choice([1, 5, 9])]))


def _array(tensor: onnx.TensorProto) -> np.ndarray:
    """The initializer's values, or none when an earlier corruption made its data unreadable."""
    try:
        return numpy_helper.to_array(tensor)
    except ValueError:
        return np.zeros(0, np.int64)


def _constant_values(b: Builder) -> None:
    ints = [t for t in b.initializers if t.data_type == TensorProto.INT64]
    floats = [t for t in b.initializers if t.data_type == TensorProto.FLOAT and len(t.dims) <= 1]
    if ints and (b.rng.random() < 0.7 or not floats):
        tensor = b.rng.choice(ints)
        old = _array(tensor)
        pool = INTS if b.rng.random() < 0.6 else [-1, 0, 1, 2, 3, 4, 7, 99]
        new = np.array([b.rng.choice(pool) for _ in range(max(old.size, 1) if b.rng.random() < 0.8
                                                           else b.rng.randint(0, 6))], np.int64)
        tensor.CopyFrom(numpy_helper.from_array(new.reshape(old.shape) if new.size == old.size else new, tensor.name))
    elif floats:
        tensor = b.rng.choice(floats)
        old = _array(tensor)
        new = np.array([b.rng.choice([1e9, -1.0, 0.0, float("nan"), float("inf"), 1e-9, 2.0]) for _ in range(old.size)],
                       np.float32).reshape(old.shape)
        tensor.CopyFrom(numpy_helper.from_array(new, tensor.name))


def _declared_output(b: Builder) -> None:
    if not b.outputs:
        return
    out = b.rng.choice(b.outputs)
    dims = [b.rng.choice([1, 2, 3, 5, 2**31, 0]) for _ in range(b.rng.randint(0, 5))]
    out.CopyFrom(helper.make_tensor_value_info(out.name, b.rng.choice([TensorProto.FLOAT, *DTYPES[:6]]), dims))


def _opset(b: Builder) -> None:
    b.opset = b.rng.choice(OPSETS)


def _op_type(b: Builder, supported: list[str]) -> None:
    node = b.rng.choice(b.nodes)
    roll = b.rng.random()
    if roll < 0.7:
        node.op_type = b.rng.choice(supported)
    elif roll < 0.85:
        node.op_type = b.rng.choice(["NoSuchOp", "", "conv", "Loop", "If"])
    else:
        node.domain = b.rng.choice(["com.microsoft", "ai.onnx.ml", "ascendsim", "cann"])


def _duplicate_output(b: Builder) -> None:
    if len(b.nodes) >= 2:
        b.nodes[1].output[0] = b.nodes[0].output[0]
    elif b.inputs:
        b.nodes[0].output[0] = b.inputs[0].name


CORRUPTIONS: list[Callable[[Builder], None]] = [
    _attr, _attr, _input_count, _input_shape, _input_shape, _dtype, _dangling, _cycle, _empty, _initializer,
    _constant_values, _constant_values, _constant_values, _declared_output, _declared_output, _opset,
    _duplicate_output]


def generate(rng: random.Random, supported: list[str]) -> bytes:
    b = Builder(rng)
    for _ in range(rng.choice([1, 1, 2, 3])):
        if rng.random() < 0.2:
            _random_op(b, supported)
        else:
            op, specs, attrs, outputs, opset = rng.choice(TEMPLATES)
            b.opset = opset
            b.add(op, specs, dict(attrs), outputs)
    if rng.random() < 0.5:  # outputs typed as inference would type them (so that a contradiction is one)
        try:
            inferred = onnx.shape_inference.infer_shapes(b.model())
            b.outputs = list(inferred.graph.output)
        except Exception:  # noqa: BLE001, S110 -- the model may be bad already; inference is only a help here
            pass
    for _ in range(rng.choice([0, 1, 1, 1, 2, 3])):
        if not b.nodes:  # emptied: nothing left to corrupt
            break
        corruption = rng.choice([*CORRUPTIONS, None])
        if corruption is None:
            _op_type(b, supported)
        else:
            corruption(b)
    return b.model().SerializeToString()
