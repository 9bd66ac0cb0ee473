"""ascendsim.models: the public-architecture builders are valid ONNX, run in onnxruntime, have the layer
structure of what the PyTorch exporter writes, and compile (memory plan checked; passes keep the numbers).
Small configurations except the full-size CNNs (ResNet-50, EfficientNet-B0, ShuffleNet V1, DenseNet-121,
ConvNeXt-Tiny): their exact parameter counts and a full compile."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest
from test_pass_helpers import optimize

from ascendsim import cpu
from ascendsim.compiler.build import compile
from ascendsim.compiler.memory import check_plan
from ascendsim.models import (
    bert_base_encoder,
    convnext_tiny,
    default_model,
    densenet121,
    efficientnet_b0,
    mobilenet_v2,
    resnet50,
    shufflenet_v1,
    vit_b16,
)
from onnx_models import random_feeds, run_ort

SMALL: dict[str, Callable[[], onnx.ModelProto]] = {
    "default": lambda: default_model(image=32),
    "resnet50": lambda: resnet50(batch=2, image=32, layers=(1, 2, 1, 1), width=8, num_classes=10),
    "mobilenet_v2": lambda: mobilenet_v2(image=32, width=0.25, num_classes=10),
    "vit_b16": lambda: vit_b16(batch=2, image=32, layers=2, hidden=32, heads=4, mlp=64, patch=8, num_classes=10),
    "bert": lambda: bert_base_encoder(batch=2, seq=8, layers=2, hidden=32, heads=4, intermediate=64, vocab=50),
    "bert_no_embeddings": lambda: bert_base_encoder(batch=2, seq=8, layers=2, hidden=32, heads=4, intermediate=64,
                                                    embeddings=False),
    "efficientnet_b0": lambda: efficientnet_b0(image=32, width=0.25, depth=0.25, num_classes=10),
    "shufflenet_v1": lambda: shufflenet_v1(batch=2, image=32, stages=(1, 2, 1), channels=(12, 60, 120, 240),
                                           num_classes=10),
    "densenet121": lambda: densenet121(image=32, blocks=(2, 3, 2, 1), growth=8, init_features=16, bn_size=2,
                                       num_classes=10),
    "convnext_tiny": lambda: convnext_tiny(batch=2, image=32, depths=(1, 1, 2, 1), dims=(8, 16, 24, 32),
                                           num_classes=10),
}
OUTPUT_SHAPES = {"default": (1, 1000), "resnet50": (2, 10), "mobilenet_v2": (1, 10), "vit_b16": (2, 10),
                 "bert": (2, 8, 32), "bert_no_embeddings": (2, 8, 32), "efficientnet_b0": (1, 10),
                 "shufflenet_v1": (2, 10), "densenet121": (1, 10), "convnext_tiny": (2, 10)}


def feeds_for(model: onnx.ModelProto) -> dict[str, np.ndarray]:
    """Random inputs; BERT's ids within the vocabulary, a 0/1 mask with padding, token types 0/1."""
    feeds = random_feeds(model)
    if "input_ids" in feeds:
        rng = np.random.default_rng(5)
        feeds["input_ids"] = rng.integers(0, 50, feeds["input_ids"].shape).astype(np.int64)
        mask = np.ones_like(feeds["attention_mask"])
        mask[1, 5:] = 0
        feeds["attention_mask"] = mask
        feeds["token_type_ids"] = rng.integers(0, 2, feeds["token_type_ids"].shape).astype(np.int64)
    return feeds


def ops(model: onnx.ModelProto) -> Counter[str]:
    return Counter(node.op_type for node in model.graph.node)


def parameters(model: onnx.ModelProto) -> int:
    return int({p.key: p.value for p in model.metadata_props}["parameters"])


def attr(node: onnx.NodeProto, name: str) -> object:
    return next(onnx.helper.get_attribute_value(a) for a in node.attribute if a.name == name)


