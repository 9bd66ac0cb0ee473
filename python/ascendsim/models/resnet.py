"""ResNet-50 (torchvision `resnet50`, ResNet v1.5: the stride is on the 3x3 conv of each bottleneck).

Stem: Conv 7x7/2 (64) -> BatchNormalization -> Relu -> MaxPool 3x3/2. Four stages of bottlenecks
(1x1 reduce -> 3x3 -> 1x1 expand x4, each followed by BatchNormalization, Relu after the first two and after the
residual Add); the first block of a stage has a projection shortcut (Conv 1x1 with the stage's stride ->
BatchNormalization). Head: GlobalAveragePool -> Flatten(axis 1) -> Gemm (fc, 2048 -> 1000). Full size:
blocks [3, 4, 6, 3], width 64: 25,557,032 parameters (BN running statistics not counted, as torchvision does
not count buffers).
"""

from __future__ import annotations

from collections.abc import Sequence

import onnx

from ._writer import GraphWriter, float_output

EXPANSION = 4


def resnet50(batch: int = 1, image: int = 224, *, layers: Sequence[int] = (3, 4, 6, 3), width: int = 64,
             num_classes: int = 1000, seed: int = 0) -> onnx.ModelProto:
    """ResNet-50 with input "input" [batch, 3, image, image] and logits "output" [batch, num_classes];
    `layers` (blocks per stage) and `width` (the stem's channels; stages use width * 1, 2, 4, 8) make smaller
    versions for tests."""
    if len(layers) != 4 or min(layers) < 1 or width < 1:
        raise ValueError(f"resnet50: layers must be 4 positive block counts and width positive, got {layers}, {width}")
    w = GraphWriter("resnet50", seed)
    x = w.input("input", [batch, 3, image, image])
    x = w.conv(x, 3, width, 7, stride=2, padding=3, module="conv1")
    x = w.op_scoped("relu", "Relu", w.batch_norm(x, width, module="bn1"))
    with w.scope("maxpool"):
        x = w.op("MaxPool", [x], ceil_mode=0, dilations=[1, 1], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                 strides=[2, 2])
    cin = width
    for stage, blocks in enumerate(layers):
        planes = width * 2**stage
        with w.scope(f"layer{stage + 1}"):
            for block in range(blocks):
                stride = 2 if stage > 0 and block == 0 else 1
                with w.scope(str(block)):
                    x = _bottleneck(w, x, cin, planes, stride, project=block == 0)
                cin = planes * EXPANSION
    with w.scope("avgpool"):
        x = w.op("GlobalAveragePool", [x])
    x = w.op("Flatten", [x], axis=1)
    logits = w.linear(x, cin, num_classes, module="fc", gemm=True)
    return w.model([float_output(logits, "output", [batch, num_classes])],
                   doc=f"ResNet-50 v1.5 (torchvision layout), layers {list(layers)}, width {width}")


def _bottleneck(w: GraphWriter, x: str, cin: int, planes: int, stride: int, *, project: bool) -> str:
    out = w.op_scoped("relu", "Relu", w.batch_norm(w.conv(x, cin, planes, 1, module="conv1"), planes, module="bn1"))
    out = w.op_scoped("relu_1", "Relu", w.batch_norm(w.conv(out, planes, planes, 3, stride=stride, module="conv2"),
                                                       planes, module="bn2"))
    out = w.batch_norm(w.conv(out, planes, planes * EXPANSION, 1, module="conv3"), planes * EXPANSION, module="bn3",
                       gain=0.5)
    identity = x
    if project:
        with w.scope("downsample"):
            identity = w.batch_norm(w.conv(x, cin, planes * EXPANSION, 1, stride=stride, module="0"),
                                    planes * EXPANSION, module="1")
    return w.op_scoped("relu_2", "Relu", w.op("Add", [out, identity]))
