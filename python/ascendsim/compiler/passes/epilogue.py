"""Conv / Gemm / MatMul (and BatchNormalization) + bias + activation epilogue fusion, written with the pattern
DSL (pattern.py).

Bias rules (ONNX Runtime's ConvAddFusion / MatMulAddFusion): MatMul(a, W) + b with a constant b of N
elements (N = W's last dim) becomes MatMul(a, W, b) with `fused_bias=1`; Gemm(a, B) + b (no C) takes b
as C (beta 1); Conv(x, W[, B]) + b with a constant b of C_out per-channel elements folds b into the bias.
Sum rule (ONNX Runtime's FusedConv with a Z input): Conv + y, with y a non-constant tensor of the Conv's output
shape (a residual connection), becomes Conv(x, W, B, y) with `fused_sum=1`: y is added before the activation, so
a Relu after the Add still fuses (act(conv + B + y)). Activation rules (GE's UB fusion, ONNX Runtime's Conv/GemmActivationFusion): an activation reading the
compute op becomes its `activation` attribute (with `activation_alpha`/`activation_beta`), per the fused-op
convention: Relu; Clip with constant bounds (Relu6 = Clip 0..6); Sigmoid; Tanh; Gelu as the op (exact form)
or as x*0.5*(1+erf(x/sqrt2)) in its usual associations; SiLU as x*sigmoid(x) (ONNX has no op); HardSwish as
the op or x*HardSigmoid(x) with alpha 1/6, beta 1/2; HardSigmoid; LeakyRelu; Elu. The DSL's guard keeps
the compute op's output read by nothing but the epilogue. Bias rules run before activation rules at each
node, so MatMul + Add + Gelu collapses in one walk.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..ir import Value
from .pattern import Emit, Match, Op, Pat, PatternList, register_fusion_pass
from .rewrite import constant_scalar

COMPUTE_OPS = ("Conv", "Gemm", "MatMul")
SQRT2 = math.sqrt(2.0)

EPILOGUE_RULES = PatternList()


def _bare(value: Value) -> bool:
    """A compute op not yet fused with an activation."""
    return value.producer is not None and not value.producer.attr("activation")


def compute(*ops: str) -> Pat:
    return Pat(ops or COMPUTE_OPS, name="op", where=_bare)


BIAS = Pat.const("bias")

# ---- bias ----------------------------------------------------------------------------------------------


@EPILOGUE_RULES.rule(compute("MatMul") + BIAS, name="matmul_bias")
def _matmul_bias(m: Match) -> Emit | None:
    op, bias = m.node("op"), m["bias"].data
    weight = op.input(1)
    if len(op.inputs) != 2 or bias is None or weight is None or weight.shape is None or not _same_shape(m):
        return None
    n = weight.shape[-1]
    if bias.size != n or bias.shape[-1:] != (n,):
        return None
    vector = m.graph.constant(f"{op.name}_bias", bias.reshape(-1))
    return Emit("MatMul", [op.inputs[0], op.inputs[1], vector], {**op.attrs, "fused_bias": 1}, name=op.name)


@EPILOGUE_RULES.rule(compute("Gemm") + BIAS, name="gemm_bias")
def _gemm_bias(m: Match) -> Emit | None:
    op, bias = m.node("op"), m["bias"].data
    if op.input(2) is not None or bias is None or not _same_shape(m) or bias.ndim > 2:
        return None
    c = m.graph.constant(f"{op.name}_bias", bias)
    return Emit("Gemm", [op.inputs[0], op.inputs[1], c], {**op.attrs, "beta": 1.0}, name=op.name)


@EPILOGUE_RULES.rule(compute("Conv") + BIAS, name="conv_bias")
def _conv_bias(m: Match) -> Emit | None:
    op, bias = m.node("op"), m["bias"].data
    weight, old = op.input(1), op.input(2)
    if bias is None or weight is None or weight.shape is None or not _same_shape(m):
        return None
    channels, rank = weight.shape[0], len(m.root.shape or ())
    padded = (1,) * (rank - bias.ndim) + bias.shape
    if rank < 2 or bias.ndim > rank or bias.size != channels or padded[1] != channels:
        return None
    if old is not None and old.data is None:
        return None
    total = bias.reshape(-1) + (old.data if old is not None and old.data is not None else 0)
    vector = m.graph.constant(f"{op.name}_bias", total.astype(bias.dtype))
    return Emit("Conv", [op.inputs[0], op.inputs[1], vector, *op.inputs[3:]], dict(op.attrs), name=op.name)


@EPILOGUE_RULES.rule(compute("Conv") + Pat.var("sum", where=lambda v: not v.is_constant), name="conv_sum")
def _conv_sum(m: Match) -> Emit | None:
    op, summand = m.node("op"), m["sum"]
    out = op.outputs[0]
    if op.attr("fused_sum") or len(op.inputs) > 3 or summand is out or not _same_shape(m):
        return None
    if summand.shape is None or tuple(summand.shape) != tuple(out.shape) or summand.dtype != out.dtype:
        return None
    return Emit("Conv", [op.inputs[0], op.inputs[1], op.input(2), summand], {**op.attrs, "fused_sum": 1}, name=op.name)


def _same_shape(m: Match) -> bool:
    """The Add must not broadcast the compute op's output to a bigger shape."""
    out, root = m.node("op").outputs[0], m.root
    return out.shape is not None and root.shape is not None and tuple(out.shape) == tuple(root.shape)


