"""ShuffleNet V1 (Zhang et al. 2017, "ShuffleNet: An Extremely Efficient Convolutional Neural Network for Mobile
Devices"), 1.0x with g = 3 groups.

torchvision has no ShuffleNet V1, so the module layout is a PyTorch definition in torchvision's style (the
names of its shufflenet_v2: conv1, maxpool, stage2 .. stage4, fc), with the channel plan of Megvii's reference
implementation (ShuffleNet-Series/ShuffleNetV1, model_size 1.0x, group 3): stem 24, stages [240, 480, 960] of
[4, 8, 4] units, bottleneck a quarter of the stage's output, no group convolution on the very first 1x1 (its
24 input channels are too few, as the paper says).

conv1: Conv 3x3/2 (24) -> BatchNormalization -> Relu; maxpool 3x3/2. A unit: conv1 1x1 group conv (g groups)
-> bn1 -> relu -> channel shuffle (Reshape [n, g, c / g, h, w] -> Transpose(0, 2, 1, 3, 4) -> Reshape [n, c,
h, w], the paper's reshape-transpose-flatten, with n, h and w read from the graph as tracing writes them) ->
conv2 depthwise 3x3 (stride 2 on a stage's first unit) -> bn2 -> conv3 1x1 group conv -> bn3. A stride-1 unit
adds its input and applies Relu; a stride-2 unit concatenates an AveragePool 3x3/2 (pad 1) of its input in
front of the branch (which then makes only out - in channels) and applies Relu. Head: GlobalAveragePool
(AdaptiveAvgPool2d(1); Megvii's AvgPool2d(7) is the same at 224) -> Flatten -> fc Gemm (960 -> 1000, with
bias). Full size: 1,865,728 parameters (Megvii's table: 1.9M; its classifier has no bias: 1,864,728).
"""

from __future__ import annotations

from collections.abc import Sequence

import onnx

from ._writer import GraphWriter, float_output


def shufflenet_v1(batch: int = 1, image: int = 224, *, groups: int = 3, stages: Sequence[int] = (4, 8, 4),
                  channels: Sequence[int] = (24, 240, 480, 960), num_classes: int = 1000,
                  seed: int = 0) -> onnx.ModelProto:
    """ShuffleNet V1 with input "input" [batch, 3, image, image] and logits "output" [batch, num_classes];
    `stages` (units per stage) and `channels` (the stem's, then each stage's output channels) make smaller
    versions for tests."""
    _check(groups, stages, channels)
    w = GraphWriter("shufflenet_v1", seed)
    x = w.input("input", [batch, 3, image, image])
    cin = channels[0]
    with w.scope("conv1"):
        x = w.conv(x, 3, cin, 3, stride=2, module="0")
        x = w.op_scoped("2", "Relu", w.batch_norm(x, cin, module="1"))
    with w.scope("maxpool"):
        x = w.op("MaxPool", [x], ceil_mode=0, dilations=[1, 1], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                 strides=[2, 2])
    for stage, (units, cout) in enumerate(zip(stages, channels[1:])):
        with w.scope(f"stage{stage + 2}"):
            for unit in range(units):
                with w.scope(str(unit)):
                    x = _unit(w, x, cin, cout, groups=groups, stride=2 if unit == 0 else 1,
                              group_first=stage > 0 or unit > 0)
                cin = cout
    with w.scope("globalpool"):
        x = w.op("GlobalAveragePool", [x])
    x = w.op("Flatten", [x], axis=1)
    logits = w.linear(x, cin, num_classes, module="fc", gemm=True)
    return w.model([float_output(logits, "output", [batch, num_classes])],
                   doc=f"ShuffleNet V1 (g = {groups}), stages {list(stages)}, channels {list(channels)}")


def _check(groups: int, stages: Sequence[int], channels: Sequence[int]) -> None:
    """Group convolutions need every grouped channel count to divide by `groups`."""
    ok = groups >= 1 and len(stages) >= 1 and len(channels) == len(stages) + 1 and min(*stages, *channels) >= 1
    for cin, cout in zip(channels, channels[1:]):
        ok = ok and cout > cin and (cout // 4) % groups == 0 and (cout - cin) % groups == 0 and cout % groups == 0
    if not ok:
        raise ValueError(f"shufflenet_v1: stages {list(stages)} and channels {list(channels)} (one more than stages, "
                         f"increasing) must be positive; a stage's channels, a quarter of them and its increase must "
                         f"divide by groups {groups}")


def _unit(w: GraphWriter, x: str, cin: int, cout: int, *, groups: int, stride: int, group_first: bool) -> str:
    mid = cout // 4
    branch = cout - cin if stride == 2 else cout
    out = w.conv(x, cin, mid, 1, group=groups if group_first else 1, module="conv1")
    out = w.op_scoped("relu", "Relu", w.batch_norm(out, mid, module="bn1"))
    if groups > 1:
        out = _channel_shuffle(w, out, mid, groups)
    out = w.conv(out, mid, mid, 3, stride=stride, group=mid, module="conv2")
    out = w.batch_norm(out, mid, module="bn2")
    out = w.conv(out, mid, branch, 1, group=groups, module="conv3")
    out = w.batch_norm(out, branch, module="bn3", gain=0.5)
    if stride == 1:
        return w.op("Relu", [w.op("Add", [out, x])])  # type: ignore[no-any-return]
    with w.scope("shortcut"):
        shortcut = w.avg_pool(x, 3, 2, 1)
    return w.op("Relu", [w.op("Concat", [shortcut, out], axis=1)])  # type: ignore[no-any-return]


def _channel_shuffle(w: GraphWriter, x: str, channels: int, groups: int) -> str:
    """view(n, g, c / g, h, w) -> transpose(1, 2) -> view(n, c, h, w): channel i * (c / g) + j moves to
    j * g + i, so the next group convolution sees channels from every group. Batch, height and width come from
    the graph (Shape -> Gather -> Unsqueeze, as tracing `x.size()` writes them), the channel counts are static."""
    n = w.dim(x, 0)
    h, wd = w.dim(x, 2), w.dim(x, 3)
    x = w.reshape(x, [n, groups, channels // groups, h, wd])
    x = w.op("Transpose", [x], perm=[0, 2, 1, 3, 4])
    return w.reshape(x, [n, channels, h, wd])
