"""EfficientNet-B0 (torchvision `efficientnet_b0`): MBConv blocks with squeeze-and-excitation and SiLU.

features.0: Conv 3x3/2 (32) -> BatchNormalization -> SiLU. features.1 .. features.7: one stage per row of the
(expand, kernel, stride, in, out, layers) table below. Each MBConv is a Sequential `block`: a 1x1 expand conv
-> BN -> SiLU (absent when the expand ratio is 1), a depthwise k x k conv (the stage's stride on its first
block) -> BN -> SiLU, squeeze-and-excitation (GlobalAveragePool -> fc1 1x1 conv -> SiLU -> fc2 1x1 conv ->
Sigmoid -> Mul with the block's features; the squeeze width is a quarter of the block's input channels), and a
1x1 projection conv -> BN; then a residual Add when the stride is 1 and the channel count unchanged
(stochastic depth is the identity in eval mode, so the exporter writes nothing for it). features.8: 1x1 conv
to 4 * 320 = 1280 -> BN -> SiLU. Head: GlobalAveragePool (AdaptiveAvgPool2d(1)) -> Flatten -> (Dropout, gone
in eval) -> Gemm (1280 -> 1000). Opset 17 has no SiLU, so each one is Sigmoid + Mul. Full size: 5,288,548
parameters. `width` and `depth` are torchvision's width_mult (channels rounded to multiples of 8) and
depth_mult (blocks per stage, rounded up).
"""

from __future__ import annotations

import math

import onnx

from ._writer import GraphWriter, float_output, make_divisible

# expand ratio, kernel, stride, input channels, output channels, blocks (the paper's Table 1 as torchvision
# lists it)
SETTINGS = ((1, 3, 1, 32, 16, 1), (6, 3, 2, 16, 24, 2), (6, 5, 2, 24, 40, 2), (6, 3, 2, 40, 80, 3),
            (6, 5, 1, 80, 112, 3), (6, 5, 2, 112, 192, 4), (6, 3, 1, 192, 320, 1))


def efficientnet_b0(batch: int = 1, image: int = 224, *, width: float = 1.0, depth: float = 1.0,
                    num_classes: int = 1000, seed: int = 0) -> onnx.ModelProto:
    """EfficientNet-B0 with input "input" [batch, 3, image, image] and logits "output" [batch, num_classes]."""
    if width <= 0 or depth <= 0:
        raise ValueError(f"efficientnet_b0: width and depth must be positive, got {width}, {depth}")
    w = GraphWriter("efficientnet_b0", seed)
    x = w.input("input", [batch, 3, image, image])
    cin = make_divisible(SETTINGS[0][3] * width)
    with w.scope("features"):
        with w.scope("0"):
            x = _conv_bn_silu(w, x, 3, cin, 3, stride=2)
        for stage, (expand, kernel, stride, _, out, blocks) in enumerate(SETTINGS, start=1):
            cout = make_divisible(out * width)
            with w.scope(str(stage)):
                for block in range(math.ceil(blocks * depth)):
                    with w.scope(str(block)):
                        x = _mbconv(w, x, cin, cout, expand=expand, kernel=kernel, stride=stride if block == 0 else 1)
                    cin = cout
        last = 4 * cin
        with w.scope(str(len(SETTINGS) + 1)):
            x = _conv_bn_silu(w, x, cin, last, 1)
    with w.scope("avgpool"):
        x = w.op("GlobalAveragePool", [x])
    x = w.op("Flatten", [x], axis=1)
    with w.scope("classifier"):
        logits = w.linear(x, last, num_classes, module="1", gemm=True)
    return w.model([float_output(logits, "output", [batch, num_classes])],
                   doc=f"EfficientNet-B0 (torchvision layout), width_mult {width}, depth_mult {depth}")


def _conv_bn_silu(w: GraphWriter, x: str, cin: int, cout: int, kernel: int, *, stride: int = 1,
                  group: int = 1) -> str:
    """torchvision's Conv2dNormActivation with SiLU: submodules 0 (Conv, no bias), 1 (BN), 2 (SiLU).

    SiLU passes about half of a small input (He-scaled weights assume ReLU's variance), so with BN scales of
    0.5 .. 1 the activations shrink layer by layer to where SiLU is nearly linear; scales of 1 .. 2 keep them
    at ~0.1 .. 1.4 std through the network (2.5 already grows them without bound)."""
    x = w.conv(x, cin, cout, kernel, stride=stride, group=group, module="0")
    return w.silu(w.batch_norm(x, cout, module="1", gain=2.0), module="2")


def _mbconv(w: GraphWriter, x: str, cin: int, cout: int, *, expand: int, kernel: int, stride: int) -> str:
    hidden = make_divisible(cin * expand)
    with w.scope("block"):
        out, index = x, 0
        if hidden != cin:
            with w.scope("0"):
                out = _conv_bn_silu(w, out, cin, hidden, 1)
            index = 1
        with w.scope(str(index)):
            out = _conv_bn_silu(w, out, hidden, hidden, kernel, stride=stride, group=hidden)
        with w.scope(str(index + 1)):
            out = _squeeze_excitation(w, out, hidden, max(1, cin // 4))
        with w.scope(str(index + 2)):
            out = w.batch_norm(w.conv(out, hidden, cout, 1, module="0"), cout, module="1", gain=0.5)
    if stride == 1 and cin == cout:
        return w.op("Add", [out, x])  # type: ignore[no-any-return]
    return out


def _squeeze_excitation(w: GraphWriter, x: str, channels: int, squeeze: int) -> str:
    """torchvision's SqueezeExcitation: per-channel gates from the pooled features, `scale * input`."""
    with w.scope("avgpool"):
        scale = w.op("GlobalAveragePool", [x])
    scale = w.silu(w.conv(scale, channels, squeeze, 1, bias=True, module="fc1"), module="activation")
    scale = w.conv(scale, squeeze, channels, 1, bias=True, module="fc2")
    scale = w.op_scoped("scale_activation", "Sigmoid", scale)
    return w.op("Mul", [scale, x])  # type: ignore[no-any-return]
