"""MobileNetV2 (torchvision `mobilenet_v2`): inverted residual blocks with depthwise convolutions.

features.0: Conv 3x3/2 (32) -> BatchNormalization -> ReLU6 (Clip 0..6). Then 17 inverted residuals from the
(t, c, n, s) table below: 1x1 expand by t (-> BN -> ReLU6; absent when t == 1), 3x3 depthwise (group ==
channels, stride s on the first block of a row -> BN -> ReLU6), 1x1 linear projection (-> BN, no activation);
a residual Add when stride is 1 and the channel count is unchanged. features.18: 1x1 conv to 1280 -> BN ->
ReLU6. Head: GlobalAveragePool -> Flatten -> (Dropout, gone in eval) -> Gemm (1280 -> 1000). Full size:
3,504,872 parameters. `width` is torchvision's width_mult (channels rounded to multiples of 8).
"""

from __future__ import annotations

import onnx

from ._writer import GraphWriter, float_output, make_divisible

# expand ratio t, output channels c, repeats n, stride s (torchvision's inverted_residual_setting)
SETTINGS = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
            (6, 320, 1, 1))


def mobilenet_v2(batch: int = 1, image: int = 224, *, width: float = 1.0, num_classes: int = 1000,
                 seed: int = 0) -> onnx.ModelProto:
    """MobileNetV2 with input "input" [batch, 3, image, image] and logits "output" [batch, num_classes]."""
    if width <= 0:
        raise ValueError(f"mobilenet_v2: width must be positive, got {width}")
    w = GraphWriter("mobilenet_v2", seed)
    x = w.input("input", [batch, 3, image, image])
    cin = make_divisible(32 * width)
    last = make_divisible(1280 * max(1.0, width))
    index = 0
    with w.scope("features"):
        with w.scope(str(index)):
            x = _conv_bn_relu6(w, x, 3, cin, 3, stride=2)
        for t, c, n, s in SETTINGS:
            cout = make_divisible(c * width)
            for repeat in range(n):
                index += 1
                with w.scope(str(index)):
                    x = _inverted_residual(w, x, cin, cout, stride=s if repeat == 0 else 1, expand=t)
                cin = cout
        with w.scope(str(index + 1)):
            x = _conv_bn_relu6(w, x, cin, last, 1)
    x = w.op("Flatten", [w.op("GlobalAveragePool", [x])], axis=1)
    with w.scope("classifier"):
        logits = w.linear(x, last, num_classes, module="1", gemm=True)
    return w.model([float_output(logits, "output", [batch, num_classes])],
                   doc=f"MobileNetV2 (torchvision layout), width_mult {width}")


def _conv_bn_relu6(w: GraphWriter, x: str, cin: int, cout: int, kernel: int, *, stride: int = 1,
                   group: int = 1) -> str:
    """torchvision's Conv2dNormActivation: submodules 0 (Conv, no bias), 1 (BN), 2 (ReLU6)."""
    x = w.conv(x, cin, cout, kernel, stride=stride, group=group, module="0")
    return w.relu6(w.batch_norm(x, cout, module="1"), module="2")


def _inverted_residual(w: GraphWriter, x: str, cin: int, cout: int, *, stride: int, expand: int) -> str:
    hidden = round(cin * expand)
    with w.scope("conv"):
        out, index = x, 0
        if expand != 1:
            with w.scope(str(index)):
                out = _conv_bn_relu6(w, out, cin, hidden, 1)
            index += 1
        with w.scope(str(index)):
            out = _conv_bn_relu6(w, out, hidden, hidden, 3, stride=stride, group=hidden)
        out = w.conv(out, hidden, cout, 1, module=str(index + 1))
        out = w.batch_norm(out, cout, module=str(index + 2), gain=0.5)
    if stride == 1 and cin == cout:
        return w.op("Add", [x, out])  # type: ignore[no-any-return]
    return out
