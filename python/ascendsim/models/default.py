"""The default model: a tiny image classifier small enough to embed in the README (a few hundred KB).

Input "input" float32 [1, 3, image, image] (224 by default). Four Conv 3x3 stride 2 -> BatchNormalization ->
Relu stages (3 -> 16 -> 32 -> 64 -> 64 channels), GlobalAveragePool, Flatten, Gemm (64 -> 1000) and Softmax:
output "output" [1, 1000], class probabilities. 125,688 parameters (491 KiB of float32).
"""

from __future__ import annotations

import onnx

from ._writer import GraphWriter, float_output

CHANNELS = (16, 32, 64, 64)


def default_model(image: int = 224, *, num_classes: int = 1000, seed: int = 0) -> onnx.ModelProto:
    w = GraphWriter("default_model", seed)
    x = w.input("input", [1, 3, image, image])
    cin = 3
    with w.scope("features"):
        for i, cout in enumerate(CHANNELS):
            with w.scope(str(i)):
                x = w.conv(x, cin, cout, 3, stride=2, module="conv")
                x = w.op_scoped("relu", "Relu", w.batch_norm(x, cout, module="bn"))
            cin = cout
    x = w.op("Flatten", [w.op("GlobalAveragePool", [x])], axis=1)
    logits = w.linear(x, cin, num_classes, module="classifier", gemm=True)
    probs = w.op("Softmax", [logits], axis=1)
    return w.model([float_output(probs, "output", [1, num_classes])], doc="ascendsim default classifier")
