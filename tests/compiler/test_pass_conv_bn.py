"""Conv + BatchNormalization folding: with and without a Conv bias, grouped, and the guards."""

from __future__ import annotations

import pytest
from test_pass_helpers import ModelBuilder, optimize


@pytest.mark.parametrize(("bias", "group"), [(True, 1), (False, 1), (True, 2)])
def test_batch_norm_folds_into_the_conv(bias: bool, group: int) -> None:
    b = ModelBuilder()
    x = b.input("x", [2, 4, 9, 9])
    y = b.batch_norm(b.conv(x, 4, 6, 3, group=group, bias=bias), 6)
    optimized = optimize(b.model([y]), "conv_bn_folding", "dead_code_elimination")
    assert optimized.before == {"Conv": 1, "BatchNormalization": 1}
    assert optimized.after == {"Conv": 1}
    assert optimized.report.stat("BatchNormalization folded") == 1
    conv = optimized.graph.nodes[0]
    assert conv.outputs[0].name == y and conv.input(2) is not None
    old_weights = 6 if bias else 5
    assert optimized.report.stat("unused constants removed") == old_weights
    optimized.assert_equivalent()


def test_conv_output_read_elsewhere_is_not_folded() -> None:
    b = ModelBuilder()
    x = b.input("x", [1, 3, 6, 6])
    conv = b.conv(x, 3, 4, 3)
    optimized = optimize(b.model([b.node("Add", [b.batch_norm(conv, 4), conv])]), "conv_bn_folding")
    assert optimized.after == optimized.before
    optimized.assert_equivalent()


def test_non_constant_batch_norm_parameters_are_not_folded() -> None:
    b = ModelBuilder()
    x, scale = b.input("x", [1, 3, 6, 6]), b.input("scale", [4])
    conv = b.conv(x, 3, 4, 3)
    y = b.node("BatchNormalization", [conv, scale, b.weight(4), b.weight(4), b.weight(4, positive=True)])
    optimized = optimize(b.model([y]), "conv_bn_folding")
    assert optimized.after == optimized.before
    optimized.assert_equivalent()


def test_shared_weights_are_not_modified() -> None:
    b = ModelBuilder()
    x = b.input("x", [1, 3, 6, 6])
    w = b.weight(4, 3, 3, 3)
    plain = b.node("Conv", [x, w], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    normed = b.batch_norm(b.node("Conv", [x, w], kernel_shape=[3, 3], pads=[1, 1, 1, 1]), 4)
    optimized = optimize(b.model([plain, normed]), "conv_bn_folding")
    assert optimized.after == {"Conv": 2}
    optimized.assert_equivalent()
