"""A small declarative pattern language for fusions (in the spirit of tinygrad's UPat lists and GE's Python
`@register_fusion_pass` with `pattern` / `replacement`).

A pattern (`Pat`) matches a Value. `Op.Relu(x)` matches a value produced by a Relu whose first input matches
`x`; a tuple of op types matches any of them; `Pat.var("x")` matches anything and binds it; a name used twice
must bind the same Value (x * sigmoid(x)); `Pat.scalar(0.5)` matches a one-element constant close to 0.5;
arithmetic builds patterns (`x * 0.5 * (1 + Op.Erf(x / SQRT2))`). Add, Mul and the other commutative binary
ops match their inputs in either order; listed inputs are a prefix of the node's inputs (the rest are free;
the rewrite reads them from the node). `where=` adds a predicate on the matched value.

A Rule pairs a pattern with a rewrite `fn(match) -> Emit | None` (None declines, GE's meet_requirements);
`PatternList.rule(pattern)` is a decorator collecting rules. `apply_rules` walks the graph in topological
order, tries the rules whose root op type fits each node, and replaces a matched subgraph by the emitted
node only when every value inside the match is read only inside it (and is not a graph output), so nothing
outside loses an input; the new node writes the root Value, keeping its name, dtype and shape.
`register_fusion_pass(name, rules, stage=...)` turns a rule list into a named, disableable pass.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

from ..ir import Graph, Node, Value
from .manager import register_pass
from .report import PassStats
from .rewrite import COMMUTATIVE_OPS, constant_scalar, is_graph_output, replace_subgraph

Operand = Union["Pat", float, int]


class Pat:
    """Matches a Value; see the module docstring."""

    def __init__(self, op: str | Iterable[str] | None = None, inputs: Sequence[Operand] | None = None, *,
                 name: str | None = None, where: Callable[[Value], bool] | None = None, domain: str = "") -> None:
        self.ops = None if op is None else frozenset([op] if isinstance(op, str) else op)
        self.inputs = None if inputs is None else tuple(_as_pat(i) for i in inputs)
        self.name = name
        self.where = where
        self.domain = domain

    @staticmethod
    def var(name: str | None = None, where: Callable[[Value], bool] | None = None) -> Pat:
        return Pat(name=name, where=where)

    @staticmethod
    def const(name: str | None = None, where: Callable[[Value], bool] | None = None) -> Pat:
        return Pat(name=name, where=lambda v: v.is_constant and (where is None or where(v)))

    @staticmethod
    def scalar(number: float, rel_tol: float = 1e-4, name: str | None = None) -> Pat:
        def close(value: Value) -> bool:
            found = constant_scalar(value)
            return found is not None and math.isclose(found, number, rel_tol=rel_tol, abs_tol=1e-7)
        return Pat(name=name, where=close)

    def __add__(self, other: Operand) -> Pat:
        return Pat("Add", [self, other])

    def __radd__(self, other: Operand) -> Pat:
        return Pat("Add", [other, self])

    def __sub__(self, other: Operand) -> Pat:
        return Pat("Sub", [self, other])

    def __mul__(self, other: Operand) -> Pat:
        return Pat("Mul", [self, other])

    def __rmul__(self, other: Operand) -> Pat:
        return Pat("Mul", [other, self])

    def __truediv__(self, other: Operand) -> Pat:
        return Pat("Div", [self, other])

    def __repr__(self) -> str:
        head = "|".join(sorted(self.ops)) if self.ops else "any"
        args = "" if self.inputs is None else "(" + ", ".join(map(repr, self.inputs)) + ")"
        return f"{head}{args}" + (f"@{self.name}" if self.name else "")


def _as_pat(operand: Operand) -> Pat:
    return operand if isinstance(operand, Pat) else Pat.scalar(float(operand))


class _OpFactory:
    """`Op.Relu(x)`, `Op.Conv(name="conv")`, `Op.MatMul(a, b)`: a pattern on that op type."""

    def __getattr__(self, op_type: str) -> Callable[..., Pat]:
        def make(*inputs: Operand, name: str | None = None, where: Callable[[Value], bool] | None = None) -> Pat:
            return Pat(op_type, inputs or None, name=name, where=where)
        return make


Op = _OpFactory()


@dataclass
class Match:
    graph: Graph
    root: Value
    bindings: dict[str, Value] = field(default_factory=dict)
    nodes: list[Node] = field(default_factory=list)  # matched nodes, producers before consumers

    def __getitem__(self, name: str) -> Value:
        return self.bindings[name]

    def node(self, name: str) -> Node:
        producer = self.bindings[name].producer
        assert producer is not None, f"{name!r} is not produced by a node"
        return producer

    def scalar(self, name: str) -> float | None:
        return constant_scalar(self.bindings.get(name))


@dataclass
class Emit:
    """The replacement node: it writes the match's root Value."""

    op_type: str
    inputs: Sequence[Value | None]
    attrs: dict[str, Any]
    domain: str = ""
    name: str | None = None


RewriteFn = Callable[[Match], "Emit | None"]


@dataclass
class Rule:
    name: str
    pattern: Pat
    rewrite: RewriteFn