def convs(model: onnx.ModelProto, *, depthwise: bool | None = None, kernel: int | None = None,
          group: int | None = None) -> list[onnx.NodeProto]:
    """The Conv nodes, optionally only the depthwise ones (group == input channels, weight [C, 1, k, k]),
    those of one kernel size, or those of one group count."""
    shapes = {i.name: list(i.dims) for i in model.graph.initializer}
    found = []
    for node in (n for n in model.graph.node if n.op_type == "Conv"):
        weight = shapes[node.input[1]]
        if depthwise is not None and (weight[1] == 1 and attr(node, "group") == weight[0] > 1) != depthwise:
            continue
        if kernel is not None and weight[2:] != [kernel, kernel]:
            continue
        if group is not None and attr(node, "group") != group:
            continue
        found.append(node)
    return found


def batch_norms_after_non_convs(model: onnx.ModelProto) -> int:
    """BatchNormalizations whose input no Conv makes (DenseNet's, after a Concat): nothing to fold them into."""
    conv_outputs = {n.output[0] for n in model.graph.node if n.op_type == "Conv"}
    return sum(n.op_type == "BatchNormalization" and n.input[0] not in conv_outputs for n in model.graph.node)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_valid_and_runs_in_onnxruntime(name: str) -> None:
    model = SMALL[name]()
    onnx.checker.check_model(model, full_check=True)
    assert [o.name for o in model.graph.output] == ["output" if "bert" not in name else "last_hidden_state"]
    (out,) = run_ort(model, feeds_for(model))
    assert out.shape == OUTPUT_SHAPES[name] and out.dtype == np.float32
    assert np.isfinite(out).all() and np.abs(out).max() < 1e3
    assert all(i.data_type in (onnx.TensorProto.FLOAT, onnx.TensorProto.INT64) for i in model.graph.initializer)


@pytest.mark.parametrize("name", sorted(SMALL))
@pytest.mark.parametrize("single_stream", [False, True])
def test_compiles_with_a_valid_memory_plan(name: str, single_stream: bool, tmp_path: Path) -> None:
    result = compile(SMALL[name](), tmp_path / name, single_stream=single_stream)
    check_plan(result.graph, result.streams, result.memory)
    assert len(result.graph.nodes) < result.nodes_before
    assert result.memory.lower_bound <= result.memory.arena_size <= result.memory.no_reuse
    assert result.output is not None and result.output.stat().st_size == result.file_size > result.weights.size
    assert all(v.is_static for n in result.graph.nodes for v in n.outputs)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_passes_keep_the_numbers(name: str) -> None:
    model = SMALL[name]()
    optimized = optimize(model)
    # (the layout pass runs those in NC1HWC0 as a per-channel Mul and Add: the small DenseNet's, with AVX-512)
    moved = optimized.report.stat("BatchNormalizations in NC1HWC0")
    assert optimized.after.get("BatchNormalization", 0) + moved == batch_norms_after_non_convs(model)
    assert "Shape" not in optimized.after
    optimized.assert_equivalent(feeds_for(model), rtol=1e-3, atol=1e-4)


def test_same_seed_same_model_other_seed_other_weights() -> None:
    a, b = resnet50(image=32, layers=(1, 1, 1, 1), width=8), resnet50(image=32, layers=(1, 1, 1, 1), width=8)
    assert a.SerializeToString() == b.SerializeToString()
    c = resnet50(image=32, layers=(1, 1, 1, 1), width=8, seed=1)
    assert a.graph.initializer[0].raw_data != c.graph.initializer[0].raw_data


def test_resnet50_structure() -> None:
    model = SMALL["resnet50"]()
    blocks = 1 + 2 + 1 + 1
    counts = ops(model)
    assert counts["Conv"] == counts["BatchNormalization"] == 1 + 3 * blocks + 4  # stem, bottlenecks, projections
    assert counts["Add"] == blocks and counts["Relu"] == 1 + 3 * blocks
    assert counts["MaxPool"] == counts["GlobalAveragePool"] == counts["Flatten"] == counts["Gemm"] == 1
    names = {i.name for i in model.graph.initializer}
    assert {"conv1.weight", "layer1.0.downsample.0.weight", "layer2.1.bn3.running_var", "fc.bias"} <= names
    assert any(n.name == "/layer1/layer1.0/conv1/Conv" for n in model.graph.node)


