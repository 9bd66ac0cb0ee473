"""Recurrent layers: RNN, GRU and LSTM (inputs X, W, R, optional B, sequence_lens, initial_h, initial_c, P as ONNX
writes them; attributes direction, hidden_size, layout, activations, clip, GRU's linear_before_reset and LSTM's
input_forget). Outputs, for layout 0: Y [seq, directions, batch, hidden], Y_h (and LSTM's Y_c) [directions,
batch, hidden]; layout 1 puts the batch first: Y [batch, seq, directions, hidden], Y_h [batch, directions, hidden].
"""

from __future__ import annotations

from ..ir import Dim, DType, Shape
from ._common import InferContext, TensorType
from ._registry import register

DIRECTIONS = ("forward", "reverse", "bidirectional")
GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
NAMES = ("X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P")
ACTIVATIONS = (
    "Relu",
    "Tanh",
    "Sigmoid",
    "Affine",
    "LeakyRelu",
    "ThresholdedRelu",
    "ScaledTanh",
    "HardSigmoid",
    "Elu",
    "Softsign",
    "Softplus",
)


@register("RNN", "GRU", "LSTM", since=14)
def _recurrent(ctx: InferContext) -> list[TensorType]:
    directions = _check_attributes(ctx)
    x, hidden = ctx.shape(0), _hidden_size(ctx, directions)
    if x is None or hidden is None:
        return [(ctx.dtype(0), None)] * len(ctx.node.outputs)
    if len(x) != 3:
        ctx.fail(f"X must be 3-D, got shape {list(x)}")
    batch_first = ctx.int_attr("layout", 0) == 1
    seq, batch = (x[1], x[0]) if batch_first else (x[0], x[1])
    state = (batch, directions, hidden) if batch_first else (directions, batch, hidden)
    _check_operands(ctx, x, batch=batch, hidden=hidden, directions=directions, state=state)
    y = (batch, seq, directions, hidden) if batch_first else (seq, directions, batch, hidden)
    return [(ctx.dtype(0), y)] + [(ctx.dtype(0), state)] * (len(ctx.node.outputs) - 1)


def _check_attributes(ctx: InferContext) -> int:
    """Dtypes, direction, activations and the output count; returns the number of directions."""
    op = ctx.node.op_type
    for index, value in enumerate(ctx.node.inputs):
        allowed = (DType.INT32,) if index == 4 else (DType.FLOAT, DType.FLOAT16)
        if value is not None and value.dtype is not None and value.dtype not in allowed:
            ctx.fail(
                f"input {index} ({value.name!r}) has dtype {value.dtype.name}; supported: "
                + ", ".join(d.name for d in allowed)
            )
    direction = ctx.attr("direction", "forward")
    if direction not in DIRECTIONS:
        ctx.fail(f"direction={direction!r} is not supported; supported: {', '.join(DIRECTIONS)}")
    unknown = [a for a in (ctx.attr("activations") or []) if a not in ACTIVATIONS]  # type: ignore[union-attr]
    if unknown:
        ctx.fail(f"activations {unknown} are not supported; supported: {', '.join(ACTIVATIONS)}")
    if len(ctx.node.outputs) > (3 if op == "LSTM" else 2):
        ctx.fail(f"has {len(ctx.node.outputs)} outputs; {op} has {3 if op == 'LSTM' else 2}")
    return 2 if direction == "bidirectional" else 1


def _hidden_size(ctx: InferContext, directions: int) -> Dim | None:
    """hidden_size, or W's rows / the gate count; checked against W."""
    op, w = ctx.node.op_type, ctx.shape(1)
    if w is not None and len(w) != 3:
        ctx.fail(f"W must be 3-D [directions, gates x hidden_size, input_size], got shape {list(w)}")
    hidden: Dim | None = ctx.attr("hidden_size")  # type: ignore[assignment]
    if hidden is not None and (not isinstance(hidden, int) or hidden < 1):
        ctx.fail(f"hidden_size={hidden!r} must be a positive int")
    if w is None:
        return hidden
    if hidden is None and isinstance(w[1], int):
        hidden = w[1] // GATES[op]
    if isinstance(hidden, int) and isinstance(w[1], int) and w[1] != GATES[op] * hidden:
        ctx.fail(f"W of shape {list(w)} must have {GATES[op]} x hidden_size {hidden} rows")
    if isinstance(w[0], int) and w[0] != directions:
        ctx.fail(f"W of shape {list(w)} must have {directions} direction(s) for direction={ctx.attr('direction')!r}")
    return hidden


def _check_operands(ctx: InferContext, x: Shape, *, batch: Dim, hidden: Dim, directions: int, state: Shape) -> None:
    """W, R, B, sequence_lens, initial_h, initial_c and P have the shapes X and hidden_size give them."""
    gates = GATES[ctx.node.op_type] * hidden if isinstance(hidden, int) else hidden
    three = 3 * hidden if isinstance(hidden, int) else hidden
    double = 2 * gates if isinstance(gates, int) else gates
    wants = {
        1: (directions, gates, x[2]),
        2: (directions, gates, hidden),
        3: (directions, double),
        4: (batch,),
        5: state,
        6: state,
        7: (directions, three),
    }
    for index, want in wants.items():
        given = ctx.shape(index) if ctx.input(index) is not None else None
        if given is not None and (
            len(given) != len(want)
            or any(isinstance(g, int) and isinstance(v, int) and g != v for g, v in zip(given, want))
        ):
            ctx.fail(f"{NAMES[index]} has shape {list(given)}; {ctx.node.op_type} with X {list(x)} needs {list(want)}")
