"""DenseNet-121 (torchvision `densenet121`, DenseNet-BC: growth rate 32, bottleneck width 4 * 32, compression 0.5).

features: conv0 7x7/2 (64) -> norm0 (BatchNormalization) -> relu0 -> pool0 MaxPool 3x3/2. Four dense blocks of
[6, 12, 24, 16] layers; layer i first concatenates everything its block has so far (the block's input and the
i new feature maps before it; torch.cat of a one-tensor list for the first layer, which the exporter still
writes as a one-input Concat), then norm1 -> relu1 -> conv1 1x1 (to 4 * growth) -> norm2 -> relu2 -> conv2 3x3
(to growth); the block ends with a Concat of its input and all its layers' outputs. Between blocks a
transition halves the channels and the resolution: norm -> relu -> conv 1x1 -> pool (AveragePool 2x2/2).
features.norm5 (BatchNormalization), then F.relu -> GlobalAveragePool (adaptive_avg_pool2d to 1x1) -> Flatten
-> classifier Gemm (1024 -> 1000). Full size: 7,978,856 parameters.
"""

from __future__ import annotations

from collections.abc import Sequence

import onnx

from ._writer import GraphWriter, float_output


def densenet121(batch: int = 1, image: int = 224, *, blocks: Sequence[int] = (6, 12, 24, 16), growth: int = 32,
                init_features: int = 64, bn_size: int = 4, num_classes: int = 1000, seed: int = 0) -> onnx.ModelProto:
    """DenseNet-121 with input "input" [batch, 3, image, image] and logits "output" [batch, num_classes];
    `blocks` (layers per dense block), `growth`, `init_features` and `bn_size` make smaller versions."""
    if not blocks or min(blocks) < 1 or min(growth, init_features, bn_size) < 1:
        raise ValueError(f"densenet121: blocks {list(blocks)}, growth {growth}, init_features {init_features} and "
                         f"bn_size {bn_size} must be positive")
    w = GraphWriter("densenet121", seed)
    x = w.input("input", [batch, 3, image, image])
    channels = init_features
    with w.scope("features"):
        x = w.conv(x, 3, channels, 7, stride=2, padding=3, module="conv0")
        x = w.op_scoped("relu0", "Relu", w.batch_norm(x, channels, module="norm0"))
        with w.scope("pool0"):
            x = w.op("MaxPool", [x], ceil_mode=0, dilations=[1, 1], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                     strides=[2, 2])
        for i, layers in enumerate(blocks):
            with w.scope(f"denseblock{i + 1}"):
                x = _dense_block(w, x, channels, layers, growth=growth, bn_size=bn_size)
            channels += layers * growth
            if i != len(blocks) - 1:
                with w.scope(f"transition{i + 1}"):
                    x = _transition(w, x, channels, channels // 2)
                channels //= 2
        x = w.batch_norm(x, channels, module="norm5")
    x = w.op("Flatten", [w.op("GlobalAveragePool", [w.op("Relu", [x])])], axis=1)
    logits = w.linear(x, channels, num_classes, module="classifier", gemm=True)
    return w.model([float_output(logits, "output", [batch, num_classes])],
                   doc=f"DenseNet-121 (torchvision layout), blocks {list(blocks)}, growth {growth}, "
                       f"init_features {init_features}, bn_size {bn_size}")


def _dense_block(w: GraphWriter, x: str, cin: int, layers: int, *, growth: int, bn_size: int) -> str:
    features = [x]
    for i in range(layers):
        with w.scope(f"denselayer{i + 1}"):
            features.append(_dense_layer(w, features, cin + i * growth, growth, bn_size))
    return w.op("Concat", features, axis=1)  # type: ignore[no-any-return]


def _dense_layer(w: GraphWriter, features: list[str], cin: int, growth: int, bn_size: int) -> str:
    hidden = bn_size * growth
    x = w.op("Concat", features, axis=1)  # the layer's bn_function: torch.cat(inputs, 1)
    x = w.op_scoped("relu1", "Relu", w.batch_norm(x, cin, module="norm1"))
    x = w.conv(x, cin, hidden, 1, module="conv1")
    x = w.op_scoped("relu2", "Relu", w.batch_norm(x, hidden, module="norm2"))
    return w.conv(x, hidden, growth, 3, module="conv2")


def _transition(w: GraphWriter, x: str, cin: int, cout: int) -> str:
    x = w.op_scoped("relu", "Relu", w.batch_norm(x, cin, module="norm"))
    x = w.conv(x, cin, cout, 1, module="conv")
    with w.scope("pool"):
        return w.avg_pool(x, 2, 2)