def test_resnet50_full_size(tmp_path: Path) -> None:
    model = resnet50()
    assert parameters(model) == 25_557_032
    counts = ops(model)
    assert counts["Conv"] == 53 and counts["BatchNormalization"] == 53 and counts["Add"] == 16
    result = compile(model, tmp_path / "resnet50")
    check_plan(result.graph, result.streams, result.memory)
    built = result.graph.count_ops()
    assert result.nodes_before == 175
    if cpu.kernel_variant() != "baseline":
        # every conv in NC1HWC0, the stem and its pool too (passes/layout_5hd_regions.py: the 3x3 stride-1 convs
        # win blocked on Winograd), one TransData before the head's Gemm
        assert "Conv" not in built and built["BlockedConv"] == 53 and built["TransData"] == 1
    else:
        assert built["Conv"] == 53
    assert "BatchNormalization" not in built


def test_mobilenet_v2_structure() -> None:
    model = SMALL["mobilenet_v2"]()
    counts = ops(model)
    depthwise = [n for n in model.graph.node if n.op_type == "Conv"
                 and next(a.i for a in n.attribute if a.name == "group") > 1]
    assert len(depthwise) == 17  # one per inverted residual
    assert counts["Clip"] == 1 + 16 * 2 + 1 + 1  # stem, expand + depthwise (block 1 has no expand), last conv
    # residuals where stride is 1 and channels are unchanged: 10 at full width; at width 0.25 the first block
    # (8 -> 8 channels after rounding to multiples of 8) has one too
    assert counts["Add"] == 11
    assert ops(mobilenet_v2(image=32, num_classes=10))["Add"] == 10
    assert counts["Conv"] == counts["BatchNormalization"] == 52


def test_efficientnet_b0_structure() -> None:
    model = SMALL["efficientnet_b0"]()
    counts = ops(model)
    blocks = 7  # depth_mult 0.25: one MBConv per stage
    assert len(convs(model, depthwise=True)) == blocks and len(convs(model, depthwise=True, kernel=5)) == 3
    # squeeze-and-excitation per block: GlobalAveragePool -> fc1 -> SiLU -> fc2 -> Sigmoid -> Mul(scale, x)
    gates = [n for n in model.graph.node if n.name.endswith("/scale_activation/Sigmoid")]
    assert len(gates) == blocks and counts["GlobalAveragePool"] == blocks + 1
    silus = 1 + (2 * blocks - 1) + blocks + 1  # stem, expand (not in stage 1) + depthwise, SE, last conv
    assert counts["Sigmoid"] == counts["Mul"] == silus + blocks
    assert counts["Conv"] == 1 + (3 * blocks - 1) + 2 * blocks + 1
    # at width_mult 0.25 stage 1 keeps its channels (8 -> 8 after rounding), so it has a residual
    assert counts["Add"] == 1 and counts["BatchNormalization"] == 1 + 3 * blocks - 1 + 1
    names = {i.name for i in model.graph.initializer}
    assert {"features.0.0.weight", "features.1.0.block.1.fc1.bias", "features.2.0.block.0.1.running_var",
            "features.8.0.weight", "classifier.1.weight"} <= names
    assert any(n.name == "/features/features.2/features.2.0/block/block.2/Mul" for n in model.graph.node)


def test_efficientnet_b0_full_size(tmp_path: Path) -> None:
    """torchvision's EfficientNet_B0_Weights meta: num_params 5,288,548."""
    model = efficientnet_b0()
    assert parameters(model) == 5_288_548
    counts = ops(model)
    assert counts["Conv"] == 81 and counts["BatchNormalization"] == 49 and counts["Add"] == 9
    assert len(convs(model, depthwise=True)) == 16 and len(convs(model, depthwise=True, kernel=5)) == 9
    result = compile(model, tmp_path / "efficientnet_b0")
    check_plan(result.graph, result.streams, result.memory)
    built = result.graph.count_ops()
    if cpu.kernel_variant() == "baseline":  # (passes/layout_5hd.py keeps NCHW there)
        assert built["Conv"] == 81
    else:  # every conv in NC1HWC0, the 3-channel stem on the NCHW image, one TransData back before the head
        assert "Conv" not in built and built["BlockedConv"] == 81 and built["TransData"] == 1
    assert "BatchNormalization" not in built


