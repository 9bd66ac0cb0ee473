"""Einsum lowered to IR ops (static shapes): Mul by an identity mask, ReduceSum, Transpose, Reshape, MatMul.

Algorithm: the equation is parsed into one label list per operand and one for the output (`...` becomes the
labels of the broadcast dims, aligned from the right; without `->` the output is the ellipsis then the labels
used once, in alphabetical order). Each operand first loses its repeated labels (a diagonal: multiplied by an
identity mask over the two axes, then summed over the second) and the size-1 dims of labels another operand
has larger (numpy's broadcasting: summing a size-1 axis is dropping it). Then the operands are contracted left
to right: labels that no later operand and not the output needs are summed away first, the remaining shared
labels are batch labels (kept) or contracted ones, and the pair becomes one batched MatMul of
[batch, left, contracted] by [batch, contracted, right] (or a broadcasting Mul when nothing is contracted),
reshaped back to one axis per label. Finally the result is transposed into the output's order.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .ir import DType, Node, Value

if TYPE_CHECKING:
    from .onnx_lowering import Builder
    from .onnx_opsets import _Norm

Labels = list[str]


def parse_equation(n: _Norm, equation: str, ranks: Sequence[int]) -> tuple[list[Labels], Labels]:
    """One label list per operand and the output's; broadcast (ellipsis) dims are labelled '.0', '.1', ..."""
    text = equation.replace(" ", "")
    left, arrow, right = text.partition("->")
    terms = left.split(",")
    if len(terms) != len(ranks):
        raise n.fail(f"equation {equation!r} has {len(terms)} operands, the node {len(ranks)} inputs")
    spans = [_ellipsis_rank(n, equation, term, rank) for term, rank in zip(terms, ranks)]
    width = max(spans, default=0)
    operands = [_labels(term, span, width) for term, span in zip(terms, spans)]
    if arrow:
        if right.count("...") > 1 or not set(right.replace("...", "")) <= set(string.ascii_letters):
            raise n.fail(f"equation {equation!r}: the output term {right!r} is not letters and at most one '...'")
        output = _labels(right, width if "..." in right else 0, width)
        if len(set(output)) != len(output):
            raise n.fail(f"equation {equation!r}: the output repeats a label")
        unknown = set(output) - {label for labels in operands for label in labels}
        if unknown:
            raise n.fail(f"equation {equation!r}: output labels {sorted(unknown)} appear in no operand")
    else:
        letters = [label for labels in operands for label in labels if not label.startswith(".")]
        output = [f".{i}" for i in range(width)] + sorted({x for x in letters if letters.count(x) == 1})
    return operands, output


def _ellipsis_rank(n: _Norm, equation: str, term: str, rank: int) -> int:
    letters = term.replace("...", "")
    if term.count("...") > 1 or not set(letters) <= set(string.ascii_letters):
        raise n.fail(f"equation {equation!r}: the term {term!r} is not letters and at most one '...'")
    span = rank - len(letters) if "..." in term else 0
    if span < 0 or (span == 0 and "..." not in term and len(letters) != rank):
        raise n.fail(f"equation {equation!r}: the term {term!r} does not match an input of rank {rank}")
    return span


def _labels(term: str, span: int, width: int) -> Labels:
    head, dots, tail = term.partition("...")
    middle = [f".{width - span + i}" for i in range(span)] if dots else []
    return [*head, *middle, *tail]


def lower_einsum(n: _Norm, b: Builder, shapes: list[tuple[int, ...]]) -> list[Node]:
    equation = n.node.attrs.get("equation")
    if not isinstance(equation, str):
        raise n.fail("attribute 'equation' is required")
    values = [v for v in n.node.inputs if v is not None]
    labels, output = parse_equation(n, equation, [len(s) for s in shapes])
    operands = [_Operand(v, list(lab), list(s)) for v, lab, s in zip(values, labels, shapes)]
    largest: dict[str, int] = {}
    for op in operands:
        for label, size in zip(op.labels, op.sizes):
            largest[label] = max(largest.get(label, 1), size)
    for op in operands:
        _take_diagonals(n, b, op)
        _drop_broadcast(b, op, largest)
    result = operands[0]
    for index in range(1, len(operands)):
        later = {label for op in operands[index + 1 :] for label in op.labels} | set(output)
        right = operands[index]
        _sum_away(b, result, set(right.labels) | later)
        _sum_away(b, right, set(result.labels) | later)
        result = _contract(b, result, right, later)
    _sum_away(b, result, set(output))
    return b.finish_with(b.transpose(result.value, [result.labels.index(label) for label in output]))


