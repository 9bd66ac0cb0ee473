"""ONNX builders of public architectures, laid out as PyTorch's exporter writes them (opset 17, float32,
random weights from a fixed seed): ResNet-50, MobileNetV2, EfficientNet-B0, ShuffleNet V1 (g = 3), DenseNet-121,
ConvNeXt-Tiny, ViT-B/16, the BERT-base encoder, and a tiny default classifier. Each builder returns an
`onnx.ModelProto`; keyword arguments make smaller versions for tests. `symbolic` gives a built model dynamic
axes (dim_params).

    from ascendsim.models import resnet50
    ascendsim.compile(resnet50(), "resnet50.om")
"""

from __future__ import annotations

from .bert import bert_base_encoder
from .convnext import convnext_tiny
from .default import default_model
from .densenet import densenet121
from .efficientnet import efficientnet_b0
from .mobilenet import mobilenet_v2
from .resnet import resnet50
from .shufflenet import shufflenet_v1
from .symbolic import symbolic
from .vit import vit_b16

__all__ = ["bert_base_encoder", "convnext_tiny", "default_model", "densenet121", "efficientnet_b0", "mobilenet_v2",
           "resnet50", "shufflenet_v1", "symbolic", "vit_b16"]