def test_shufflenet_v1_structure() -> None:
    model = SMALL["shufflenet_v1"]()
    counts = ops(model)
    units, downsampling = 1 + 2 + 1, 3
    assert len(convs(model, depthwise=True)) == units
    assert len(convs(model, group=3)) == 2 * units - 1  # the very first 1x1 is not grouped
    shuffles = [n for n in model.graph.node if n.op_type == "Transpose"]
    assert len(shuffles) == units and all(attr(n, "perm") == [0, 2, 1, 3, 4] for n in shuffles)
    assert counts["Reshape"] == 2 * units and counts["Shape"] > 0
    pools = [n for n in model.graph.node if n.op_type == "AveragePool"]
    assert len(pools) == downsampling
    assert all(attr(n, "count_include_pad") == 1 and attr(n, "pads") == [1, 1, 1, 1] for n in pools)
    assert counts["Add"] == units - downsampling and counts["Relu"] == 1 + 2 * units
    names = {i.name for i in model.graph.initializer}
    assert {"conv1.0.weight", "stage2.0.conv1.weight", "stage3.1.bn3.running_mean", "fc.bias"} <= names


def test_shufflenet_v1_full_size(tmp_path: Path) -> None:
    """1,865,728 parameters: Megvii's ShuffleNetV1 1.0x g=3 (ShuffleNet-Series; its table rounds to 1.9M) plus
    the fc bias that its classifier leaves out."""
    model = shufflenet_v1()
    assert parameters(model) == 1_865_728
    counts = ops(model)
    assert counts["Conv"] == counts["BatchNormalization"] == 49 and counts["Transpose"] == 16
    assert counts["AveragePool"] == 3 and counts["Add"] == 13
    result = compile(model, tmp_path / "shufflenet_v1")
    check_plan(result.graph, result.streams, result.memory)
    assert result.graph.count_ops()["Conv"] == 49 and "BatchNormalization" not in result.graph.count_ops()


def test_densenet121_structure() -> None:
    model = SMALL["densenet121"]()
    counts = ops(model)
    layers, transitions = 2 + 3 + 2 + 1, 3
    assert counts["Conv"] == 1 + 2 * layers + transitions
    assert counts["BatchNormalization"] == counts["Relu"] == 1 + 2 * layers + transitions + 1
    concats = [n for n in model.graph.node if n.op_type == "Concat"]
    assert len(concats) == layers + 4 and all(attr(n, "axis") == 1 for n in concats)
    assert sum(len(n.input) == 1 for n in concats) == 4  # each block's first layer: torch.cat of one tensor
    block_ends = [len(n.input) for n in concats if n.name.endswith("denseblock4/Concat") or
                  n.name.endswith("denseblock2/Concat")]
    assert block_ends == [4, 2]  # a block's input and each of its layers' outputs
    pools = [n for n in model.graph.node if n.op_type == "AveragePool"]
    assert len(pools) == transitions and all(attr(n, "kernel_shape") == [2, 2] for n in pools)
    names = {i.name for i in model.graph.initializer}
    assert {"features.conv0.weight", "features.denseblock2.denselayer3.conv2.weight",
            "features.transition1.norm.running_var", "features.norm5.bias", "classifier.weight"} <= names


def test_densenet121_full_size(tmp_path: Path) -> None:
    """torchvision's DenseNet121_Weights meta: num_params 7,978,856."""
    model = densenet121()
    assert parameters(model) == 7_978_856
    counts = ops(model)
    assert counts["Conv"] == 120 and counts["BatchNormalization"] == 121 and counts["Concat"] == 58 + 4
    result = compile(model, tmp_path / "densenet121")
    check_plan(result.graph, result.streams, result.memory)
    after = result.graph.count_ops()
    if cpu.kernel_variant() == "avx512":  # one region joined by the Concats: every conv and BatchNormalization
        assert after["BlockedConv"] == 120 and after["TransData"] == 1 and "BatchNormalization" not in after
        assert "Conv" not in after and after["Concat"] == 58
    else:
        assert after["Conv"] == 120 and after["BatchNormalization"] == batch_norms_after_non_convs(model) == 62