class PatternList(list):  # type: ignore[type-arg]
    """A list of Rules with a decorator to add one: `@rules.rule(pattern, name=...)`."""

    def rule(self, *patterns: Pat, name: str | None = None) -> Callable[[RewriteFn], RewriteFn]:
        def add(fn: RewriteFn) -> RewriteFn:
            for pattern in patterns:
                self.append(Rule(name or fn.__name__, pattern, fn))
            return fn
        return add


# ---- matching ------------------------------------------------------------------------------------------

def match(pattern: Pat, value: Value, graph: Graph) -> Match | None:
    """The first way `pattern` matches `value` whose inner values are read only inside the match."""
    for bindings, nodes in _match(pattern, value, {}, []):
        found = Match(graph, value, bindings, _producers_first(nodes))
        if _self_contained(found):
            return found
    return None


def _producers_first(nodes: list[Node]) -> list[Node]:
    members = {id(n) for n in nodes}
    order: list[Node] = []
    placed: set[int] = set()

    def visit(node: Node) -> None:
        if id(node) in placed:
            return
        placed.add(id(node))
        for value in node.inputs:
            if value is not None and value.producer is not None and id(value.producer) in members:
                visit(value.producer)
        order.append(node)

    for node in nodes:
        visit(node)
    return order


def _match(pat: Pat, value: Value | None, bound: dict[str, Value],
           nodes: list[Node]) -> Iterator[tuple[dict[str, Value], list[Node]]]:
    if value is None:
        return
    if pat.name is not None and pat.name in bound:
        if bound[pat.name] is value:
            yield bound, nodes
        return
    if pat.where is not None and not pat.where(value):
        return
    bound = {**bound, pat.name: value} if pat.name is not None else bound
    node = value.producer
    if pat.ops is None or pat.inputs is None:
        if pat.ops is None:
            yield bound, nodes
        elif node is not None and node.op_type in pat.ops and node.domain == pat.domain:
            yield bound, nodes if any(n is node for n in nodes) else [*nodes, node]
        return
    if node is None or node.op_type not in pat.ops or node.domain != pat.domain or len(node.inputs) < len(pat.inputs):
        return
    nodes = nodes if any(n is node for n in nodes) else [*nodes, node]
    orders = [pat.inputs]
    if len(pat.inputs) == 2 and node.op_type in COMMUTATIVE_OPS:
        orders.append(pat.inputs[::-1])
    for order in orders:
        yield from _match_inputs(list(order), node.inputs[:len(order)], bound, nodes)


def _match_inputs(pats: list[Pat], values: Sequence[Value | None], bound: dict[str, Value],
                  nodes: list[Node]) -> Iterator[tuple[dict[str, Value], list[Node]]]:
    if not pats:
        yield bound, nodes
        return
    for bound_1, nodes_1 in _match(pats[0], values[0], bound, nodes):
        yield from _match_inputs(pats[1:], values[1:], bound_1, nodes_1)


def _self_contained(found: Match) -> bool:
    inside = {id(n) for n in found.nodes}
    for node in found.nodes:
        for value in node.outputs:
            if value is found.root:
                continue
            if is_graph_output(found.graph, value) or any(id(c) not in inside for c in value.consumers):
                return False
    return True


# ---- applying ------------------------------------------------------------------------------------------

def apply_rules(graph: Graph, rules: Sequence[Rule], stats: PassStats) -> bool:
    """One topological walk applying the first matching rule at each node; counts fusions per rule."""
    by_op: dict[str | None, list[Rule]] = {}
    for rule in rules:
        for op in rule.pattern.ops or [None]:
            by_op.setdefault(op, []).append(rule)
    removed: set[int] = set()
    changed = False
    for node in list(graph.nodes):
        if id(node) in removed:
            continue
        for rule in by_op.get(node.op_type, []) + by_op.get(None, []):
            replaced = _try(graph, rule, node)
            if replaced is not None:
                removed.update(id(n) for n in replaced)
                stats.add(f"{rule.name} fused")
                stats.add("patterns fused")
                changed = True
                break
    return changed


def _try(graph: Graph, rule: Rule, node: Node) -> list[Node] | None:
    found = match(rule.pattern, node.outputs[0], graph)
    emit = rule.rewrite(found) if found is not None else None
    if found is None or emit is None:
        return None
    interior = {id(v) for n in found.nodes for v in n.outputs}
    if any(v is not None and id(v) in interior for v in emit.inputs):
        raise ValueError(f"rule {rule.name!r}: the replacement reads a value computed inside the match")
    replace_subgraph(graph, found.nodes, found.root, emit.op_type, emit.inputs, attrs=emit.attrs,
                     domain=emit.domain, name=emit.name)
    return found.nodes


def register_fusion_pass(name: str, rules: Sequence[Rule], stage: str = "stage1",
                         order: int = 50) -> Callable[[Graph, PassStats], bool]:
    """Registers `rules` as the pass `name`; returns the pass function."""
    def fusion_pass(graph: Graph, stats: PassStats) -> bool:
        return apply_rules(graph, rules, stats)
    fusion_pass.__doc__ = f"Pattern fusion {name!r} ({len(rules)} rules)."
    register_pass(name, stage=stage, order=order)(fusion_pass)
    return fusion_pass

