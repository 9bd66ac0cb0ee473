"""BERT-base encoder (Hugging Face `BertModel`, eager attention, without the pooler) as torch.onnx.export
(opset 17) writes it.

Inputs input_ids, attention_mask, token_type_ids (int64 [batch, seq]). Embeddings: word (30522 x 768), token
type (2 x 768) and position (512 x 768; the position ids are a [1, 512] buffer sliced to the sequence length,
computed in the graph) looked up with Gather, summed, LayerNormalization (eps 1e-12). The extended attention
mask: mask[:, None, None, :] -> Cast -> (1 - m) * finfo(float32).min. 12 post-norm layers: query / key / value
Linear (MatMul + Add), transpose_for_scores (Reshape to x.size()[:-1] + (12, 64) computed with
Shape -> Gather -> Unsqueeze -> Concat, Transpose), scores = q @ k^T / 8 + mask, Softmax, @ v, Transpose,
Reshape back, output dense, residual Add, LayerNormalization; intermediate 768 -> 3072 with GELU in Erf form,
output 3072 -> 768, residual Add, LayerNormalization. Output last_hidden_state [batch, seq, 768]. Full size:
108,891,648 parameters (85,054,464 in the 12 layers).

`embeddings=False` gives the encoder stack alone: input "hidden_states" float32 [batch, seq, hidden] and no
mask (what the compiler sees of BERT after the embedding lookup).
"""

from __future__ import annotations

import math

import numpy as np
import onnx
from onnx import TensorProto

from ._writer import GraphWriter, float_output

VOCAB, MAX_POSITIONS, TYPE_VOCAB = 30522, 512, 2


def bert_base_encoder(batch: int = 1, seq: int = 128, layers: int = 12, *, hidden: int = 768, heads: int = 12,
                      intermediate: int = 3072, vocab: int = VOCAB, embeddings: bool = True,
                      seed: int = 0) -> onnx.ModelProto:
    """BERT-base (bert-base-uncased sizes) with output "last_hidden_state" [batch, seq, hidden]."""
    if hidden % heads or min(layers, hidden, heads, intermediate, vocab) < 1 or not 1 <= seq <= MAX_POSITIONS:
        raise ValueError(f"bert_base_encoder: hidden {hidden} must be a multiple of heads {heads}, sizes positive and "
                         f"seq {seq} in 1..{MAX_POSITIONS}")
    w = GraphWriter("bert_base_encoder", seed)
    mask: str | None = None
    if embeddings:
        ids = w.input("input_ids", [batch, seq], TensorProto.INT64)
        attention_mask = w.input("attention_mask", [batch, seq], TensorProto.INT64)
        types = w.input("token_type_ids", [batch, seq], TensorProto.INT64)
        with w.scope("embeddings"):
            x = _embeddings(w, ids, types, hidden, vocab)
        mask = _extended_mask(w, attention_mask)
    else:
        x = w.input("hidden_states", [batch, seq, hidden])
    with w.scope("encoder"), w.scope("layer"):
        for i in range(layers):
            with w.scope(str(i)):
                x = _layer(w, x, mask, hidden=hidden, heads=heads, intermediate=intermediate)
    return w.model([float_output(x, "last_hidden_state", [batch, seq, hidden])],
                   doc=f"BERT-base encoder (Hugging Face layout), {layers} layers, hidden {hidden}, {heads} heads")


def _embeddings(w: GraphWriter, ids: str, types: str, hidden: int, vocab: int) -> str:
    words = w.op_scoped("word_embeddings", "Gather", w.normal("word_embeddings.weight", [vocab, hidden], 0.02), ids)
    kinds = w.op_scoped("token_type_embeddings", "Gather",
                        w.normal("token_type_embeddings.weight", [TYPE_VOCAB, hidden], 0.02), types)
    x = w.op("Add", [words, kinds])
    # position_ids = self.position_ids[:, 0 : seq_length], seq_length = input_ids.size(1)
    positions = w.tensor("position_ids", np.arange(MAX_POSITIONS, dtype=np.int64)[None, :])
    ids_seq = w.dim(ids, 1)
    positions = w.op("Slice", [positions, w.ints([0]), ids_seq, w.ints([1]), w.ints([1])])
    x = w.op("Add", [x, w.op_scoped("position_embeddings", "Gather",
                                    w.normal("position_embeddings.weight", [MAX_POSITIONS, hidden], 0.02), positions)])
    return w.layer_norm(x, hidden, module="LayerNorm", eps=1e-12)


def _extended_mask(w: GraphWriter, mask: str) -> str:
    m = w.op("Unsqueeze", [w.op("Unsqueeze", [mask, w.ints([1])]), w.ints([2])])
    m = w.op("Cast", [m], to=TensorProto.FLOAT)
    m = w.op("Sub", [w.const(np.float32(1.0)), m])
    return w.op("Mul", [m, w.const(np.finfo(np.float32).min)])  # type: ignore[no-any-return]


def _layer(w: GraphWriter, x: str, mask: str | None, *, hidden: int, heads: int, intermediate: int) -> str:
    head_dim = hidden // heads
    with w.scope("attention"):
        with w.scope("self"):
            q, k, v = (_split_heads(w, w.linear(x, hidden, hidden, module=name, std=0.02), heads, head_dim)
                       for name in ("query", "key", "value"))
            scores = w.op("MatMul", [q, w.op("Transpose", [k], perm=[0, 1, 3, 2])])
            scores = w.op("Div", [scores, w.const(np.float32(math.sqrt(head_dim)))])
            if mask is not None:
                scores = w.op("Add", [scores, mask])
            context = w.op("MatMul", [w.op("Softmax", [scores], axis=-1), v])
            context = w.op("Transpose", [context], perm=[0, 2, 1, 3])
            context = w.reshape(context, [w.dim(context, 0), w.dim(context, 1), hidden])
        with w.scope("output"):
            y = w.linear(context, hidden, hidden, module="dense", std=0.02)
            x = w.layer_norm(w.op("Add", [y, x]), hidden, module="LayerNorm", eps=1e-12)
    with w.scope("intermediate"):
        y = w.gelu_erf(w.linear(x, hidden, intermediate, module="dense", std=0.02), module="intermediate_act_fn")
    with w.scope("output"):
        y = w.linear(y, intermediate, hidden, module="dense", std=0.02)
        return w.layer_norm(w.op("Add", [y, x]), hidden, module="LayerNorm", eps=1e-12)


def _split_heads(w: GraphWriter, x: str, heads: int, head_dim: int) -> str:
    """transpose_for_scores: view(x.size()[:-1] + (heads, head_dim)).permute(0, 2, 1, 3)."""
    x = w.reshape(x, [w.dim(x, 0), w.dim(x, 1), heads, head_dim])
    return w.op("Transpose", [x], perm=[0, 2, 1, 3])  # type: ignore[no-any-return]
