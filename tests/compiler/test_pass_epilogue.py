"""Conv/Gemm/MatMul + bias + activation epilogue fusion (pattern rules in passes/epilogue.py)."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest
from test_pass_helpers import ModelBuilder, optimize

Act = Callable[[ModelBuilder, str], str]


def _const(b: ModelBuilder, value: float) -> str:
    return b.const(np.array(value, np.float32))


ACTIVATIONS: dict[str, tuple[str, Act]] = {
    "relu": ("Relu", lambda b, x: b.node("Relu", [x])),
    "relu6": ("Clip", lambda b, x: b.node("Clip", [x, _const(b, 0), _const(b, 6)])),
    "clip_max_only": ("Clip", lambda b, x: b.node("Clip", [x, "", _const(b, 0.5)])),
    "sigmoid": ("Sigmoid", lambda b, x: b.node("Sigmoid", [x])),
    "tanh": ("Tanh", lambda b, x: b.node("Tanh", [x])),
    "leaky_relu": ("LeakyRelu", lambda b, x: b.node("LeakyRelu", [x], alpha=0.1)),
    "elu": ("Elu", lambda b, x: b.node("Elu", [x], alpha=0.5)),
    "hard_sigmoid": ("HardSigmoid", lambda b, x: b.node("HardSigmoid", [x], alpha=0.25, beta=0.4)),
    "hard_swish": ("HardSwish", lambda b, x: b.node("HardSwish", [x])),
    "hard_swish_decomposed": ("HardSwish", lambda b, x: b.node(
        "Mul", [x, b.node("HardSigmoid", [x], alpha=1 / 6, beta=0.5)])),
    "silu": ("Silu", lambda b, x: b.node("Mul", [b.node("Sigmoid", [x]), x])),
    "gelu_erf": ("Gelu", lambda b, x: b.gelu_erf(x)),
    "gelu_erf_half_first": ("Gelu", lambda b, x: b.node("Mul", [b.node("Mul", [x, _const(b, 0.5)]), b.node(
        "Add", [_const(b, 1), b.node("Erf", [b.node("Mul", [x, _const(b, 0.70710678)])])])])),
    "gelu_erf_half_last": ("Gelu", lambda b, x: b.node("Mul", [x, b.node("Mul", [b.node("Add", [b.node(
        "Erf", [b.node("Div", [x, _const(b, 1.4142135)])]), _const(b, 1)]), _const(b, 0.5)])])),
}


def _producer(b: ModelBuilder, kind: str) -> str:
    if kind == "Conv":
        return b.conv(b.input("x", [1, 3, 8, 8]), 3, 4, 3)
    if kind == "Gemm":
        return b.node("Gemm", [b.input("x", [5, 6]), b.weight(7, 6), b.weight(7)], transB=1)
    return b.linear(b.input("x", [2, 5, 6]), 6, 7)  # MatMul + Add bias


@pytest.mark.parametrize("kind", ["Conv", "Gemm", "MatMul"])
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_fuses(kind: str, name: str) -> None:
    activation, make = ACTIVATIONS[name]
    b = ModelBuilder()
    y = make(b, _producer(b, kind))
    optimized = optimize(b.model([y]), "epilogue_fusion")
    assert optimized.after == {kind: 1}, optimized.after
    (node,) = optimized.graph.nodes
    assert node.attr("activation") == activation
    assert node.outputs[0].name == y
    if kind == "MatMul":
        assert node.attr("fused_bias") == 1 and len(node.inputs) == 3
    optimized.assert_equivalent(rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_batch_norm_takes_the_activation(name: str) -> None:
    """An inference BatchNormalization that no conv absorbs (DenseNet's, on a concatenation) takes the
    activation after it too (batch_norm_activation_fusion: after the NC1HWC0 layout pass)."""
    activation, make = ACTIVATIONS[name]
    b = ModelBuilder()
    norm = b.node("BatchNormalization", [b.input("x", [1, 4, 5, 5]), b.weight(4), b.weight(4), b.weight(4),
                                         b.weight(4, positive=True)], epsilon=1e-3)
    y = make(b, norm)
    optimized = optimize(b.model([y]), "batch_norm_activation_fusion")
    assert optimized.after == {"BatchNormalization": 1}, optimized.after
    (node,) = optimized.graph.nodes
    assert node.attr("activation") == activation and node.outputs[0].name == y
    optimized.assert_equivalent(rtol=1e-4, atol=1e-5)


def test_clip_parameters() -> None:
    b = ModelBuilder()
    y = ACTIVATIONS["relu6"][1](b, _producer(b, "Conv"))
    node = optimize(b.model([y]), "epilogue_fusion").graph.nodes[0]
    assert (node.attr("activation_alpha"), node.attr("activation_beta")) == (0.0, 6.0)


def test_conv_add_per_channel_bias() -> None:
    b = ModelBuilder()
    conv = b.conv(b.input("x", [1, 3, 8, 8]), 3, 4, 3, bias=False)
    y = b.node("Relu", [b.node("Add", [conv, b.const(np.arange(4, dtype=np.float32).reshape(4, 1, 1))])])
    optimized = optimize(b.model([y]), "epilogue_fusion")
    assert optimized.before == {"Conv": 1, "Add": 1, "Relu": 1} and optimized.after == {"Conv": 1}
    assert optimized.report.stat("conv_bias fused") == 1
    optimized.assert_equivalent()


def test_broadcasting_add_is_not_a_bias() -> None:
    b = ModelBuilder()
    mm = b.node("MatMul", [b.input("x", [5, 6]), b.weight(6, 7)])
    y = b.node("Add", [mm, b.weight(3, 1, 7)])  # grows the output to (3, 5, 7)
    optimized = optimize(b.model([y]), "epilogue_fusion")
    assert optimized.after == optimized.before
    optimized.assert_equivalent()


def test_activation_not_fused_when_the_raw_output_is_used() -> None:
    b = ModelBuilder()
    conv = b.conv(b.input("x", [1, 3, 8, 8]), 3, 4, 3)
    optimized = optimize(b.model([b.node("Add", [b.node("Relu", [conv]), conv])]), "epilogue_fusion")
    assert optimized.after == optimized.before
    optimized.assert_equivalent()


def test_gelu_with_a_different_constant_is_not_gelu() -> None:
    b = ModelBuilder()
    x = _producer(b, "Gemm")
    y = b.node("Mul", [b.node("Mul", [x, _const(b, 0.5)]), b.node(
        "Add", [_const(b, 1), b.node("Erf", [b.node("Div", [x, _const(b, 2.0)])])])])
    optimized = optimize(b.model([y]), "epilogue_fusion")
    assert optimized.after == optimized.before
    optimized.assert_equivalent()


def test_tanh_gelu_is_not_fused_as_exact_gelu() -> None:
    b = ModelBuilder(opset=20)
    y = b.node("Gelu", [_producer(b, "Gemm")], approximate="tanh")
    optimized = optimize(b.model([y]), "epilogue_fusion")
    assert optimized.after == optimized.before


@pytest.mark.parametrize("order", ["conv_first", "residual_first"])
def test_residual_add_fuses_into_the_conv_before_its_activation(order: str) -> None:
    b = ModelBuilder()
    x = b.input("x", [1, 4, 8, 8])
    conv = b.conv(x, 4, 4, 3)
    y = b.node("Relu", [b.node("Add", [conv, x] if order == "conv_first" else [x, conv])])
    optimized = optimize(b.model([y]), "epilogue_fusion")
    assert optimized.after == {"Conv": 1}, optimized.after
    (node,) = optimized.graph.nodes
    assert node.attr("fused_sum") == 1 and node.attr("activation") == "Relu"
    assert [v.name if v is not None else None for v in node.inputs][3] == x
    optimized.assert_equivalent(rtol=1e-4, atol=1e-5)


def test_residual_add_not_fused_when_it_broadcasts_or_follows_an_activation() -> None:
    b = ModelBuilder()
    x = b.input("x", [1, 4, 8, 8])
    per_image = b.input("s", [1, 4, 1, 1])  # broadcast: not of the conv's shape
    activated = b.node("Relu", [b.conv(x, 4, 4, 3)])
    y = b.node("Add", [b.node("Add", [b.conv(x, 4, 4, 1), per_image]), b.node("Add", [activated, x])])
    optimized = optimize(b.model([y]), "epilogue_fusion")
    sums = [n for n in optimized.graph.nodes if n.attr("fused_sum")]
    assert not sums, [str(n) for n in sums]
    optimized.assert_equivalent(rtol=1e-4, atol=1e-5)
