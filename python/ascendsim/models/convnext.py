"""ConvNeXt-Tiny (torchvision `convnext_tiny`): a patchify stem and inverted-bottleneck blocks in channels-last.

features.0: Conv 4x4 stride 4 (3 -> 96, with bias) -> LayerNorm2d. Four stages of [3, 3, 9, 3] CNBlocks at
[96, 192, 384, 768] channels (features.1, .3, .5, .7), each stage but the last followed by a downsampling
layer (features.2, .4, .6: LayerNorm2d -> Conv 2x2 stride 2 with bias). A CNBlock's `block`: depthwise Conv
7x7 (pad 3, with bias) -> Permute to NHWC (Transpose) -> LayerNormalization (eps 1e-6) -> Linear (dim -> 4 *
dim, MatMul + Add on the 4-D tensor) -> GELU (Erf form) -> Linear (4 * dim -> dim) -> Permute back to NCHW;
then `layer_scale * block(x)` (Mul by a [dim, 1, 1] parameter), stochastic depth (the identity in eval mode)
and the residual Add. LayerNorm2d is torchvision's LayerNorm over channels: Transpose to NHWC ->
LayerNormalization -> Transpose back. Head: GlobalAveragePool (AdaptiveAvgPool2d(1)) -> classifier: LayerNorm2d
-> Flatten -> Gemm (768 -> 1000). Full size: 28,589,128 parameters.

torchvision initialises the layer scale to 1e-6, which would make every block nearly the identity and hide
mistakes in it; the random layer scales here are 0.1 .. 0.5 (trained ConvNeXts have scales of that order).
"""

from __future__ import annotations

from collections.abc import Sequence

import onnx

from ._writer import GraphWriter, float_output

EPS = 1e-6


def convnext_tiny(batch: int = 1, image: int = 224, *, depths: Sequence[int] = (3, 3, 9, 3),
                  dims: Sequence[int] = (96, 192, 384, 768), num_classes: int = 1000, seed: int = 0) -> onnx.ModelProto:
    """ConvNeXt-Tiny with input "input" [batch, 3, image, image] and logits "output" [batch, num_classes];
    `depths` (blocks per stage) and `dims` (channels per stage) make smaller versions for tests."""
    if len(depths) != len(dims) or not depths or min(*depths, *dims) < 1 or image < 4 * 2 ** (len(dims) - 1):
        raise ValueError(f"convnext_tiny: depths {list(depths)} and dims {list(dims)} must be positive and as long "
                         f"as each other, image {image} at least the total stride")
    w = GraphWriter("convnext_tiny", seed)
    x = w.input("input", [batch, 3, image, image])
    with w.scope("features"):
        with w.scope("0"):
            x = w.conv(x, 3, dims[0], 4, stride=4, padding=0, bias=True, module="0")
            x = _layer_norm_2d(w, x, dims[0], module="1")
        index = 1
        for stage, (depth, dim) in enumerate(zip(depths, dims)):
            with w.scope(str(index)):
                for block in range(depth):
                    with w.scope(str(block)):
                        x = _cn_block(w, x, dim)
            index += 1
            if stage + 1 < len(dims):
                with w.scope(str(index)):
                    x = _layer_norm_2d(w, x, dim, module="0")
                    x = w.conv(x, dim, dims[stage + 1], 2, stride=2, padding=0, bias=True, module="1")
                index += 1
    with w.scope("avgpool"):
        x = w.op("GlobalAveragePool", [x])
    with w.scope("classifier"):
        x = _layer_norm_2d(w, x, dims[-1], module="0")
        x = w.op_scoped("1", "Flatten", x, axis=1)
        logits = w.linear(x, dims[-1], num_classes, module="2", gemm=True)
    return w.model([float_output(logits, "output", [batch, num_classes])],
                   doc=f"ConvNeXt-Tiny (torchvision layout), depths {list(depths)}, dims {list(dims)}")


def _layer_norm_2d(w: GraphWriter, x: str, channels: int, *, module: str) -> str:
    """torchvision's LayerNorm2d: x.permute(0, 2, 3, 1) -> F.layer_norm over channels -> x.permute(0, 3, 1, 2)."""
    with w.scope(module):
        x = w.op("Transpose", [x], perm=[0, 2, 3, 1])
        scale = w.normal("weight", [channels], 0.05, mean=1.0)
        bias = w.normal("bias", [channels], 0.02)
        x = w.op("LayerNormalization", [x, scale, bias], axis=-1, epsilon=EPS)
        return w.op("Transpose", [x], perm=[0, 3, 1, 2])  # type: ignore[no-any-return]


def _cn_block(w: GraphWriter, x: str, dim: int) -> str:
    with w.scope("block"):
        y = w.conv(x, dim, dim, 7, padding=3, group=dim, bias=True, module="0")
        y = w.op_scoped("1", "Transpose", y, perm=[0, 2, 3, 1])
        y = w.layer_norm(y, dim, module="2", eps=EPS)
        y = w.linear(y, dim, 4 * dim, module="3")
        y = w.gelu_erf(y, module="4")
        y = w.linear(y, 4 * dim, dim, module="5")
        y = w.op_scoped("6", "Transpose", y, perm=[0, 3, 1, 2])
    y = w.op("Mul", [w.uniform("layer_scale", [dim, 1, 1], 0.1, 0.5), y])
    return w.op("Add", [y, x])  # type: ignore[no-any-return]
