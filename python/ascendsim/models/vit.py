"""ViT-B/16 (torchvision `vit_b_16`) as torch.onnx.export (opset 17) writes it.

Patch embedding: Conv 16x16 stride 16 (3 -> 768, with bias) -> Reshape [n, 768, 196] -> Transpose to
[n, 196, 768]; the class token is expanded to the batch (Concat(n, -1, -1) -> the exporter's -1 -> 1 fix-up
with ConstantOfShape / Equal / Where -> Expand) and concatenated in front (197 tokens); plus the learned
position embedding. 12 pre-norm encoder layers: LayerNormalization (eps 1e-6) -> nn.MultiheadAttention
(12 heads) -> residual Add -> LayerNormalization -> MLP (768 -> 3072, GELU in Erf form, 3072 -> 768) ->
residual Add. Final LayerNormalization, the class token (Gather axis 1, index 0), head Gemm (768 -> 1000).
Full size: 86,567,656 parameters.

nn.MultiheadAttention (batch_first, need_weights=False) exports as: Transpose to sequence-first, one packed
in-projection MatMul + Add (768 -> 3 * 768), unflatten(-1, (3, E)) / unsqueeze / transpose / squeeze, Gather
of q, k and v, per tensor a Reshape to [S, n * heads, d] + Transpose + Reshape to [n, heads, S, d], then
scaled_dot_product_attention (scale computed in the graph from q's last dim: Shape -> Slice -> Cast -> Sqrt
-> Div -> Sqrt, applied to q and to the transposed k, MatMul, Softmax, MatMul), and the output projection
as a Gemm on [S * n, E]. Every size that depends on the batch is computed with Shape -> Gather -> Unsqueeze.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto

from ._writer import GraphWriter, float_output


def vit_b16(batch: int = 1, image: int = 224, *, layers: int = 12, hidden: int = 768, heads: int = 12,
            mlp: int = 3072, patch: int = 16, num_classes: int = 1000, seed: int = 0) -> onnx.ModelProto:
    """ViT-B/16 with input "input" [batch, 3, image, image] and logits "output" [batch, num_classes];
    `layers`, `hidden`, `heads`, `mlp`, `patch` make smaller versions for tests."""
    if image % patch or hidden % heads or min(layers, hidden, heads, mlp, patch) < 1:
        raise ValueError(f"vit_b16: image {image} must be a multiple of patch {patch} and hidden {hidden} of heads "
                         f"{heads}; sizes must be positive")
    w = GraphWriter("vit_b16", seed)
    x = w.input("input", [batch, 3, image, image])
    tokens = (image // patch) ** 2
    n = w.dim(x, 0)
    x = w.conv(x, 3, hidden, patch, stride=patch, padding=0, bias=True, module="conv_proj")
    x = w.op("Transpose", [w.reshape(x, [n, hidden, tokens])], perm=[0, 2, 1])
    cls = _expand(w, w.normal("class_token", [1, 1, hidden], 0.02), n)
    x = w.op("Concat", [cls, x], axis=1)
    with w.scope("encoder"):
        x = w.op("Add", [x, w.normal("pos_embedding", [1, tokens + 1, hidden], 0.02)])
        with w.scope("layers"):
            for i in range(layers):
                with w.scope(f"encoder_layer_{i}"):
                    x = _encoder_layer(w, x, hidden, heads, mlp)
        x = w.layer_norm(x, hidden, module="ln", eps=1e-6)
    x = w.op("Gather", [x, w.const(np.int64(0))], axis=1)
    with w.scope("heads"):
        logits = w.linear(x, hidden, num_classes, module="head", gemm=True)
    return w.model([float_output(logits, "output", [batch, num_classes])],
                   doc=f"ViT-B/16 (torchvision layout), {layers} layers, hidden {hidden}, {heads} heads, mlp {mlp}")


def _expand(w: GraphWriter, x: str, n: str) -> str:
    """`x.expand(n, -1, -1)`: torch's expand symbolic turns the -1 entries into 1 in the graph."""
    size = w.op("Concat", [n, w.ints([-1, -1])], axis=0)
    ones = w.op("ConstantOfShape", [w.op("Shape", [size])],
                value=onnx.helper.make_tensor("value", TensorProto.INT64, [1], [1]))
    neg_ones = w.op("Mul", [ones, w.const(np.int64(-1))])
    size = w.op("Where", [w.op("Equal", [size, neg_ones]), ones, size])
    return w.op("Expand", [x, size])  # type: ignore[no-any-return]


