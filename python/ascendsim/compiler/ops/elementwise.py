"""Elementwise ops: unary math and activations (output = input type), broadcasting binary arithmetic,
comparisons and logic (bool outputs), variadic Max/Min, Where, Clip, Cast, Identity, Dropout, the ops with
kernels of their own (inverse trigonometric and hyperbolic functions, IsNaN/IsInf, bitwise ops) and the
compiler's FusedElementwise (domain "ascendsim"), whose type is found by running each step of its
`program` through this registry. Integer Add/Sub/Mul/Div/Cast/Identity also propagate partially known
contents, so shape arithmetic (Shape -> Gather -> Mul -> Concat -> Reshape) stays exact."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir import ASCENDSIM_DOMAIN, DType, Node, Value
from ._common import InferContext, Known, TensorType, broadcast
from ._registry import lookup, register

UNARY = ("Sqrt", "Exp", "Log", "Abs", "Neg", "Reciprocal", "Floor", "Ceil", "Relu", "Sigmoid", "Tanh",
         "HardSigmoid", "Erf", "Softplus", "Elu", "Selu", "LeakyRelu", "Sign", "Round", "Sin", "Cos",
         "Softsign", "Not")
ARITHMETIC = ("Add", "Sub", "Mul", "Div", "Pow", "Mod")
COMPARISON = ("Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual")
LOGICAL = ("And", "Or", "Xor")
_FLOAT_ONLY = {DType.FLOAT, DType.FLOAT16, DType.DOUBLE}


@register(*UNARY, elementwise=True)
def _unary(ctx: InferContext) -> list[TensorType]:
    return [ctx.type(0)]


@register("HardSwish", since=14, elementwise=True)
def _hardswish(ctx: InferContext) -> list[TensorType]:
    return [ctx.type(0)]


@register("Gelu", since=20, elementwise=True)
def _gelu(ctx: InferContext) -> list[TensorType]:
    if ctx.attr("approximate", "none") not in ("none", "tanh"):
        ctx.fail(f"approximate={ctx.attr('approximate')!r} is not supported; supported: 'none', 'tanh'")
    return [ctx.type(0)]


@register(*ARITHMETIC, *LOGICAL, "PRelu", elementwise=True)
def _binary(ctx: InferContext) -> list[TensorType]:
    _check_same_dtype(ctx, 2 if ctx.node.op_type not in ("Pow",) else 1)
    shape = broadcast(ctx, [ctx.shape(0), ctx.shape(1)])
    if ctx.node.op_type == "PRelu" and shape is not None and shape != ctx.shape(0):
        ctx.fail(f"slope shape {ctx.shape(1)} does not broadcast to the input shape {ctx.shape(0)}")
    if ctx.node.op_type == "Mod" and ctx.dtype(0) in _FLOAT_ONLY and not ctx.node.attr("fmod", 0):
        # ONNX (before opset 28, so every opset read here) defines float Mod only with fmod=1.
        ctx.fail("fmod=0 on a floating-point input is not defined by ONNX; use fmod=1")
    _propagate_arithmetic(ctx)
    return [(ctx.dtype(0), shape)]


@register(*COMPARISON, elementwise=True)
def _compare(ctx: InferContext) -> list[TensorType]:
    _check_same_dtype(ctx, 2)
    return [(DType.BOOL, broadcast(ctx, [ctx.shape(0), ctx.shape(1)]))]


# Ops with their own kernels (csrc/kernels/unary_extra.cpp), outside the fused programs' op table.
MATH = ("Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Cosh", "Sinh", "Tan")
_INTEGER = {DType.INT8, DType.UINT8, DType.INT16, DType.UINT16, DType.INT32, DType.UINT32, DType.INT64,
            DType.UINT64}
_UNSIGNED = {DType.UINT8, DType.UINT16, DType.UINT32, DType.UINT64}


@register(*MATH)
def _math(ctx: InferContext) -> list[TensorType]:
    _check_dtypes(ctx, 1, _FLOAT_ONLY, "floating-point")
    return [ctx.type(0)]


@register("IsNaN", "IsInf")
def _float_class(ctx: InferContext) -> list[TensorType]:
    _check_dtypes(ctx, 1, _FLOAT_ONLY, "floating-point")
    return [(DType.BOOL, ctx.shape(0))]


@register("BitwiseNot", since=18)
def _bitwise_not(ctx: InferContext) -> list[TensorType]:
    _check_dtypes(ctx, 1, _INTEGER, "integer")
    return [ctx.type(0)]


@register("BitwiseAnd", "BitwiseOr", "BitwiseXor", since=18)
@register("BitShift", since=11)
def _bitwise(ctx: InferContext) -> list[TensorType]:
    _check_same_dtype(ctx, 2)
    unsigned = ctx.node.op_type == "BitShift"
    _check_dtypes(ctx, 2, _UNSIGNED if unsigned else _INTEGER, "unsigned integer" if unsigned else "integer")
    if unsigned and ctx.attr("direction") not in ("LEFT", "RIGHT"):
        ctx.fail(f"direction={ctx.attr('direction')!r} is not supported; supported: 'LEFT', 'RIGHT'")
    return [(ctx.dtype(0), broadcast(ctx, [ctx.shape(0), ctx.shape(1)]))]


def _check_dtypes(ctx: InferContext, count: int, allowed: set[DType], what: str) -> None:
    for index in range(count):
        dtype = ctx.dtype(index)
        if dtype is not None and dtype not in allowed:
            ctx.fail(f"input {index} has dtype {dtype.name}; {ctx.node.op_type} takes {what} tensors")


@register("Max", "Min", elementwise=True)
def _variadic(ctx: InferContext) -> list[TensorType]:
    _check_same_dtype(ctx, len(ctx.node.inputs))
    return [(ctx.dtype(0), broadcast(ctx, [ctx.shape(i) for i in range(len(ctx.node.inputs))]))]


@register("Where", elementwise=True)
def _where(ctx: InferContext) -> list[TensorType]:
    if ctx.dtype(0) not in (None, DType.BOOL):
        ctx.fail(f"condition must be bool, got {ctx.dtype(0).name}")  # type: ignore[union-attr]
    return [(ctx.dtype(1), broadcast(ctx, [ctx.shape(0), ctx.shape(1), ctx.shape(2)]))]


@register("Clip", elementwise=True)
def _clip(ctx: InferContext) -> list[TensorType]:
    for index in (1, 2):
        shape = ctx.shape(index)
        if ctx.input(index) is not None and shape is not None and len(shape) > 1:
            ctx.fail(f"min/max must be scalars, got shape {shape}")
        dtype, x = ctx.dtype(index), ctx.dtype(0)
        if ctx.input(index) is not None and None not in (dtype, x) and (dtype in _FLOAT_ONLY) != (x in _FLOAT_ONLY):
            ctx.fail(f"{('min', 'max')[index - 1]} has dtype {dtype.name}, the input {x.name}")  # type: ignore[union-attr]
    return [ctx.type(0)]


@register("Identity", elementwise=True)
def _identity(ctx: InferContext) -> list[TensorType]:
    dims = ctx.known_dims(0)
    if dims is not None and ctx.shape(0) is not None and len(ctx.shape(0)) == 1:  # type: ignore[arg-type]
        ctx.set_known(0, dims)
    return [ctx.type(0)]


@register("Cast", elementwise=True)
def _cast(ctx: InferContext) -> list[TensorType]:
    to = ctx.attr("to")
    if not isinstance(to, DType):
        ctx.fail(f"attribute 'to' must be an ir.DType, got {to!r}")
    dims = ctx.known_dims(0)
    if dims is not None and to in (DType.INT32, DType.INT64) and len(ctx.shape(0) or ()) == 1:
        ctx.set_known(0, dims)
    return [(to, ctx.shape(0))]


@register("Dropout")
def _dropout(ctx: InferContext) -> list[TensorType]:
    out = [ctx.type(0)]
    if len(ctx.node.outputs) > 1:
        out.append((DType.BOOL, ctx.shape(0)))
    return out


@register("FusedElementwise", domain=ASCENDSIM_DOMAIN)
def _fused(ctx: InferContext) -> list[TensorType]:
    """Types every step of `program` with the registry; the last step is the output."""
    program: list[dict[str, Any]] = ctx.attr("program")  # type: ignore[assignment]
    if not program:
        ctx.fail("attribute 'program' is missing or empty")
    slots: list[Value | None] = list(ctx.node.inputs)
    for index, step in enumerate(program):
        spec = lookup(step["op"])
        if spec is None or not spec.elementwise:
            ctx.fail(f"program step {index}: {step['op']!r} is not an elementwise op")
        try:
            inputs = [slots[i] for i in step["inputs"]]
        except IndexError:
            ctx.fail(f"program step {index}: input index out of range in {step['inputs']}")
        out = Value(f"{ctx.node.name}/step{index}")
        inner = Node(f"{ctx.node.name}/step{index}", step["op"], inputs, [out], dict(step.get("attrs", {})))
        out.dtype, out.shape = spec.infer(InferContext(inner, {}))[0]
        slots.append(out)
    last = slots[-1]
    return [(last.dtype, last.shape)]  # type: ignore[union-attr]


def _check_same_dtype(ctx: InferContext, count: int) -> None:
    dtypes = {ctx.dtype(i) for i in range(count)} - {None}
    if len(dtypes) > 1:
        ctx.fail(f"inputs have different dtypes {sorted(d.name for d in dtypes)}")  # type: ignore[union-attr]


def _propagate_arithmetic(ctx: InferContext) -> None:
    """Exact integer arithmetic on known shape tensors (e.g. batch * heads, hidden // heads)."""
    if ctx.node.op_type not in ("Add", "Sub", "Mul", "Div"):
        return
    a, b = ctx.known_dims(0), ctx.known_dims(1)
    if a is None or b is None or ctx.dtype(0) not in (DType.INT64, DType.INT32):
        return
    if len(a) != len(b) and 1 not in (len(a), len(b)):
        return
    n = max(len(a), len(b))
    a, b = (a * n if len(a) == 1 else a), (b * n if len(b) == 1 else b)
    result: Known = []
    for x, y in zip(a, b):
        value = _dim_op(ctx.node.op_type, x, y)
        if value is None:
            return
        result.append(value)
    if len(ctx.shape(0) or ()) <= 1 and len(ctx.shape(1) or ()) <= 1:
        ctx.set_known(0, result)


def _dim_op(op: str, x: int | str, y: int | str) -> int | str | None:
    if isinstance(x, int) and isinstance(y, int):
        if op == "Div":
            return None if y == 0 else int(np.trunc(x / y)) if (x < 0) != (y < 0) else x // y
        return {"Add": x + y, "Sub": x - y, "Mul": x * y}[op]
    if op in ("Mul", "Div") and y == 1:
        return x
    if op == "Mul" and x == 1:
        return y
    if op in ("Add", "Sub") and y == 0:
        return x
    return None
