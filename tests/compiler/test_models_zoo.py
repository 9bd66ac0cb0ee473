"""ascendsim.models: the public-architecture builders are valid ONNX, run in onnxruntime, have the layer
structure of what the PyTorch exporter writes, and compile (memory plan checked; passes keep the numbers).
Small configurations except one full-size ResNet-50 (its exact parameter count and a full compile)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest
from test_pass_helpers import optimize

from ascendsim.compiler.build import compile
from ascendsim.compiler.memory import check_plan
from ascendsim.models import bert_base_encoder, default_model, mobilenet_v2, resnet50, vit_b16
from onnx_models import random_feeds, run_ort

SMALL: dict[str, Callable[[], onnx.ModelProto]] = {
    "default": lambda: default_model(image=32),
    "resnet50": lambda: resnet50(batch=2, image=32, layers=(1, 2, 1, 1), width=8, num_classes=10),
    "mobilenet_v2": lambda: mobilenet_v2(image=32, width=0.25, num_classes=10),
    "vit_b16": lambda: vit_b16(batch=2, image=32, layers=2, hidden=32, heads=4, mlp=64, patch=8, num_classes=10),
    "bert": lambda: bert_base_encoder(batch=2, seq=8, layers=2, hidden=32, heads=4, intermediate=64, vocab=50),
    "bert_no_embeddings": lambda: bert_base_encoder(batch=2, seq=8, layers=2, hidden=32, heads=4, intermediate=64,
                                                    embeddings=False),
}
OUTPUT_SHAPES = {"default": (1, 1000), "resnet50": (2, 10), "mobilenet_v2": (1, 10), "vit_b16": (2, 10),
                 "bert": (2, 8, 32), "bert_no_embeddings": (2, 8, 32)}


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
    assert "BatchNormalization" not in optimized.after and "Shape" not in optimized.after
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
    assert result.nodes_before == 175 and result.graph.count_ops()["Conv"] == 53
    assert "BatchNormalization" not in result.graph.count_ops()


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
    lambda: bert_base_encoder(hidden=30, heads=4),
])
def test_bad_sizes_are_rejected(build: Callable[[], onnx.ModelProto]) -> None:
    with pytest.raises(ValueError, match=r"resnet50|mobilenet_v2|vit_b16|bert_base_encoder"):
        build()