class _Operand:
    def __init__(self, value: Value, labels: Labels, sizes: list[int]) -> None:
        self.value, self.labels, self.sizes = value, labels, sizes


def _take_diagonals(n: _Norm, b: Builder, op: _Operand) -> None:
    while len(set(op.labels)) != len(op.labels):
        label = next(x for x in op.labels if op.labels.count(x) > 1)
        first = op.labels.index(label)
        second = op.labels.index(label, first + 1)
        size = op.sizes[first]
        if op.sizes[second] != size:
            raise n.fail(f"label {label!r} is repeated on axes of sizes {size} and {op.sizes[second]}")
        shape = [1] * len(op.labels)
        shape[first] = shape[second] = size
        dtype = (op.value.dtype or DType.FLOAT).numpy
        mask = b.const(np.eye(size, dtype=dtype).reshape(shape), "diagonal")
        op.value = b.add("ReduceSum", [b.add("Mul", [op.value, mask])], {"axes": [second], "keepdims": 0})
        del op.labels[second], op.sizes[second]


def _drop_broadcast(b: Builder, op: _Operand, largest: dict[str, int]) -> None:
    keep = [i for i, (label, size) in enumerate(zip(op.labels, op.sizes)) if not (size == 1 and largest[label] > 1)]
    if len(keep) != len(op.labels):
        op.labels, op.sizes = [op.labels[i] for i in keep], [op.sizes[i] for i in keep]
        op.value = b.reshape(op.value, op.sizes)


def _sum_away(b: Builder, op: _Operand, needed: set[str]) -> None:
    axes = [i for i, label in enumerate(op.labels) if label not in needed]
    if axes:
        op.value = b.add("ReduceSum", [op.value], {"axes": axes, "keepdims": 0})
        op.labels = [x for i, x in enumerate(op.labels) if i not in axes]
        op.sizes = [x for i, x in enumerate(op.sizes) if i not in axes]


def _contract(b: Builder, left: _Operand, right: _Operand, later: set[str]) -> _Operand:
    shared = [x for x in left.labels if x in right.labels]
    batch = [x for x in shared if x in later]
    summed = [x for x in shared if x not in later]
    only_left = [x for x in left.labels if x not in right.labels]
    only_right = [x for x in right.labels if x not in left.labels]
    size = {**dict(zip(left.labels, left.sizes)), **dict(zip(right.labels, right.sizes))}

    def arrange(op: _Operand, order: Labels, shape: list[int]) -> Value:
        moved = b.transpose(op.value, [op.labels.index(x) for x in order])
        return b.reshape(moved, shape)

    def count(labels: Labels) -> int:
        return int(np.prod([size[x] for x in labels], dtype=np.int64))

    labels = [*batch, *only_left, *only_right]
    sizes = [size[x] for x in labels]
    if not summed:  # an outer product over the batch: a broadcasting Mul
        ones_right, ones_left = [1] * len(only_right), [1] * len(only_left)
        a = arrange(left, [*batch, *only_left], [size[x] for x in (*batch, *only_left)] + ones_right)
        c = arrange(right, [*batch, *only_right], [size[x] for x in batch] + ones_left + [size[x] for x in only_right])
        return _Operand(b.add("Mul", [a, c]), labels, sizes)
    lead = [count(batch)] if batch else []
    a = arrange(left, [*batch, *only_left, *summed], [*lead, count(only_left), count(summed)])
    c = arrange(right, [*batch, *summed, *only_right], [*lead, count(summed), count(only_right)])
    product = b.add("MatMul", [a, c])
    return _Operand(b.reshape(product, sizes), labels, sizes)
