"""The NC1HWC0 layout pass (passes/layout_5hd.py): which nodes move to NC1HWC0, where TransData goes, and that
the graph computes the same numbers (onnxruntime on the exported graph and the host interpreter, through
Optimized.assert_equivalent). The runtime's kernels are tested in tests/model/test_blocked_conv.py."""

from __future__ import annotations

import numpy as np
import pytest
from test_pass_helpers import ModelBuilder, optimize

from ascendsim.compiler.ir import DType
from ascendsim.compiler.ops.layout import NC1HWC0, NCHW

LAYOUT = ("nc1hwc0_layout",)


def _chain(channels: int = 32, *, size: int = 12, stem_window: int = 3, stem_stride: int = 1) -> ModelBuilder:
    """A stem of 3 channels (reading the NCHW image, writing NC1HWC0 when the kernel's few-channel conv takes
    it), then a depthwise and a 1x1 conv, a residual Add and a Relu (all NC1HWC0)."""
    b = ModelBuilder(seed=1)
    x = b.input("image", [1, 3, size, size])
    stem = b.node("Relu", [b.conv(x, 3, channels, stem_window, stride=stem_stride)])
    branch = b.node("Relu", [b.conv(stem, channels, channels, 3, group=channels)])
    branch = b.conv(branch, channels, channels, 1)
    return b, b.node("Relu", [b.node("Add", [branch, stem])])  # type: ignore[return-value]


def test_a_conv_chain_runs_in_nc1hwc0_from_its_stem_to_one_transdata() -> None:
    b, out = _chain()
    done = optimize(b.model([out]), *LAYOUT)
    assert done.after == {"Relu": 3, "TransData": 1, "BlockedConv": 3, "Add": 1}
    transdata = [n for n in done.graph.nodes if n.op_type == "TransData"]
    assert [(n.attrs["src_format"], n.attrs["dst_format"]) for n in transdata] == [(NC1HWC0, NCHW)]
    convs = [n for n in done.graph.nodes if n.op_type == "BlockedConv"]
    assert convs[0].inputs[0].name == "image" and convs[0].inputs[0].shape == (1, 3, 12, 12)  # the stem's NCHW image
    assert all(v.shape == (1, 2, 12, 12, 16) and v.format == "NC1HWC0" for n in convs for v in n.outputs)
    done.assert_equivalent()


@pytest.mark.parametrize(("window", "stride"), [(4, 4), (9, 1)])  # ConvNeXt's patchify stem; a window past 7x7
def test_a_stem_the_few_channel_kernel_does_not_take_stays_in_nchw_before_a_transdata(window: int, stride: int) -> None:
    b, out = _chain(size=16, stem_window=window, stem_stride=stride)
    done = optimize(b.model([out]), *LAYOUT)
    assert done.after == {"Conv": 1, "Relu": 3, "TransData": 2, "BlockedConv": 2, "Add": 1}
    transdata = [n for n in done.graph.nodes if n.op_type == "TransData"]
    assert [(n.attrs["src_format"], n.attrs["dst_format"]) for n in transdata] == [(NCHW, NC1HWC0), (NC1HWC0, NCHW)]
    done.assert_equivalent()


def test_with_every_pass_the_fused_convs_and_the_residual_sum_run_in_nc1hwc0() -> None:
    b, out = _chain(24)  # 24 channels: a block and a half, the last block's lanes 24-31 kept zero
    done = optimize(b.model([out]))
    assert done.after == {"TransData": 1, "BlockedConv": 3}
    summed = [n for n in done.graph.nodes if n.op_type == "BlockedConv" and n.attrs.get("fused_sum")]
    assert len(summed) == 1 and summed[0].inputs[3].format == "NC1HWC0"
    done.assert_equivalent()


