"""What every op family's inference function uses: the InferContext handed to it (constant and partially
known input contents, failure and fresh-symbol helpers) and dim arithmetic on static or symbolic dims.

Symbolic dims are names (str). Arithmetic keeps a symbol when the result is provably that symbol (broadcast
with 1, multiplying by 1, reshape cancelling the same symbols) and otherwise invents a fresh symbol named
after the output value and axis, so ranks are always known even when sizes are not.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Callable, NoReturn, Optional, Union

import numpy as np

from ..errors import node_error
from ..ir import Dim, DType, Node, Shape, Value

TensorType = tuple[Optional[DType], Optional[Shape]]  # (dtype, shape); None where unknown
Known = list[Dim]  # contents of a small 1-D integer tensor, elements static or symbolic


class InferContext:
    """The view of one node that an inference function gets. `known` maps value names to the partially
    known contents of 1-D integer tensors (shape arithmetic), filled in as inference goes."""

    def __init__(self, node: Node, known: dict[str, Known]) -> None:
        self.node = node
        self.known = known

    # ---- inputs ---------------------------------------------------------------------------------------

    def input(self, index: int) -> Value | None:
        return self.node.input(index)

    def type(self, index: int) -> TensorType:
        value = self.node.input(index)
        return (None, None) if value is None else (value.dtype, value.shape)

    def shape(self, index: int) -> Shape | None:
        return self.type(index)[1]

    def dtype(self, index: int) -> DType | None:
        return self.type(index)[0]

    def const(self, index: int) -> np.ndarray | None:
        """The contents of input `index` if it is a constant."""
        value = self.node.input(index)
        return None if value is None else value.data

    def known_dims(self, index: int) -> Known | None:
        """Contents of a 1-D (or scalar) integer input: from constant data or from shape arithmetic."""
        value = self.node.input(index)
        if value is None:
            return None
        if value.data is not None:
            if value.data.dtype.kind not in "iu" or value.data.ndim > 1:
                return None
            return [int(x) for x in value.data.reshape(-1)]
        return self.known.get(value.name)

    def static_ints(self, index: int) -> list[int] | None:
        dims = self.known_dims(index)
        if dims is None or not all(isinstance(d, int) for d in dims):
            return None
        return [int(d) for d in dims]

    # ---- outputs --------------------------------------------------------------------------------------

    def set_known(self, out_index: int, dims: Known) -> None:
        if out_index < len(self.node.outputs):
            self.known[self.node.outputs[out_index].name] = list(dims)

    def fresh(self, out_index: int, axis: int) -> str:
        """A new symbolic dim for an output axis whose size cannot be expressed."""
        base = self.node.outputs[out_index].name if out_index < len(self.node.outputs) else self.node.name
        return f"{base}_d{axis}"

    def fail(self, problem: str) -> NoReturn:
        raise node_error(self.node.name, self.node.op_type, problem)

    # ---- attributes -----------------------------------------------------------------------------------

    def attr(self, name: str, default: object = None) -> object:
        return self.node.attrs.get(name, default)

    def int_attr(self, name: str, default: int) -> int:
        return int(self.node.attrs.get(name, default))  # type: ignore[call-overload]

    def ints_attr(self, name: str) -> list[int] | None:
        value = self.node.attrs.get(name)
        return None if value is None else [int(v) for v in value]


InferFn = Callable[[InferContext], list[TensorType]]


# ---- dims and axes ------------------------------------------------------------------------------------

def norm_axis(ctx: InferContext, axis: int, rank: int, what: str = "axis") -> int:
    """`axis` in [-rank, rank) made non-negative; out of range is an error naming the node."""
    if not -rank <= axis < rank:
        ctx.fail(f"{what} {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def broadcast(ctx: InferContext, shapes: Sequence[Shape | None]) -> Shape | None:
    """Numpy (multidirectional) broadcasting of static or symbolic shapes."""
    if any(s is None for s in shapes):
        return None
    rank = max((len(s) for s in shapes), default=0)  # type: ignore[arg-type]
    out: list[Dim] = []
    for axis in range(rank):
        dims = [s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0]  # type: ignore[arg-type]
        out.append(_broadcast_dim(ctx, dims, axis))
    return tuple(out)


def _broadcast_dim(ctx: InferContext, dims: list[Dim], axis: int) -> Dim:
    static = {d for d in dims if isinstance(d, int) and d != 1}
    symbols = {d for d in dims if isinstance(d, str)}
    if len(static) > 1:
        ctx.fail(f"input shapes cannot be broadcast: sizes {sorted(static)} on output axis {axis}")
    if static:
        return static.pop()  # a symbol broadcast against n > 1 must be n (or 1)
    if len(symbols) == 1:
        return symbols.pop()
    if symbols:
        return ctx.fresh(0, axis)
    return 1


def dim_prod(dims: Sequence[Dim]) -> Dim | None:
    """Product when static, the symbol itself when the rest multiplies to 1, else None."""
    static = int(np.prod([d for d in dims if isinstance(d, int)], dtype=np.int64))
    symbols = [d for d in dims if isinstance(d, str)]
    if not symbols:
        return static
    if len(symbols) == 1 and static == 1:
        return symbols[0]
    return None


def infer_minus_one(total: Sequence[Dim], given: Sequence[Dim]) -> Dim | None:
    """The size of the `-1` dim of a reshape: product(total) / product(given), cancelling equal symbols."""
    left = Counter(d for d in total if isinstance(d, str))
    right = Counter(d for d in given if isinstance(d, str))
    if right - left:
        return None  # a symbol in the new shape that the old shape lacks: unknown
    residual = left - right
    num = int(np.prod([d for d in total if isinstance(d, int)], dtype=np.int64))
    den = int(np.prod([d for d in given if isinstance(d, int)], dtype=np.int64))
    if den == 0 or num % den:
        return None if residual else -2  # -2: not divisible (caller reports)
    ratio = num // den
    if not residual:
        return ratio
    if ratio == 1 and sum(residual.values()) == 1:
        return next(iter(residual))
    return None


def same_as_input(ctx: InferContext, index: int = 0) -> list[TensorType]:
    return [ctx.type(index)]


def sliced_len(dim: int, start: int, end: int, step: int) -> int:
    """Length of `range(dim)[start:end:step]` with ONNX's clamping rules."""
    return len(range(*slice(start, end, step).indices(dim)))


Number = Union[int, float]
