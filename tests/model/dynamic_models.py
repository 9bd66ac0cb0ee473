"""Small ONNX models with symbolic dims for the dynamic-shape tests: a BERT-style encoder (embeddings, mask,
attention with shape-computed Reshape targets, LayerNorm, GELU) and a conv net (Conv, Relu, pooling,
GlobalAveragePool, Flatten, Gemm)."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper

from ascendsim.models._writer import GraphWriter
from ascendsim.models.bert import bert_base_encoder
from ascendsim.models.symbolic import symbolic


def tiny_bert(layers: int = 1) -> onnx.ModelProto:
    """BERT-style encoder, hidden 32, 2 heads, vocab 64; inputs int64 [batch, seq]."""
    model = bert_base_encoder(1, 8, layers, hidden=32, heads=2, intermediate=64, vocab=64, seed=1)
    ids = ["batch", "seq"]
    return symbolic(model, {"input_ids": ids, "attention_mask": ids, "token_type_ids": ids,
                            "last_hidden_state": ["batch", "seq", 32]})


def tiny_convnet() -> onnx.ModelProto:
    """Conv 3->8 3x3 + Relu, MaxPool 2, Conv 8->8 + Relu, AveragePool 2, GlobalAveragePool, Flatten, Gemm -> 5;
    input float32 [N, 3, H, W]."""
    w = GraphWriter("tiny_convnet", 2)
    x = w.input("image", ["N", 3, "H", "W"])
    x = w.op("Relu", [w.conv(x, 3, 8, 3, bias=True, module="conv1")])
    x = w.op("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
    x = w.op("Relu", [w.conv(x, 8, 8, 3, bias=True, module="conv2")])
    x = w.avg_pool(x, 2, 2)
    x = w.op("Flatten", [w.op("GlobalAveragePool", [x])], axis=1)
    x = w.linear(x, 8, 5, module="fc", gemm=True)
    return w.model([(x, "logits", ["N", 5], TensorProto.FLOAT)])


def elementwise_any_rank() -> onnx.ModelProto:
    """y = Relu(x * 2 + 1), x float32 of rank 3 in the model (compiled with x:-2: any rank at run time)."""
    graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "two"], ["m"]), helper.make_node("Add", ["m", "one"], ["a"]),
         helper.make_node("Relu", ["a"], ["y"])], "any_rank",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["a", "b", "c"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["a", "b", "c"])],
        [helper.make_tensor("two", TensorProto.FLOAT, [], [2.0]), helper.make_tensor("one", TensorProto.FLOAT, [], [1.0])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def bert_feeds(batch: int, seq: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed + 97 * seq + batch)
    mask = np.ones((batch, seq), np.int64)
    mask[:, seq - seq // 3:] = 0
    return {"input_ids": rng.integers(0, 64, (batch, seq)).astype(np.int64), "attention_mask": mask,
            "token_type_ids": rng.integers(0, 2, (batch, seq)).astype(np.int64)}


def index_ops() -> onnx.ModelProto:
    """x float32 [N, C]: Pad (C by 1 on the left), CumSum over N, ArgMax over C, ReduceL2 over C, TopK (K 2) over
    C: shape functions beyond the encoder and the conv net."""
    nodes = [helper.make_node("Pad", ["x", "pads"], ["p"]), helper.make_node("CumSum", ["p", "zero"], ["c"]),
             helper.make_node("ArgMax", ["c"], ["arg"], axis=1, keepdims=0),
             helper.make_node("ReduceL2", ["c"], ["l2"], axes=[1], keepdims=1),
             helper.make_node("TopK", ["c", "k"], ["top", "top_i"], axis=1)]
    graph = helper.make_graph(
        nodes, "index_ops", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", "C"])],
        [helper.make_tensor_value_info("arg", TensorProto.INT64, ["N"]),
         helper.make_tensor_value_info("l2", TensorProto.FLOAT, ["N", 1]),
         helper.make_tensor_value_info("top", TensorProto.FLOAT, ["N", 2])],
        [helper.make_tensor("pads", TensorProto.INT64, [4], [0, 1, 0, 0]),
         helper.make_tensor("zero", TensorProto.INT64, [], [0]), helper.make_tensor("k", TensorProto.INT64, [1], [2])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])

