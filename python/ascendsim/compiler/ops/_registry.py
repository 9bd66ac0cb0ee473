"""The op registry itself: the op families (elementwise.py, nn.py, reduce.py, tensor.py) register their
inference functions here with `@register`, and the package (__init__.py) reads it. A module of its own so that
the families import it, not the package that imports them."""

from __future__ import annotations

from dataclasses import dataclass

from ._common import InferFn


@dataclass(frozen=True)
class OpSpec:
    """A supported op: `infer` gives (dtype, shape) per output; `since` is the ONNX opset that has it in
    the IR form; `elementwise` marks ops the elementwise fusion may chain; `value_shaped` marks ops whose
    output shape depends on the values of their input (NonZero, Unique), compiled only when the input is a
    constant (folded at compile time): the static-shape runtime cannot run them."""

    op_type: str
    infer: InferFn
    since: int = 1
    domain: str = ""
    elementwise: bool = False
    value_shaped: bool = False


REGISTRY: dict[tuple[str, str], OpSpec] = {}


def register(*op_types: str, since: int = 1, domain: str = "", elementwise: bool = False,
             value_shaped: bool = False):
    """Decorator registering one inference function for several op types."""
    def wrap(fn: InferFn) -> InferFn:
        for op_type in op_types:
            REGISTRY[(domain, op_type)] = OpSpec(op_type, fn, since, domain, elementwise, value_shaped)
        return fn
    return wrap


def lookup(op_type: str, domain: str = "") -> OpSpec | None:
    return REGISTRY.get((domain, op_type))