def test_depthwise_squeeze_excitation_pooling_and_concat_stay_in_nc1hwc0() -> None:
    b = ModelBuilder(seed=2)
    x = b.input("image", [2, 16, 10, 10])
    y = b.node("Clip", [b.conv(x, 16, 48, 1), b.const(np.array(0, np.float32)), b.const(np.array(6, np.float32))])
    y = b.node("Relu", [b.conv(y, 48, 48, 5, stride=2, group=48)])
    pooled = b.node("GlobalAveragePool", [y])
    gate = b.node("Sigmoid", [b.conv(b.node("Relu", [b.conv(pooled, 48, 12, 1)]), 12, 48, 1)])
    y = b.node("Mul", [y, gate])
    both = b.node("Concat", [y, b.conv(y, 48, 40, 1)], axis=1)
    out = b.node("GlobalMaxPool", [both])
    done = optimize(b.model([out]), *LAYOUT)
    assert done.after == {"TransData": 2, "BlockedConv": 5, "Clip": 1, "Relu": 2, "ReduceMean": 1, "Sigmoid": 1,
                          "Mul": 1, "Concat": 1, "ReduceMax": 1}
    done.assert_equivalent()


@pytest.mark.parametrize("op", ["MaxPool", "AveragePool"])
def test_a_stem_and_its_pool_run_in_nc1hwc0(op: str) -> None:
    """ResNet's head: a 7x7 stride-2 stem and a 3x3 stride-2 pool before a blocked chain. The pool runs on the
    stem's NC1HWC0 output as a 3-D pool of kernel 1 over the lanes (24 channels: the padding lanes stay zero),
    so the stem writes NC1HWC0 and no TransData comes between them."""
    b = ModelBuilder(seed=5)
    stem = b.node("Relu", [b.conv(b.input("image", [1, 3, 32, 32]), 3, 24, 7, stride=2)])
    pooled = b.node(op, [stem], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    out = b.conv(b.node("Relu", [b.conv(pooled, 24, 24, 3, stride=2, group=24)]), 24, 16, 1)
    done = optimize(b.model([out]), *LAYOUT)
    assert done.after == {"BlockedConv": 3, "Relu": 2, op: 1, "TransData": 1}
    pool = next(n for n in done.graph.nodes if n.op_type == op)
    assert pool.inputs[0].format == "NC1HWC0" and pool.inputs[0].producer.op_type == "Relu"  # type: ignore[union-attr]
    assert pool.attrs["kernel_shape"] == [3, 3, 1] and pool.attrs["strides"] == [2, 2, 1]
    assert pool.attrs["pads"] == [1, 1, 0, 1, 1, 0] and pool.outputs[0].shape == (1, 2, 8, 8, 16)
    done.assert_equivalent()


def test_an_op_that_would_dirty_the_padding_lanes_stays_in_nchw() -> None:
    """Sigmoid(0) is 0.5: on 24 channels the padding lanes would hold it, so the Sigmoid reads NCHW; on 32
    channels there are no padding lanes and it moves."""
    for channels, moved in ((24, False), (32, True)):
        b = ModelBuilder(seed=3)
        x = b.conv(b.input("image", [1, 16, 8, 8]), 16, 16, 3, group=16)
        y = b.node("Sigmoid", [b.node("Add", [b.conv(x, 16, channels, 1), b.const(np.array(0.5, np.float32))])])
        done = optimize(b.model([b.conv(y, channels, 16, 1)]), *LAYOUT)
        sigmoid = next(n for n in done.graph.nodes if n.op_type == "Sigmoid")
        assert (sigmoid.outputs[0].format == "NC1HWC0") == moved, channels
        done.assert_equivalent()


def test_batch_normalization_before_a_conv_becomes_a_per_channel_mul_and_add() -> None:
    b = ModelBuilder(seed=4)
    x = b.conv(b.input("image", [1, 16, 8, 8]), 16, 16, 3, group=16)
    y = b.conv(x, 16, 32, 1)
    y = b.conv(b.node("Relu", [b.batch_norm(b.node("Concat", [y, x], axis=1), 48)]), 48, 16, 1)
    done = optimize(b.model([y]), *LAYOUT)
    assert "BatchNormalization" not in done.after and done.after["Mul"] == 1 and done.after["Add"] == 1
    done.assert_equivalent()


def _bottlenecks() -> tuple[ModelBuilder, str]:
    """Two ResNet bottlenecks (1x1, 3x3 stride 1 of 64 channels: Winograd's, 1x1, residual sum) and a strided
    block without one."""
    b = ModelBuilder(seed=9)
    y = b.input("image", [1, 32, 16, 16])
    for _ in range(2):
        inner = b.node("Relu", [b.conv(b.node("Relu", [b.conv(y, 32, 64, 1)]), 64, 64, 3)])
        y = b.node("Relu", [b.node("Add", [b.conv(inner, 64, 32, 1), y])])
    y = b.node("Relu", [b.conv(b.node("Relu", [b.conv(y, 32, 16, 1)]), 16, 16, 3, stride=2)])
    return b, b.node("Relu", [b.conv(y, 16, 64, 1)])


@pytest.mark.parametrize("variant", ["avx2", "avx512"])
def test_bottlenecks_move_whole_around_their_winograd_convs(monkeypatch: pytest.MonkeyPatch, variant: str) -> None:
    """The blocked kernel runs 3x3 stride-1 convs by Winograd, faster than NCHW's: with them winning on every
    variant, ResNet-style bottlenecks are one region (9 convs, 2 crossings) and every conv moves."""
    from ascendsim import cpu

    monkeypatch.setattr(cpu, "kernel_variant", lambda: variant)
    b, out = _bottlenecks()
    done = optimize(b.model([out]), *LAYOUT)
    assert done.after["BlockedConv"] == 9 and "Conv" not in done.after and done.after["TransData"] == 2
    done.assert_equivalent(rtol=1e-3, atol=1e-3)  # 576-term sums of outputs up to ~1000, in another order


@pytest.mark.parametrize("variant", ["avx2", "avx512"])
def test_dense_convs_move_with_avx512_only(monkeypatch: pytest.MonkeyPatch, variant: str) -> None:
    """With AVX-512's 64-channel tiles dense convs win blocked too: 1x1 convs and a 3x3 conv on a plane too small
    for Winograd (3x3 tiles); with AVX2 none of them wins and they stay in NCHW."""
    from ascendsim import cpu

    monkeypatch.setattr(cpu, "kernel_variant", lambda: variant)
    b = ModelBuilder(seed=6)
    y = b.node("Relu", [b.conv(b.input("image", [1, 32, 6, 6]), 32, 64, 1)])
    y = b.node("Relu", [b.conv(y, 64, 64, 3)])
    done = optimize(b.model([b.conv(y, 64, 64, 1)]), *LAYOUT)
    if variant == "avx2":
        assert "BlockedConv" not in done.after and "TransData" not in done.after
    else:
        assert done.after["BlockedConv"] == 3 and done.after["TransData"] == 2
        done.assert_equivalent(rtol=1e-4, atol=1e-4)


def test_strided_and_winograd_convs_move_together() -> None:
    """Stride-2 dense convs and a 3x3 stride-1 conv (Winograd's, 6x6 tiles) run faster blocked; the 1x1 conv
    after them joins their region, and the global pool after it runs on the blocked layout."""
    b = ModelBuilder(seed=8)
    y = b.node("Relu", [b.conv(b.input("image", [1, 16, 48, 48]), 16, 32, 3, stride=2)])
    y = b.node("Relu", [b.conv(y, 32, 32, 3, stride=2)])
    y = b.conv(b.node("Relu", [b.conv(y, 32, 64, 3)]), 64, 48, 1)
    done = optimize(b.model([b.node("GlobalAveragePool", [y])]), *LAYOUT)
    assert done.after["BlockedConv"] == 4 and "Conv" not in done.after and done.after["TransData"] == 2
    done.assert_equivalent(rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("variant", ["avx2", "avx512"])
def test_densenet_layers_join_one_region(monkeypatch: pytest.MonkeyPatch, variant: str) -> None:
    """DenseNet's layers: Concat, BatchNormalization, Relu, a 1x1 conv, then a 3x3 stride-1 conv of 32 outputs on a
    7x7 plane (4x4 tiles: Winograd's), and a last 3x3 conv: one region through the Concats, on every variant."""
    from ascendsim import cpu

    monkeypatch.setattr(cpu, "kernel_variant", lambda: variant)
    b = ModelBuilder(seed=10)
    features = b.input("image", [1, 32, 7, 7])
    for channels in (32, 64):
        y = b.node("Relu", [b.conv(b.node("Relu", [b.batch_norm(features, channels)]), channels, 64, 1)])
        features = b.node("Concat", [features, b.conv(y, 64, 32, 3)], axis=1)
    done = optimize(b.model([b.conv(features, 96, 64, 3)]), *LAYOUT)
    assert done.after["BlockedConv"] == 5 and "Conv" not in done.after and done.after["TransData"] == 3
    done.assert_equivalent(rtol=1e-3, atol=1e-4)  # sums of 576 and 864 terms in another order


def test_a_lone_depthwise_conv_between_grouped_convs_stays_in_nchw() -> None:
    """ShuffleNet's units: one blocked conv would cost two TransData."""
    b = ModelBuilder(seed=7)
    y = b.conv(b.input("image", [1, 48, 10, 10]), 48, 48, 1, group=3)
    y = b.conv(y, 48, 48, 3, group=48)
    done = optimize(b.model([b.conv(y, 48, 48, 1, group=3)]), *LAYOUT)
    assert "BlockedConv" not in done.after and "TransData" not in done.after


def test_nothing_moves_where_the_kernel_variant_is_baseline(monkeypatch: pytest.MonkeyPatch) -> None:
    """SSE2's blocked tiles are slower than its NCHW paths: a baseline machine compiles NCHW."""
    from ascendsim import cpu

    monkeypatch.setattr(cpu, "kernel_variant", lambda: "baseline")
    b, out = _chain()
    done = optimize(b.model([out]), *LAYOUT)
    assert "BlockedConv" not in done.after and "TransData" not in done.after


@pytest.mark.parametrize("case", ["runtime_weights", "grouped", "three_channels", "dynamic"])
def test_what_the_pass_leaves_alone(case: str) -> None:
    b = ModelBuilder(seed=5)
    if case == "runtime_weights":  # the kernel packs constant weights at load
        x, w = b.input("image", [1, 16, 8, 8]), b.input("w", [16, 16, 3, 3])
        out = b.node("Conv", [x, w], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    elif case == "grouped":  # neither dense nor depthwise
        out = b.conv(b.input("image", [1, 32, 8, 8]), 32, 32, 3, group=2)
    elif case == "three_channels":  # an image's 3 channels in blocks of 16: five times the work
        out = b.conv(b.input("image", [1, 3, 8, 8]), 3, 16, 3)
    else:
        out = b.conv(b.input("image", ["batch", 16, 8, 8]), 16, 16, 3)
    done = optimize(b.model([out]), *LAYOUT)
    assert "BlockedConv" not in done.after and "TransData" not in done.after


def test_the_exported_graph_holds_only_standard_onnx_ops() -> None:
    b, out = _chain(24)
    exported = optimize(b.model([out])).exported()
    assert {n.domain for n in exported.graph.node} <= {""}
    assert not exported.functions


def test_the_blocked_graph_keeps_its_dtype_and_user_visible_names() -> None:
    b, out = _chain()
    done = optimize(b.model([out]))
    assert [v.name for v in done.graph.outputs] == [out]
    assert done.graph.outputs[0].dtype == DType.FLOAT and done.graph.outputs[0].shape == (1, 32, 12, 12)