def _encoder_layer(w: GraphWriter, x: str, hidden: int, heads: int, mlp: int) -> str:
    y = w.layer_norm(x, hidden, module="ln_1", eps=1e-6)
    with w.scope("self_attention"):
        y = multi_head_attention(w, y, hidden, heads)
    x = w.op("Add", [y, x])
    y = w.layer_norm(x, hidden, module="ln_2", eps=1e-6)
    with w.scope("mlp"):
        y = w.linear(y, hidden, mlp, module="0")
        y = w.gelu_erf(y, module="1")
        y = w.linear(y, mlp, hidden, module="3")
    return w.op("Add", [x, y])  # type: ignore[no-any-return]


def multi_head_attention(w: GraphWriter, x: str, hidden: int, heads: int) -> str:
    """nn.MultiheadAttention(hidden, heads, batch_first=True)(x, x, x, need_weights=False) on [n, S, E]."""
    head_dim = hidden // heads
    x = w.op("Transpose", [x], perm=[1, 0, 2])  # batch_first: query = key = value = x.transpose(1, 0)
    seq, n = w.dim(x, 0), w.dim(x, 1)
    with w.scope("in_proj"):  # F.linear(x, in_proj_weight, in_proj_bias), weight stored transposed
        proj = w.op("MatMul", [x, w.normal("in_proj_weight_t", [hidden, 3 * hidden], hidden**-0.5)])
        proj = w.op("Add", [w.normal("in_proj_bias", [3 * hidden], 0.01), proj])
    leading = w.op("Slice", [w.op("Shape", [proj]), w.ints([0]), w.ints([-1]), w.ints([0])])
    proj = w.op("Reshape", [proj, w.op("Concat", [leading, w.ints([3, hidden])], axis=0)])  # unflatten(-1, (3, E))
    proj = w.op("Unsqueeze", [proj, w.ints([0])])
    proj = w.op("Transpose", [proj], perm=[3, 1, 2, 0, 4])
    proj = w.op("Squeeze", [proj, w.ints([-2])])
    n_heads = w.product(n, w.ints([heads]))
    q, k, v = (_split_heads(w, w.op("Gather", [proj, w.const(np.int64(i))], axis=0), seq=seq, n=n, n_heads=n_heads,
                            heads=heads, head_dim=head_dim) for i in range(3))
    # scaled_dot_product_attention: scale = sqrt(1 / sqrt(q.size(-1))) applied to q and to k^T
    last = w.op("Cast", [w.op("Slice", [w.op("Shape", [q]), w.ints([-1]), w.ints([2**63 - 1])])],
                to=TensorProto.FLOAT)
    scale = w.op("Sqrt", [w.op("Div", [w.const(np.float32(1.0)), w.op("Sqrt", [last])])])
    key_t = w.op("Mul", [w.op("Transpose", [k], perm=[0, 1, 3, 2]), scale])
    scores = w.op("MatMul", [w.op("Mul", [q, scale]), key_t])
    context = w.op("MatMul", [w.op("Softmax", [scores], axis=-1), v])
    context = w.op("Transpose", [context], perm=[2, 0, 1, 3])
    context = w.reshape(context, [w.product(n, seq), hidden])
    out = w.linear(context, hidden, hidden, module="out_proj", gemm=True)
    out = w.reshape(out, [seq, n, hidden])
    return w.op("Transpose", [out], perm=[1, 0, 2])  # type: ignore[no-any-return]


def _split_heads(w: GraphWriter, t: str, *, seq: str, n: str, n_heads: str, heads: int, head_dim: int) -> str:
    """[S, n, E] -> view(S, n * heads, d).transpose(0, 1) -> view(n, heads, S, d)."""
    t = w.op("Transpose", [w.reshape(t, [seq, n_heads, head_dim])], perm=[1, 0, 2])
    return w.reshape(t, [n, heads, seq, head_dim])