def test_convnext_tiny_structure() -> None:
    model = SMALL["convnext_tiny"]()
    counts = ops(model)
    blocks, downsampling = 1 + 1 + 2 + 1, 3
    assert len(convs(model, depthwise=True, kernel=7)) == blocks
    assert counts["Conv"] == 1 + blocks + downsampling
    norms = 1 + blocks + downsampling + 1  # stem, blocks, downsampling layers, head
    assert counts["LayerNormalization"] == norms and counts["Transpose"] == 2 * norms
    assert counts["MatMul"] == 2 * blocks and counts["Erf"] == blocks and counts["Gemm"] == 1
    assert counts["Add"] == 2 * blocks + blocks + blocks  # linear biases, GELU, residual
    stem = convs(model)[0]
    assert attr(stem, "kernel_shape") == attr(stem, "strides") == [4, 4]
    names = {i.name for i in model.graph.initializer}
    assert {"features.0.1.weight", "features.1.0.layer_scale", "features.2.1.weight", "features.5.1.block.3.bias",
            "classifier.0.weight", "classifier.2.bias"} <= names


def test_convnext_tiny_full_size(tmp_path: Path) -> None:
    """torchvision's ConvNeXt_Tiny_Weights meta: num_params 28,589,128."""
    model = convnext_tiny()
    assert parameters(model) == 28_589_128
    counts = ops(model)
    assert counts["Conv"] == 22 and counts["LayerNormalization"] == 23 and counts["MatMul"] == 36
    result = compile(model, tmp_path / "convnext_tiny")
    check_plan(result.graph, result.streams, result.memory)
    assert result.graph.count_ops()["MatMul"] == 36


def test_vit_structure() -> None:
    model = SMALL["vit_b16"]()
    counts = ops(model)
    layers = 2
    assert counts["LayerNormalization"] == 2 * layers + 1 and counts["Softmax"] == layers
    assert counts["Erf"] == layers and counts["Expand"] == 1 and counts["Shape"] > 0
    patch = next(n for n in model.graph.node if n.op_type == "Conv")
    assert [a.ints for a in patch.attribute if a.name in ("kernel_shape", "strides")] == [[8, 8], [8, 8]]
    names = {i.name for i in model.graph.initializer}
    assert {"class_token", "encoder.pos_embedding", "encoder.layers.encoder_layer_1.mlp.3.bias"} <= names


def test_bert_structure() -> None:
    model = SMALL["bert"]()
    counts = ops(model)
    layers = 2
    assert counts["LayerNormalization"] == 2 * layers + 1 and counts["Softmax"] == layers
    assert counts["MatMul"] == 6 * layers + 2 * layers and counts["Erf"] == layers
    assert counts["Gather"] >= 3  # word, token type and position embeddings (plus the shape arithmetic)
    assert [i.name for i in model.graph.input] == ["input_ids", "attention_mask", "token_type_ids"]


def test_default_model() -> None:
    model = default_model()
    (info,) = model.graph.input
    assert info.name == "input" and [d.dim_value for d in info.type.tensor_type.shape.dim] == [1, 3, 224, 224]
    assert 100_000 < model.ByteSize() < 1_000_000
    (probs,) = run_ort(model, random_feeds(model))
    assert probs.shape == (1, 1000) and np.isclose(probs.sum(), 1.0, atol=1e-5)


@pytest.mark.parametrize("build", [
    lambda: resnet50(layers=(1, 1)), lambda: resnet50(width=0), lambda: mobilenet_v2(width=0),
    lambda: vit_b16(image=100), lambda: vit_b16(hidden=30, heads=4), lambda: bert_base_encoder(seq=513),
    lambda: bert_base_encoder(hidden=30, heads=4), lambda: efficientnet_b0(depth=0),
    lambda: shufflenet_v1(channels=(24, 100, 480, 960)), lambda: shufflenet_v1(stages=(4, 8)),
    lambda: densenet121(blocks=()), lambda: densenet121(growth=0), lambda: convnext_tiny(dims=(96, 192, 384)),
    lambda: convnext_tiny(image=16),
])
def test_bad_sizes_are_rejected(build: Callable[[], onnx.ModelProto]) -> None:
    with pytest.raises(ValueError, match=r"resnet50|mobilenet_v2|vit_b16|bert_base_encoder|efficientnet_b0|"
                                         r"shufflenet_v1|densenet121|convnext_tiny"):
        build()
