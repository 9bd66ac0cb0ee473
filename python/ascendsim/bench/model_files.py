"""The benchmark models, built and compiled by the suite's parent process: NAME.onnx and NAME.om for each
row that needs one (the groups' models in models.py), the Add chains of the dispatch rows, the MatMul chain of
the concurrency row and the single-operator Add of the sink rows."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import ascendsim
from ascendsim.compiler.om_reader import read_om
from ascendsim.compiler.singleop import compile_single_ops
from ascendsim.models import (
    bert_base_encoder,
    convnext_tiny,
    densenet121,
    efficientnet_b0,
    mobilenet_v2,
    resnet50,
    shufflenet_v1,
    symbolic,
    vit_b16,
)

from .groups import MODELS

SOC = "Ascend910B1"
CHAIN = 1000
SINK_OPS = 300
DYNAMIC_SEQS = (16, 64, 128, 384)
BERT_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def add_chain(length: int, batch: int | str = 1) -> onnx.ModelProto:
    """y = (((x + c) + c) ... + c), `length` Adds of [batch,4] float tensors (a str: a dynamic axis) and c [1,4];
    c is not 0, so no pass removes them."""
    names = ["x", *(f"a{i}" for i in range(1, length)), "y"]
    nodes = [helper.make_node("Add", [names[i], "c"], [names[i + 1]], name=f"add{i}") for i in range(length)]
    x, y = (helper.make_tensor_value_info(name, TensorProto.FLOAT, [batch, 4]) for name in ("x", "y"))
    constant = numpy_helper.from_array(np.full((1, 4), 0.5, np.float32), "c")
    graph = helper.make_graph(nodes, f"add_chain_{length}", [x], [y], [constant])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def matmul_chain(rows: int, width: int, length: int) -> onnx.ModelProto:
    """y = x @ W @ W ... (`length` MatMuls of [rows,width] x [width,width]); W scaled to keep values bounded."""
    names = ["x", *(f"m{i}" for i in range(1, length)), "y"]
    nodes = [helper.make_node("MatMul", [names[i], "w"], [names[i + 1]], name=f"matmul{i}") for i in range(length)]
    x, y = (helper.make_tensor_value_info(name, TensorProto.FLOAT, [rows, width]) for name in ("x", "y"))
    weight = (np.random.default_rng(0).standard_normal((width, width)) / np.sqrt(width)).astype(np.float32)
    graph = helper.make_graph(nodes, f"matmul_chain_{length}", [x], [y], [numpy_helper.from_array(weight, "w")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def bert_builder(quick: bool) -> Callable[[int], onnx.ModelProto]:
    """The bert_base row's encoder at a sequence length (--quick: the tests' tiny size)."""
    if quick:
        return lambda seq: bert_base_encoder(seq=seq, layers=1, hidden=32, heads=4, intermediate=64, vocab=50)
    return lambda seq: bert_base_encoder(seq=seq)


def dynamic_bert(quick: bool) -> onnx.ModelProto:
    """The encoder with a dynamic sequence axis on its inputs and output (batch 1)."""
    model = bert_builder(quick)(max(DYNAMIC_SEQS))
    hidden = model.graph.output[0].type.tensor_type.shape.dim[2].dim_value
    return symbolic(model, {**{name: [1, "seq"] for name in BERT_INPUTS}, "last_hidden_state": [1, "seq", hidden]})


def model_builders(quick: bool) -> dict[str, Callable[[], onnx.ModelProto]]:
    if quick:  # the sizes of tests/model/test_whole_models.py and tests/compiler/test_models_zoo.py
        return {"resnet50": lambda: resnet50(image=32, layers=(1, 1, 1, 1), width=8, num_classes=10),
                "mobilenet_v2": lambda: mobilenet_v2(image=32, width=0.25, num_classes=10),
                "bert_base": lambda: bert_builder(True)(16),
                "efficientnet_b0": lambda: efficientnet_b0(image=32, width=0.25, depth=0.25, num_classes=10),
                "shufflenet_v1": lambda: shufflenet_v1(image=32, stages=(1, 2, 1), channels=(12, 60, 120, 240),
                                                       num_classes=10),
                "densenet121": lambda: densenet121(image=32, blocks=(2, 3, 2, 1), growth=8, init_features=16,
                                                   bn_size=2, num_classes=10),
                "convnext_tiny": lambda: convnext_tiny(image=32, depths=(1, 1, 2, 1), dims=(8, 16, 24, 32),
                                                       num_classes=10),
                "vit_b16": lambda: vit_b16(image=32, layers=1, hidden=32, heads=4, mlp=64, patch=8, num_classes=10)}
    return {"resnet50": resnet50, "mobilenet_v2": mobilenet_v2, "bert_base": lambda: bert_builder(False)(128),
            "efficientnet_b0": efficientnet_b0, "shufflenet_v1": shufflenet_v1, "densenet121": densenet121,
            "convnext_tiny": convnext_tiny, "vit_b16": vit_b16}


def compile_models(groups: Sequence[str], directory: Path, quick: bool) -> dict[str, Any]:
    """Writes NAME.onnx and NAME.om for every model the groups need; returns facts about them."""
    # name: (builder, disabled passes, atc's input_shape for a dynamic-shape model)
    wanted: dict[str, tuple[Callable[[], onnx.ModelProto], tuple[str, ...], str | None]] = {}
    unfused = ("elementwise_fusion",)
    if set(groups) & {"overhead", "chain", "dynamic"}:
        wanted["one"] = (lambda: add_chain(1), unfused, None)
    if set(groups) & {"chain", "dynamic"}:
        wanted["chain"] = (lambda: add_chain(CHAIN), unfused, None)
    if "dynamic" in groups:
        wanted["one_dyn"] = (lambda: add_chain(1, "batch"), unfused, "x:-1,4")
        wanted["chain_dyn"] = (lambda: add_chain(CHAIN, "batch"), unfused, "x:-1,4")
        wanted["bert_dyn"] = (lambda: dynamic_bert(quick), (), ";".join(f"{name}:1,-1" for name in BERT_INPUTS))
        wanted.update({f"bert_s{seq}": (lambda seq=seq: bert_builder(quick)(seq), (), None) for seq in DYNAMIC_SEQS})
    if "sink" in groups:
        wanted["sink"] = (lambda: add_chain(SINK_OPS), unfused, None)
        add = {"format": "ND", "shape": [1, 4], "type": "float32"}
        spec = directory / "sink_ops.json"
        spec.write_text(json.dumps([{"op": "Add", "input_desc": [add, add], "output_desc": [add]}]))
        (directory / "sink_ops").mkdir()
        compile_single_ops(str(spec), str(directory / "sink_ops"), SOC)
    if "concurrency" in groups:
        wanted["streams"] = ((lambda: matmul_chain(16, 32, 1)) if quick else (lambda: matmul_chain(128, 256, 4)), (),
                             None)
    builders = model_builders(quick)
    wanted.update({name: (builders[name], (), None) for name in MODELS if name in groups})
    facts: dict[str, Any] = {}
    for name, (build, disabled, input_shape) in wanted.items():
        model = build()
        onnx.save(model, str(directory / f"{name}.onnx"))
        ascendsim.compile(model, directory / name, soc_version=SOC, precision_mode="force_fp32",
                          disabled_passes=disabled, input_shape=input_shape)
        nodes = read_om(directory / f"{name}.om").plans[0]["nodes"]
        facts[name] = {"onnx_nodes": len(model.graph.node), "om_nodes": len(nodes),
                       "side_stream_nodes": sum(1 for node in nodes if node["stream"] != 0)}
    for chain in ("chain", "chain_dyn"):
        if chain in facts and facts[chain]["om_nodes"] != CHAIN:
            raise SystemExit(f"ascendsim bench: the Add chain compiled to {facts[chain]['om_nodes']} nodes, not "
                             f"{CHAIN}: a pass fused it; the per-node figure would be wrong")
    return facts