# ---- activations ---------------------------------------------------------------------------------------

def _fuse(activation: str, params: Callable[[Match], tuple[float | None, float | None] | None] | None = None,
          ) -> Callable[[Match], Emit | None]:
    def rewrite(m: Match) -> Emit | None:
        found = params(m) if params is not None else (None, None)
        if found is None:
            return None
        op = m.node("op")
        attrs = {**op.attrs, "activation": activation}
        for key, number in zip(("activation_alpha", "activation_beta"), found):
            if number is not None:
                attrs[key] = float(number)
        return Emit(op.op_type, list(op.inputs), attrs, name=op.name)
    return rewrite


def _clip_bounds(m: Match) -> tuple[float | None, float | None] | None:
    clip = m.node("act")
    bounds = [clip.input(1), clip.input(2)]
    if any(b is not None and constant_scalar(b) is None for b in bounds):
        return None
    low, high = (constant_scalar(b) for b in bounds)
    return (low if low is not None else -math.inf, high if high is not None else math.inf)


def _attr_params(*names_defaults: tuple[str, float]) -> Callable[[Match], tuple[float | None, float | None]]:
    def params(m: Match) -> tuple[float | None, float | None]:
        act = m.node("act")
        found = [float(act.attr(name, default)) for name, default in names_defaults]
        return (found[0], found[1] if len(found) > 1 else None)
    return params


def _exact_gelu(m: Match) -> tuple[None, None] | None:
    return (None, None) if m.node("act").attr("approximate", "none") == "none" else None


def _erf_gelu(x: Pat) -> list[Pat]:
    """x * 0.5 * (1 + erf(x / sqrt2)) in the associations exporters emit (x / sqrt2 or x * (1/sqrt2))."""
    patterns = []
    for scaled in (x / SQRT2, x * (1 / SQRT2)):
        one_plus = Op.Erf(scaled) + 1.0
        patterns += [(x * 0.5) * one_plus, (x * one_plus) * 0.5, x * (one_plus * 0.5)]
    return patterns


def _is_hardswish_gate(value: Value) -> bool:
    node = value.producer
    return node is not None and np.isclose(node.attr("alpha", 0.2), 1 / 6) and np.isclose(node.attr("beta", 0.5), 0.5)


_SINGLE = {"Relu": None, "Sigmoid": None, "Tanh": None, "HardSwish": None,
           "HardSigmoid": _attr_params(("alpha", 0.2), ("beta", 0.5)), "LeakyRelu": _attr_params(("alpha", 0.01)),
           "Elu": _attr_params(("alpha", 1.0))}

def _activation_rules(rules: PatternList, op: Callable[[], Pat], prefix: str = "") -> None:
    """Every activation rule above for the ops that `op()` matches, added to `rules`."""
    for activation, params in _SINGLE.items():
        rules.rule(Pat(activation, [op()], name="act"), name=f"{prefix}{activation.lower()}_epilogue")(
            _fuse(activation, params))
    rules.rule(Pat("Clip", [op()], name="act"), name=f"{prefix}clip_epilogue")(_fuse("Clip", _clip_bounds))
    rules.rule(Pat("Gelu", [op()], name="act"), name=f"{prefix}gelu_epilogue")(_fuse("Gelu", _exact_gelu))
    rules.rule(*_erf_gelu(op()), name=f"{prefix}gelu_erf_epilogue")(_fuse("Gelu"))
    rules.rule(op() * Op.Sigmoid(op()), name=f"{prefix}silu_epilogue")(_fuse("Silu"))
    rules.rule(op() * Op.HardSigmoid(op(), where=_is_hardswish_gate), name=f"{prefix}hardswish_epilogue")(
        _fuse("HardSwish"))


_activation_rules(EPILOGUE_RULES, compute)
epilogue_fusion = register_fusion_pass("epilogue_fusion", EPILOGUE_RULES, stage="stage1", order=10)

# An inference BatchNormalization that no conv absorbed (DenseNet's before each of its convs) takes the
# activation after it the same way (its kernel applies it to each plane while it is in cache: DenseNet-121's 62
# Relu nodes, 1.2 ms of 73 at 1 thread on a Zen 3). After the NC1HWC0 layout pass, which turns the
# BatchNormalizations of its regions into a per-channel Mul and Add that the elementwise fusion (order 10)
# then joins to their activation.
BATCH_NORM_RULES = PatternList()
_activation_rules(BATCH_NORM_RULES, lambda: compute("BatchNormalization"), prefix="batch_norm_")
batch_norm_activation_fusion = register_fusion_pass("batch_norm_activation_fusion", BATCH_NORM_RULES,
                                                    stage="stage2", order=7)
