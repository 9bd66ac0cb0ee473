"""GraphWriter: writes an ONNX graph the way PyTorch's exporter (torch.onnx.export, opset 17) names and shapes it.

Naming follows the exporter: a node made inside module scope `layer1.0.conv1` is called
`/layer1/layer1.0/conv1/Conv` and its output `/layer1/layer1.0/conv1/Conv_output_0`; parameters are
initializers named by their state-dict key (`layer1.0.conv1.weight`); small tensors the exporter
materialises (scalars, Reshape targets, Gather indices, Unsqueeze axes) are `Constant` nodes, as the exporter
writes them. Shape-dependent sizes are computed in the graph with Shape -> Gather -> Unsqueeze -> Concat,
which is what tracing `x.size(0)` / `x.shape` emits and what the compiler must constant-fold.

Weights are random from one fixed seed (float32, float64 draws are avoided so full-size models build fast);
convolutions and linears use He / truncated-normal-like scales so activations stay finite through deep
networks, and BatchNormalization / LayerNormalization statistics are near their trained values (mean ~0,
var ~1) rather than exactly 0 and 1, so folding them is not a no-op that hides mistakes.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Sequence
from typing import Any, Union

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
Part = Union[int, str]  # a static size, or the name of a 1-element int64 tensor computed in the graph


class GraphWriter:
    """Builds one ONNX graph node by node; `scope` names nodes and parameters like the PyTorch exporter."""

    def __init__(self, name: str, seed: int = 0, opset: int = OPSET) -> None:
        self.name, self.opset = name, opset
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.inputs: list[onnx.ValueInfoProto] = []
        self.parameters = 0  # number of float parameters (weights) created so far
        self._scope: list[str] = []
        self._used: dict[str, int] = {}

    # ---- naming -----------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def scope(self, module: str) -> Iterator[None]:
        """Nodes and parameters created inside belong to `module` (a dotted state-dict prefix part)."""
        self._scope.append(module)
        try:
            yield
        finally:
            self._scope.pop()

    def _prefix(self) -> str:
        # torch's scope names: a container's numbered child is "parent.N" (/layer1/layer1.0/conv1/Conv)
        parts: list[str] = []
        for module in self._scope:
            parts.append(f"{parts[-1]}.{module}" if module.isdigit() and parts else module)
        return "/" + "/".join(parts) + "/" if parts else "/"

    def _unique(self, base: str) -> str:
        count = self._used.get(base, 0)
        self._used[base] = count + 1
        return base if count == 0 else f"{base}_{count}"

    def _param_name(self, leaf: str) -> str:
        return ".".join([*self._scope, leaf])

    # ---- graph pieces -----------------------------------------------------------------------------------

    def input(self, name: str, shape: Sequence[int | str], elem: int = TensorProto.FLOAT) -> str:
        self.inputs.append(helper.make_tensor_value_info(name, elem, list(shape)))
        return name

    def op(self, op_type: str, inputs: Sequence[str], outputs: int = 1, **attrs: Any) -> Any:
        """Adds a node; returns its output name (or the list of names when `outputs` > 1)."""
        node_name = self._unique(self._prefix() + op_type)
        names = [f"{node_name}_output_{i}" for i in range(outputs)]
        self.nodes.append(helper.make_node(op_type, list(inputs), names, name=node_name, **attrs))
        return names[0] if outputs == 1 else names

    def op_scoped(self, module: str, op_type: str, *inputs: str, **attrs: Any) -> str:
        """A one-output node inside its own module scope (e.g. `relu_1` -> /layer1/layer1.0/relu_1/Relu)."""
        with self.scope(module):
            return self.op(op_type, list(inputs), **attrs)  # type: ignore[no-any-return]

    def const(self, value: Any, dtype: Any = None) -> str:
        """A Constant node (how the exporter writes scalars, shapes, indices and axes)."""
        array = np.asarray(value, dtype=dtype)
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        return self.op("Constant", [], value=numpy_helper.from_array(array))

    def ints(self, values: Sequence[int]) -> str:
        return self.const(np.asarray(values, dtype=np.int64))

    def tensor(self, leaf: str, array: np.ndarray, *, buffer: bool = False) -> str:
        """An initializer named by its state-dict key (scope + leaf); float ones count as parameters unless
        they are buffers (BN running statistics), as torch counts them."""
        name = self._param_name(leaf)
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        if array.dtype == np.float32 and not buffer:
            self.parameters += array.size
        return name

    def normal(self, leaf: str, shape: Sequence[int], std: float, mean: float = 0.0, *, buffer: bool = False) -> str:
        data = self.rng.standard_normal(tuple(shape), dtype=np.float32)
        data *= np.float32(std)
        if mean:
            data += np.float32(mean)
        return self.tensor(leaf, data, buffer=buffer)

    def uniform(self, leaf: str, shape: Sequence[int], low: float, high: float, *, buffer: bool = False) -> str:
        data = self.rng.random(tuple(shape), dtype=np.float32)
        return self.tensor(leaf, data * np.float32(high - low) + np.float32(low), buffer=buffer)

    # ---- layers (each inside the caller's scope) ----------------------------------------------------------

    def conv(self, x: str, cin: int, cout: int, kernel: int, *, stride: int = 1, padding: int | None = None,
             group: int = 1, bias: bool = False, module: str) -> str:
        pad = kernel // 2 if padding is None else padding
        with self.scope(module):
            fan_in = cin // group * kernel * kernel
            inputs = [x, self.normal("weight", [cout, cin // group, kernel, kernel], math.sqrt(2.0 / fan_in))]
            if bias:
                inputs.append(self.normal("bias", [cout], 0.01))
            return self.op("Conv", inputs, dilations=[1, 1], group=group, kernel_shape=[kernel, kernel],
                           pads=[pad] * 4, strides=[stride, stride])

    def batch_norm(self, x: str, channels: int, *, module: str, eps: float = 1e-5, gain: float = 1.0) -> str:
        """Inference BatchNormalization, unfolded (as exported with training=TrainingMode.PRESERVE or by the
        dynamo exporter): scale, bias, running mean and running variance are separate initializers."""
        with self.scope(module):
            scale = self.uniform("weight", [channels], 0.5 * gain, 1.0 * gain)
            bias = self.normal("bias", [channels], 0.05)
            mean = self.normal("running_mean", [channels], 0.05, buffer=True)
            var = self.uniform("running_var", [channels], 0.5, 1.5, buffer=True)
            return self.op("BatchNormalization", [x, scale, bias, mean, var], epsilon=eps, momentum=0.9)

    def linear(self, x: str, din: int, dout: int, *, module: str, gemm: bool = False, std: float | None = None) -> str:
        """nn.Linear: Gemm(transB=1) on a 2-D input, MatMul by the transposed weight + Add on a 3-D one
        (the exporter stores the transposed weight as a folded initializer `onnx::MatMul_N`)."""
        scale = std if std is not None else 1.0 / math.sqrt(din)
        with self.scope(module):
            if gemm:
                weight = self.normal("weight", [dout, din], scale)
                return self.op("Gemm", [x, weight, self.normal("bias", [dout], 0.01)], alpha=1.0, beta=1.0,
                               transB=1)
            weight = self.normal("weight_t", [din, dout], scale)  # torch: onnx::MatMul_<n>, already transposed
            product = self.op("MatMul", [x, weight])
            return self.op("Add", [self.normal("bias", [dout], 0.01), product])

    def layer_norm(self, x: str, hidden: int, *, module: str, eps: float) -> str:
        with self.scope(module):
            scale = self.normal("weight", [hidden], 0.05, mean=1.0)
            bias = self.normal("bias", [hidden], 0.02)
            return self.op("LayerNormalization", [x, scale, bias], axis=-1, epsilon=eps)

    def gelu_erf(self, x: str, *, module: str) -> str:
        """nn.GELU() as the exporter writes it before opset 20: x * 0.5 * (1 + erf(x / sqrt(2)))."""
        with self.scope(module):
            erf = self.op("Erf", [self.op("Div", [x, self.const(np.float32(math.sqrt(2.0)))])])
            one_plus = self.op("Add", [erf, self.const(np.float32(1.0))])
            return self.op("Mul", [self.op("Mul", [x, one_plus]), self.const(np.float32(0.5))])

    def silu(self, x: str, *, module: str) -> str:
        """nn.SiLU -> x * Sigmoid(x): opset 17 has no SiLU op, so the exporter writes the two nodes."""
        with self.scope(module):
            return self.op("Mul", [x, self.op("Sigmoid", [x])])

    def avg_pool(self, x: str, kernel: int, stride: int, pad: int = 0) -> str:
        """nn.AvgPool2d (count_include_pad defaults to True in torch, which opset >= 10 writes as the attribute,
        so border windows divide by the full kernel size)."""
        return self.op("AveragePool", [x], ceil_mode=0, count_include_pad=1, kernel_shape=[kernel, kernel],
                       pads=[pad] * 4, strides=[stride, stride])

    def relu6(self, x: str, *, module: str) -> str:
        """nn.ReLU6 -> Clip(x, 0, 6) with min and max as Constant inputs (opset >= 11)."""
        with self.scope(module):
            return self.op("Clip", [x, self.const(np.float32(0.0)), self.const(np.float32(6.0))])

    # ---- shape arithmetic ----------------------------------------------------------------------------------

    def dim(self, x: str, axis: int) -> str:
        """`x.size(axis)` as a 1-element int64 tensor: Shape -> Gather(scalar index) -> Unsqueeze(axes 0)."""
        size = self.op("Gather", [self.op("Shape", [x]), self.const(np.int64(axis))], axis=0)
        return self.op("Unsqueeze", [size, self.ints([0])])

    def shape_of(self, parts: Sequence[Part]) -> str:
        """A shape tensor from computed dims and static sizes: runs of static sizes become one Constant,
        everything is joined by Concat (one Constant when nothing is computed)."""
        if all(isinstance(p, int) for p in parts):
            return self.ints([int(p) for p in parts])
        pieces: list[str] = []
        run: list[int] = []
        for part in parts:
            if isinstance(part, int):
                run.append(part)
                continue
            if run:
                pieces.append(self.ints(run))
                run = []
            pieces.append(part)
        if run:
            pieces.append(self.ints(run))
        return self.op("Concat", pieces, axis=0)

    def reshape(self, x: str, parts: Sequence[Part]) -> str:
        return self.op("Reshape", [x, self.shape_of(parts)], allowzero=0)

    def product(self, a: str, b: str) -> str:
        """The product of two computed dims (e.g. batch * heads), as the exporter emits it: Mul."""
        return self.op("Mul", [a, b])

    # ---- the model ----------------------------------------------------------------------------------------

    def model(self, outputs: Sequence[tuple[str, str, Sequence[int | str], int]],
              doc: str = "") -> onnx.ModelProto:
        """The ModelProto; `outputs` are (value, graph output name, shape, element type). An output value is
        renamed to its graph name by rewriting the producing node (as the exporter names outputs)."""
        renames = {value: name for value, name, _, _ in outputs}
        for node in self.nodes:
            for i, out in enumerate(node.output):
                if out in renames:
                    node.output[i] = renames[out]
            for i, inp in enumerate(node.input):
                if inp in renames:
                    node.input[i] = renames[inp]
        infos = [helper.make_tensor_value_info(name, elem, list(shape)) for _, name, shape, elem in outputs]
        graph = helper.make_graph(self.nodes, self.name, self.inputs, infos, self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)],
                                  producer_name="ascendsim.models", producer_version="1.0", doc_string=doc)
        model.ir_version = 8  # what torch.onnx writes for opset 17
        model.metadata_props.add(key="parameters", value=str(self.parameters))
        return model


def float_output(value: str, name: str, shape: Sequence[int | str]) -> tuple[str, str, Sequence[int | str], int]:
    return value, name, shape, TensorProto.FLOAT


def make_divisible(value: float, divisor: int = 8) -> int:
    """torchvision's _make_divisible: round channels to a multiple of `divisor`, never down by more than 10%."""
    rounded = max(divisor, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


def conv_out(size: int, kernel: int, stride: int, pad: int) -> int:
    return (size + 2 * pad - kernel) // stride + 1


__all__ = ["OPSET", "GraphWriter", "Part", "conv_out", "float_output", "make_divisible"]
