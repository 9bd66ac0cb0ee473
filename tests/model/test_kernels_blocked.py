"""The NC1HWC0 kernels (csrc/kernels/blocked_conv.cpp, transdata_kernel.cpp) through the kernel driver, once per
kernel variant this CPU runs, against onnxruntime's NCHW Conv: dense and depthwise convs over strides, dilations,
pads (asymmetric, VALID), planes smaller than the window, channel counts that leave a block part-filled, input
blocks summed in several passes, the fused sum and every activation, 3x3 convs of stride 1 and 2 by Winograd; the
lanes past the channels are zero in every output (the layout pass relies on it), bit for bit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from exec_helpers import compile_model, const, execute_once, reference, tensor
from kernel_harness import Driver, Refused, run_kernel
from onnx import helper
from test_kernels_cube import ort_conv

import acl
import ascendsim
from ascendcl import aclGetRecentErrMsg
from ascendsim.compiler.host_layout_kernels import from_blocked, to_blocked
from ascendsim.compiler.ops.layout import NC1HWC0, NCHW

RNG = np.random.default_rng(23)

# (x NCHW, weight, attributes)
CONVS = [
    ((1, 32, 9, 9), (48, 32, 1, 1), {}),                                                   # pointwise
    ((2, 24, 11, 7), (40, 24, 3, 3), {"pads": [1, 1, 1, 1]}),                              # batch 2, part blocks
    ((1, 32, 13, 13), (32, 32, 3, 3), {"pads": [1, 1, 1, 1], "strides": [2, 2]}),
    ((1, 16, 10, 10), (16, 16, 3, 3), {"pads": [2, 2, 2, 2], "dilations": [2, 2]}),
    ((1, 16, 9, 8), (24, 16, 3, 3), {"pads": [0, 1, 1, 0]}),                               # asymmetric
    ((1, 16, 8, 8), (32, 16, 3, 3), {}),                                                   # VALID
    ((1, 64, 14, 14), (32, 64, 1, 1), {"strides": [2, 2]}),                                # downsample
    ((1, 512, 4, 4), (20, 512, 1, 1), {}),                                                 # input blocks in passes
    ((1, 32, 7, 7), (80, 32, 1, 1), {}),                              # 5 blocks: tiles of 4 and 1; 49 pixels
    ((1, 40, 9, 9), (56, 40, 3, 3), {"pads": [1, 1, 1, 1]}),          # 4 blocks, the last part-filled (Winograd)
    ((1, 96, 7, 7), (200, 96, 1, 1), {}),                             # 13 blocks in groups of whole tiles
    ((1, 64, 6, 6), (320, 64, 1, 1), {}),                   # 20 blocks in groups of 2 and 3 tiles, group-major jobs
    ((1, 64, 8, 8), (320, 64, 1, 1), {}),                   # group-major in runs of bands, one per thread (2 threads)
    ((1, 32, 9, 9), (320, 32, 5, 5), {"pads": [2, 2, 2, 2]}),  # groups of 1, 2 and 2 tiles (5x5: direct)
    ((1, 48, 11, 11), (48, 48, 3, 3), {"pads": [1, 1, 1, 1], "strides": [2, 2]}),  # 3 blocks, 36 pixels
    ((1, 256, 5, 5), (16, 256, 3, 3), {"pads": [1, 1, 1, 1]}),
    ((1, 20, 2, 3), (36, 20, 5, 5), {"pads": [2, 2, 2, 2]}),                               # plane < window
    # direct, border windows in place: 5x5 stride 2 with pads 4 has 24 window shapes on its borders, more than the
    # 8 batches that wait at once; a dilated 3x3 in place and in passes of input blocks (sums staged between them)
    ((1, 16, 200, 200), (16, 16, 5, 5), {"pads": [4, 4, 4, 4], "strides": [2, 2]}),
    ((1, 64, 60, 60), (24, 64, 3, 3), {"pads": [2, 2, 2, 2], "dilations": [2, 2], "strides": [2, 2]}),
    # padded 3x3 stride 2 on planes of 16 tiles or more: Winograd's polyphase form (blocked_winograd.cpp); the
    # dilated one the direct tiles, in place
    ((1, 16, 40, 40), (32, 16, 3, 3), {"pads": [1, 1, 1, 1], "strides": [2, 2]}),
    ((2, 20, 36, 36), (72, 20, 3, 3), {"pads": [1, 1, 1, 1], "strides": [2, 2]}),          # 5 blocks, 2 images
    ((1, 24, 48, 50), (40, 24, 3, 3), {"pads": [2, 0, 1, 2], "dilations": [2, 1], "strides": [2, 2]}),  # every side
    ((1, 16, 80, 80), (32, 16, 3, 3), {"pads": [3, 3, 3, 3], "strides": [2, 2]}),  # windows in the pads: bias only
    ((1, 128, 30, 30), (32, 128, 3, 3), {"pads": [1, 1, 1, 1], "strides": [2, 2]}),  # 8 input blocks
    ((1, 80, 33, 33), (24, 80, 3, 3), {"pads": [1, 1, 1, 1], "strides": [2, 2]}),    # patches past every side
    # 3x3 stride 1 or 2 on 16 tiles of 2x2 or more: Winograd (blocked_winograd.cpp); patches past every side
    ((1, 128, 28, 28), (32, 128, 3, 3), {"pads": [1, 1, 1, 1]}),                          # DenseNet's: jobs of 49 tiles
    ((3, 32, 16, 16), (48, 32, 3, 3), {"pads": [1, 1, 1, 1]}),                            # 3 images, 3 output blocks
    ((1, 20, 13, 11), (24, 20, 3, 3), {"pads": [2, 2, 2, 2]}),       # odd 15x13: half tiles; patches in the pads
    ((1, 16, 30, 31), (16, 16, 3, 3), {}),                                                # VALID, 28x29
    ((1, 64, 9, 9), (96, 64, 3, 3), {"pads": [1, 0, 0, 1]}),                              # asymmetric, 6 blocks
    ((2, 32, 29, 27), (64, 32, 3, 3), {"pads": [1, 0, 2, 1], "strides": [2, 2]}),  # stride 2, odd, asymmetric
    ((1, 40, 15, 15), (40, 1, 5, 5), {"pads": [2, 2, 2, 2], "strides": [2, 2], "group": 40}),
    ((1, 24, 9, 9), (24, 1, 7, 7), {"pads": [3, 3, 3, 3], "group": 24}),                  # framed
    ((2, 32, 12, 12), (32, 1, 3, 3), {"pads": [1, 1, 1, 1], "group": 32}),
    ((1, 16, 2, 2), (16, 1, 3, 3), {"pads": [1, 1, 1, 1], "group": 16}),                   # every pixel a border
    ((1, 48, 7, 7), (48, 1, 3, 3), {"pads": [0, 1, 2, 1], "dilations": [2, 1], "group": 48}),
    ((1, 24, 5, 40), (24, 1, 3, 3), {"pads": [1, 1, 1, 1], "group": 24}),                  # wide: border pixels alone
    ((2, 40, 6, 33), (40, 1, 5, 5), {"pads": [2, 1, 2, 1], "strides": [1, 2], "group": 40}),
    ((2, 20, 9, 11), (20, 1, 5, 5), {"pads": [2, 1, 1, 2], "strides": [2, 1], "group": 20}),  # narrow: framed
    # depthwise rows of interior pixels: a kernel row's columns at once (AVX-512), or tap by tap across a dilation
    ((1, 32, 10, 30), (32, 1, 7, 7), {"pads": [3, 3, 3, 3], "group": 32}),                 # ConvNeXt's 7x7
    ((1, 16, 8, 29), (16, 1, 3, 3), {"pads": [1, 2, 1, 2], "dilations": [1, 2], "group": 16}),
]


def _blocked_conv(driver: Driver, tmp_path: Path, x: np.ndarray, w: np.ndarray, b: np.ndarray | None, *,
                  attrs: dict, total: np.ndarray | None = None, flags: int = 0, planar: bool = False) -> np.ndarray:
    """The kernel's NC1HWC0 output (its padding lanes included) for NCHW operands; `planar`: x goes in as it is
    (a stem's image), else in NC1HWC0."""
    conv_attrs = {k: v for k, v in attrs.items() if k in ("pads", "strides", "dilations", "group")}
    out_shape = ort_conv(x, w, b, **conv_attrs).shape
    blocked_out = (out_shape[0], -(-out_shape[1] // 16), out_shape[2], out_shape[3], 16)
    inputs = [x if planar else to_blocked(x), w, b if b is not None else None]
    if total is not None:
        inputs.append(to_blocked(total))
        attrs = {**attrs, "fused_sum": 1}
    if b is None and total is None:
        inputs = inputs[:2]
    return run_kernel(driver, tmp_path, "BlockedConv", inputs, [(np.float32, blocked_out)], attrs=attrs,
                      domain="ascendsim", constant=(1, 2), flags=flags)[0]


def _check(got: np.ndarray, want: np.ndarray, tolerance: float = 1e-4) -> None:
    channels = want.shape[1]
    np.testing.assert_allclose(from_blocked(got, channels), want, rtol=tolerance, atol=tolerance)
    lanes = got.transpose(0, 1, 4, 2, 3).reshape(got.shape[0], -1, *got.shape[2:4])[:, channels:]
    assert not lanes.any(), "the lanes past the channels must be zero"


@pytest.mark.parametrize("case", range(len(CONVS)))
def test_blocked_conv_matches_onnxruntime(driver: Driver, tmp_path: Path, case: int, threads: str) -> None:
    xs, ws, attrs = CONVS[case]  # (threads: 1 and 2, the jobs' orders of each)
    x, w = RNG.standard_normal(xs).astype(np.float32), RNG.standard_normal(ws).astype(np.float32)
    b = RNG.standard_normal(ws[0]).astype(np.float32)
    _check(_blocked_conv(driver, tmp_path, x, w, b, attrs=attrs), ort_conv(x, w, b, **attrs))


# 6x6: the direct tiles (9 tiles of 2x2: too few for Winograd), 9x9 Winograd's; 7x7 on 6x6: framed; 5x5 on 28x28:
# bands of several rows, finished 4 rows (112 pixels) at a time
@pytest.mark.parametrize(("depthwise", "window", "size"), [(False, 3, 6), (False, 3, 9), (True, 3, 6), (True, 7, 6),
                                                           (True, 5, 28)])
@pytest.mark.parametrize("activation", ["Relu", "Clip", "Sigmoid", "HardSwish", "LeakyRelu", None])
def test_blocked_conv_fused_sum_and_activation(driver: Driver, tmp_path: Path, *, depthwise: bool, window: int,
                                               size: int, activation: str | None) -> None:
    channels = 24  # a part-filled block: Sigmoid(0) = 0.5 and Clip(1, 3)(0) = 1 must not reach its lanes
    x = RNG.standard_normal((1, channels, size, size)).astype(np.float32)
    w = RNG.standard_normal((channels, 1 if depthwise else channels, window, window)).astype(np.float32)
    b = RNG.standard_normal(channels).astype(np.float32)
    total = RNG.standard_normal((1, channels, size, size)).astype(np.float32)
    attrs: dict = {"pads": [window // 2] * 4, "group": channels if depthwise else 1}
    y = ort_conv(x, w, b, **attrs).astype(np.float64) + total
    extra: dict = {}
    if activation is not None:
        extra = {"activation": activation}
        if activation == "Clip":
            extra.update(activation_alpha=1.0, activation_beta=3.0)
        ref = {"Relu": lambda v: np.maximum(v, 0), "Clip": lambda v: np.clip(v, 1, 3),
               "Sigmoid": lambda v: 1 / (1 + np.exp(-v)), "HardSwish": lambda v: v * np.clip(v / 6 + 0.5, 0, 1),
               "LeakyRelu": lambda v: np.where(v >= 0, v, 0.01 * v)}[activation]
        y = ref(y)
    got = _blocked_conv(driver, tmp_path, x, w, b, attrs={**attrs, **extra}, total=total)
    _check(got, y.astype(np.float32))


def test_winograd_keeps_the_lanes_past_the_channels_zero_when_an_input_is_infinite(driver: Driver,
                                                                                    tmp_path: Path) -> None:
    """24 output channels: the last block's 8 spare lanes sum zero weights times the transformed inputs, NaN where an
    input is infinite; they must stay 0 (a following conv would spread NaN into every channel)."""
    x = RNG.standard_normal((1, 16, 9, 9)).astype(np.float32)
    x[0, 3, 4, 4] = np.inf
    w, b = RNG.standard_normal((24, 16, 3, 3)).astype(np.float32), RNG.standard_normal(24).astype(np.float32)
    got = _blocked_conv(driver, tmp_path, x, w, b, attrs={"pads": [1, 1, 1, 1], "activation": "Relu"})
    assert not got[:, 1, :, :, 8:].any(), "the lanes past the channels must be zero"


# Stems: an NCHW image of a few channels in, NC1HWC0 out (the few-channel direct conv's blocked tiles).
STEMS = [
    ((1, 3, 17, 19), (32, 3, 3, 3), {"pads": [1, 1, 1, 1], "strides": [2, 2]}),     # MobileNet's, 2 blocks
    ((2, 3, 15, 15), (24, 3, 7, 7), {"pads": [3, 3, 3, 3], "strides": [2, 2]}),     # 7x7, batch 2, part block
    ((1, 4, 9, 10), (64, 4, 3, 3), {"pads": [0, 1, 1, 0]}),                          # stride 1, 4 blocks, asymmetric
    ((1, 1, 12, 30), (80, 1, 5, 5), {"strides": [2, 1]}),                            # VALID, 5 blocks, rows of tiles
    # One block: the AVX-512 tiles take a kernel row's columns a few at a time, a broadcast shared between them
    ((1, 3, 30, 34), (16, 3, 3, 3), {"pads": [1, 1, 1, 1], "strides": [2, 2]}),     # the default model's stem
    ((1, 2, 13, 29), (10, 2, 7, 7), {"pads": [3, 3, 3, 3], "strides": [2, 2]}),     # 7 columns: 4, then 3
    ((1, 3, 11, 26), (16, 3, 5, 5), {"pads": [2, 1, 0, 2]}),                         # stride 1, 5 columns: 4, then 1
]


@pytest.mark.parametrize("case", range(len(STEMS)))
@pytest.mark.parametrize("activation", [None, "Clip", "HardSwish"])
def test_blocked_conv_on_an_nchw_stem_image_matches_onnxruntime(driver: Driver, tmp_path: Path, case: int,
                                                                activation: str | None, threads: str) -> None:
    xs, ws, attrs = STEMS[case]  # (threads: 1 and 2, bands of rows shared by the pool)
    x, w = RNG.standard_normal(xs).astype(np.float32), RNG.standard_normal(ws).astype(np.float32)
    b = RNG.standard_normal(ws[0]).astype(np.float32) if case % 2 == 0 else None
    y = ort_conv(x, w, b, **attrs)
    extra: dict = {}
    if activation == "Clip":  # Clip(1, 3) would put 1 in the padding lanes: the kernel must zero them
        extra, y = {"activation": "Clip", "activation_alpha": 1.0, "activation_beta": 3.0}, np.clip(y, 1, 3)
    elif activation == "HardSwish":
        extra, y = {"activation": "HardSwish"}, y * np.clip(y / 6 + 0.5, 0, 1)
    _check(_blocked_conv(driver, tmp_path, x, w, b, attrs={**attrs, **extra}, planar=True), y)


@pytest.mark.parametrize(("channels", "size"), [(16, 5), (16, 9), (3, 5)])  # 9x9: Winograd; 3: a stem's NCHW image
def test_blocked_conv_rounds_its_inputs_to_fp16_when_the_node_says_so(driver: Driver, tmp_path: Path, channels: int,
                                                                     size: int) -> None:
    x = RNG.standard_normal((1, channels, size, size)).astype(np.float32)
    w = RNG.standard_normal((16, channels, 3, 3)).astype(np.float16).astype(np.float32)  # (rounded at compile time)
    want = ort_conv(x.astype(np.float16).astype(np.float32), w, None, pads=[1, 1, 1, 1])
    got = _blocked_conv(driver, tmp_path, x, w, None, attrs={"pads": [1, 1, 1, 1]}, flags=2,  # ROUND_INPUTS_FP16
                        planar=channels < 16)
    _check(got, want)


REFUSED = {  # x shape, weight shape, attributes, message
    "grouped": ((1, 2, 4, 4, 16), (32, 16, 3, 3), {"group": 2}, "neither 1 nor depthwise"),
    "channels": ((1, 3, 4, 4, 16), (16, 16, 1, 1), {}, "does not hold the weight's 16 channels"),
    "four_d": ((1, 16, 4, 4), (16, 16, 1, 1), {}, "needs a conv of few input channels"),
    "four_d_dilated": ((1, 3, 8, 8), (16, 3, 3, 3), {"dilations": [2, 2]}, "needs a conv of few input channels"),
    "three_d": ((1, 16, 4), (16, 16, 1, 1), {}, "NC1HWC0"),
}


@pytest.mark.parametrize("what", REFUSED)
def test_blocked_conv_refuses_what_it_does_not_run(driver: Driver, tmp_path: Path, what: str) -> None:
    x_shape, w_shape, attrs, message = REFUSED[what]
    x, w = np.zeros(x_shape, np.float32), np.zeros(w_shape, np.float32)
    with pytest.raises(Refused, match=message):
        run_kernel(driver, tmp_path, "BlockedConv", [x, w], [(np.float32, x_shape)], attrs=attrs,
                   domain="ascendsim", constant=(1,))


@pytest.mark.parametrize("shape", [(1, 24, 5, 7), (2, 5, 3, 3), (1, 32, 1, 1), (1, 16, 56, 56), (1, 21, 3, 37)])
def test_transdata_float_rows_both_ways(driver: Driver, tmp_path: Path, shape: tuple) -> None:
    """Rows moved as bits (a NaN's payload too), in register blocks and their tails (37 = 2 x 16 + 5 columns)."""
    x = RNG.standard_normal(shape).astype(np.float32)
    x.reshape(-1)[::7] = np.array([0x7FA00001], np.uint32).view(np.float32)[0]  # a signalling NaN's bits
    blocked = to_blocked(x)
    attrs = {"src_format": NCHW, "dst_format": NC1HWC0, "channels": shape[1]}
    got = run_kernel(driver, tmp_path / "in", "TransData", [x], [(np.float32, blocked.shape)], attrs=attrs,
                     domain="ascendsim")[0]
    np.testing.assert_array_equal(got.view(np.uint32), blocked.view(np.uint32))
    attrs = {"src_format": NC1HWC0, "dst_format": NCHW, "channels": shape[1]}
    back = run_kernel(driver, tmp_path / "out", "TransData", [blocked], [(np.float32, shape)], attrs=attrs,
                      domain="ascendsim")[0]
    np.testing.assert_array_equal(back.view(np.uint32), x.view(np.uint32))


def test_3x3_stride_1_convs_run_by_winograd_on_16_tiles_or_more(tmp_path: Path, device: int) -> None:
    """In a model: an 8x8 plane (4x4 tiles of 2x2) takes Winograd, the 4x4 plane after a strided conv the direct
    tiles; the load names each node's path, and the outputs match onnxruntime."""
    if ascendsim.kernel_variant() == "baseline":
        pytest.skip("the baseline variant compiles NCHW convs (layout_5hd.py)")
    weights = {f"w{i}": RNG.standard_normal(shape).astype(np.float32) * 0.2
               for i, shape in enumerate([(32, 32, 3, 3), (32, 32, 3, 3), (32, 32, 3, 3)])}
    nodes = [helper.make_node("Conv", ["x", "w0"], ["a"], pads=[1] * 4, name="winograd"),
             helper.make_node("Relu", ["a"], ["b"]),
             helper.make_node("Conv", ["b", "w1"], ["c"], pads=[1] * 4, strides=[2, 2], name="strided"),
             helper.make_node("Conv", ["c", "w2"], ["y"], pads=[1] * 4, name="small")]
    graph = helper.make_graph(nodes, "winograd_planes", [tensor("x", [1, 32, 8, 8])], [tensor("y", [1, 32, 4, 4])],
                              [const(name, w) for name, w in weights.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model_id, ret = acl.mdl.load_from_file(str(compile_model(model, tmp_path, "planes")))
    assert ret == 0, aclGetRecentErrMsg()
    try:
        paths = {node["name"]: node["path"] for node in ascendsim.model_kernels(model_id)["plans"][0]["nodes"]}
        assert paths["winograd"].startswith("NC1HWC0 Winograd F(2x2, 3x3)"), paths
        assert paths["strided"].startswith("NC1HWC0 direct") and paths["small"].startswith("NC1HWC0 direct"), paths
        x = RNG.standard_normal((1, 32, 8, 8)).astype(np.float32)
        want = reference(model, {"x": x})[0]
        np.testing.assert_allclose(execute_once(model_id, [x], [want])[0], want, rtol=1e-4, atol=1e-4)
    finally:
        acl.mdl.unload(model_id)
