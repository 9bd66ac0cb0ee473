"""Static memory planning: one feature-map arena, lifetime- and stream-aware reuse (GE's block mem assigner,
XLA's heap simulator, tinygrad's schedule/memory.py).

What is planned: every tensor produced by a node that is not a graph output (graph inputs and outputs are
bound to the user's buffers at execute time: zero copy) and not a constant (weights live in their own
region, laid out by `plan_weights`).

1. Buffers. Tensors are grouped into buffers that share bytes:
   - views: Reshape / Flatten / Squeeze / Unsqueeze / Identity output aliases its input (same bytes, no copy;
     the runtime skips the task when input and output addresses are equal);
   - in place: an elementwise node (or a row normalisation: INPLACE_OPS) writes its output over an input buffer
     when the sizes are equal and every other use of that buffer happens before the node.
2. Lifetimes across streams. Buffer A may share memory with buffer B only if every use of A (producers and
   consumers of all its tensors) *happens before* the first writer of B, or the other way round;
   happens-before is stream order plus the events of the stream plan (vector clocks, see streams.py). So a
   tensor freed on one stream is reused by another stream only after the event that orders them.
3. Offsets. Sizes are rounded up to 512 bytes (GE's MEM_ALIGN_SIZE). Five strategies place buffers at the
   lowest address that does not overlap any already placed *conflicting* buffer: greedy by size with best
   fit (XLA's GlobalDecreasingSizeBestFit, TVM) and with first fit, the same with ties of size broken by the
   longest lifetime first (long-lived buffers placed early leave contiguous room for the short ones; this
   is what brings attention blocks to the lower bound), and first fit in allocation order (tinygrad's TLSF
   order). The smallest arena wins (GE's hybrid assigner does the same).
4. Report: planned bytes vs the lower bound vs no reuse (sum of all tensors). The lower bound is the largest
   sum of buffers that may all be live at once: buffers live at one point of the task order, and, with
   several streams, also greedy cliques of the conflict relation (buffers that pairwise may be live
   together, e.g. on concurrent branches). Buffers of a clique need disjoint bytes, so no plan is smaller. `check_plan` proves,
   independently of the planner, that no two tensors whose bytes overlap are live at the same time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .ir import Graph, Node, Value
from .streams import StreamPlan

ALIGN = 512
VIEW_OPS = frozenset({"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"})
# Elementwise ops, and the row normalisations, whose kernels read a row (its maximum, its moments) before writing
# it and write each value where they read it: written over its input, the output lands in lines the input just
# brought into cache rather than in a buffer last touched long before (ViT-B/16's attention Softmax, 12 x 197 x
# 197, 468-513 -> 406-445 us in the network; Zen 3, 1 thread).
INPLACE_OPS = frozenset({
    "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Relu", "LeakyRelu", "Sigmoid", "Tanh", "Gelu", "Elu",
    "Selu", "HardSigmoid", "HardSwish", "Clip", "Exp", "Log", "Sqrt", "Reciprocal", "Neg", "Abs", "Erf", "Sin",
    "Cos", "Floor", "Ceil", "Round", "Sign", "Softplus", "Mish", "Not", "Cast", "FusedElementwise",
    "Softmax", "LogSoftmax", "LayerNormalization",
})


def align(size: int, alignment: int = ALIGN) -> int:
    return (size + alignment - 1) // alignment * alignment


@dataclass
class MemoryPlan:
    arena_size: int
    offsets: dict[str, int]  # value name -> offset in the feature-map arena
    strategy: str
    lower_bound: int
    no_reuse: int
    strategies: dict[str, int] = field(default_factory=dict)  # every strategy tried -> its arena size
    aliases: dict[str, str] = field(default_factory=dict)  # view value -> the value it aliases
    inplace: dict[str, str] = field(default_factory=dict)  # output value -> the input it overwrites
    buffer_count: int = 0

    def report(self) -> str:
        ratio = self.arena_size / self.lower_bound if self.lower_bound else 1.0
        return (f"feature map {self.arena_size} bytes ({self.strategy}); lower bound {self.lower_bound}"
                f" ({ratio:.3f}x); no reuse {self.no_reuse}; {len(self.offsets)} tensors in "
                f"{self.buffer_count} buffers, {len(self.aliases)} views, {len(self.inplace)} in place")


@dataclass
class WeightPlan:
    size: int
    offsets: dict[str, int]  # constant value name -> offset in the weight region
    order: list[Value]


def plan_weights(graph: Graph) -> WeightPlan:
    """Constants read by nodes or returned as outputs, each 512-aligned, in order of first use."""
    order: list[Value] = []
    seen: set[int] = set()
    for value in [v for n in graph.nodes for v in n.inputs] + list(graph.outputs):
        if value is not None and value.is_constant and id(value) not in seen:
            seen.add(id(value))
            order.append(value)
    offsets: dict[str, int] = {}
    size = 0
    for value in order:
        offsets[value.name] = size
        size += align(max(int(value.data.nbytes), 1))  # type: ignore[union-attr]
    return WeightPlan(size, offsets, order)


def planned_values(graph: Graph) -> list[Value]:
    """The tensors that get an arena offset, in order of production."""
    outputs = {id(v) for v in graph.outputs}
    return [v for n in graph.nodes for v in n.outputs if id(v) not in outputs and not v.is_constant]


class _Order:
    """Happens-before between tasks, from node.stream and the stream plan's vector clocks."""

    def __init__(self, graph: Graph, streams: StreamPlan | None) -> None:
        self.index = {id(n): i for i, n in enumerate(graph.nodes)}
        self.streams = [n.stream for n in graph.nodes]
        self.plan = streams

    def before(self, first: Node, second: Node) -> bool:
        i, j = self.index[id(first)], self.index[id(second)]
        if self.plan is None:
            return i < j
        return self.plan.happens_before(i, j, self.streams)


def _uses(value: Value) -> list[Node]:
    return ([value.producer] if value.producer is not None else []) + list(value.consumers)


def plan_memory(graph: Graph, streams: StreamPlan | None = None, *, reuse: bool = True, inplace: bool = True,
                views: bool = True) -> MemoryPlan:
    values = planned_values(graph)
    order = _Order(graph, streams)
    planned = {id(v) for v in values}
    group: dict[int, int] = {}  # id(value) -> buffer index
    members: list[list[Value]] = []
    aliases: dict[str, str] = {}
    inplaced: dict[str, str] = {}
    for value in values:
        source = _share_source(value, planned, group, members, order, views=views, inplace=inplace) if reuse else None
        if source is None:
            group[id(value)] = len(members)
            members.append([value])
        else:
            (aliases if value.producer.op_type in VIEW_OPS else inplaced)[value.name] = source.name  # type: ignore[union-attr]
            group[id(value)] = group[id(source)]
            members[group[id(source)]].append(value)
    sizes = [align(max(m.nbytes for m in ms)) for ms in members]
    no_reuse = sum(align(v.nbytes) for v in values)
    starts, ends = _intervals(members, order)
    lower = live_lower_bound(sizes, starts, ends)
    if not reuse:
        offsets_by_buffer = list(np.cumsum([0, *sizes[:-1]])) if sizes else []
        arena, best = sum(sizes), "no-reuse"
        tried = {best: arena}
    else:
        conflicts = _conflicts(members, order, starts, ends)
        if order.plan is not None:
            lower = max(lower, _clique_lower_bound(sizes, conflicts))
        tried, results = {}, {}
        for name, key, fit in _STRATEGIES:
            offs, size = _place(sizes, conflicts, sorted(range(len(sizes)), key=key(sizes, starts, ends)), fit)
            tried[name], results[name] = size, offs
        best = min(tried, key=lambda k: tried[k])
        arena, offsets_by_buffer = tried[best], results[best]
    offsets = {v.name: int(offsets_by_buffer[group[id(v)]]) for v in values}
    return MemoryPlan(int(arena), offsets, best, int(lower), int(no_reuse), tried, aliases, inplaced, len(members))


def _share_source(value: Value, planned: set[int], group: dict[int, int], members: list[list[Value]],
                  order: _Order, *, views: bool, inplace: bool) -> Value | None:
    node = value.producer
    if node is None or len(node.outputs) != 1:
        return None
    candidates = [v for v in node.inputs if v is not None and id(v) in planned and v.nbytes == value.nbytes]
    if node.op_type in VIEW_OPS and views:
        return candidates[0] if candidates and candidates[0] is node.inputs[0] else None
    if node.op_type not in INPLACE_OPS or not inplace:
        return None
    for source in candidates:
        if source.dtype != value.dtype and node.op_type != "Cast":
            continue
        others = [u for m in members[group[id(source)]] for u in _uses(m) if u is not node]
        if all(order.before(u, node) for u in others):
            return source
    return None


def _intervals(members: list[list[Value]], order: _Order) -> tuple[list[int], list[int]]:
    starts, ends = [], []
    for ms in members:
        idx = [order.index[id(u)] for m in ms for u in _uses(m)]
        starts.append(min(idx))
        ends.append(max(idx))
    return starts, ends


def live_lower_bound(sizes: list[int], starts: list[int], ends: list[int]) -> int:
    """Max over task positions of the sizes of buffers live there (they pairwise conflict)."""
    if not sizes:
        return 0
    delta = np.zeros(max(ends) + 2, dtype=np.int64)
    np.add.at(delta, starts, sizes)
    np.add.at(delta, np.asarray(ends) + 1, -np.asarray(sizes, dtype=np.int64))
    return int(np.cumsum(delta).max())


def _clique_lower_bound(sizes: list[int], conflicts: list[list[int]], seeds: int = 64) -> int:
    """The heaviest of greedy cliques grown from the largest buffers: each step adds the largest buffer that
    conflicts with every member so far. Any clique is a valid lower bound; greedy keeps it cheap."""
    neighbours = [set(c) for c in conflicts]
    best = 0
    for seed in sorted(range(len(sizes)), key=lambda b: -sizes[b])[:seeds]:
        total, candidates = sizes[seed], set(neighbours[seed])
        while candidates:
            chosen = max(candidates, key=lambda c: sizes[c])
            total += sizes[chosen]
            candidates &= neighbours[chosen]
        best = max(best, total)
    return best


def _conflicts(members: list[list[Value]], order: _Order, starts: list[int], ends: list[int]) -> list[list[int]]:
    """For each buffer, the buffers it may not share bytes with: neither one's uses all happen before the
    other's first write. Vectorised: last[a, s] = last position of a's uses on stream s (0 = none),
    clock[b, s] = how far stream s is known complete when b's first writer starts."""
    n = len(members)
    if order.plan is None:
        s, e = np.asarray(starts), np.asarray(ends)
        conflict = (s[:, None] <= e[None, :]) & (s[None, :] <= e[:, None])
    else:
        plan = order.plan
        last = np.zeros((n, plan.stream_count), dtype=np.int64)
        clock = np.asarray([plan.clocks[s] for s in starts], dtype=np.int64).reshape(n, plan.stream_count)
        for b, ms in enumerate(members):
            for m in ms:
                for u in _uses(m):
                    i = order.index[id(u)]
                    stream = order.streams[i]
                    last[b, stream] = max(last[b, stream], plan.positions[i])
        before = (clock[None, :, :] >= last[:, None, :]).all(axis=-1)
        conflict = ~(before | before.T)
    np.fill_diagonal(conflict, False)
    return [np.nonzero(row)[0].tolist() for row in conflict]


def _place(sizes: list[int], conflicts: list[list[int]], order: list[int], best_fit: bool) -> tuple[list[int], int]:
    offsets = [-1] * len(sizes)
    for b in order:
        taken = sorted((offsets[c], offsets[c] + sizes[c]) for c in conflicts[b] if offsets[c] >= 0)
        chosen, chosen_gap, cursor = -1, None, 0
        for lo, hi in taken:
            gap = lo - cursor
            if gap >= sizes[b] and (chosen < 0 or (best_fit and gap < chosen_gap)):  # type: ignore[operator]
                chosen, chosen_gap = cursor, gap
                if not best_fit:
                    break
            cursor = max(cursor, hi)
        offsets[b] = chosen if chosen >= 0 else cursor
    return offsets, max((o + s for o, s in zip(offsets, sizes)), default=0)


# A strategy's placement order, from the buffers' sizes and lifetimes (start and end task positions).
Key = Callable[[list[int], list[int], list[int]], Callable[[int], tuple[int, ...]]]


def _by_size(sizes: list[int], starts: list[int], ends: list[int]) -> Callable[[int], tuple[int, ...]]:
    return lambda b: (-sizes[b], starts[b])


def _by_size_then_lifetime(sizes: list[int], starts: list[int], ends: list[int]) -> Callable[[int], tuple[int, ...]]:
    return lambda b: (-sizes[b], starts[b] - ends[b], starts[b])


def _in_order(sizes: list[int], starts: list[int], ends: list[int]) -> Callable[[int], tuple[int, ...]]:
    return lambda b: (starts[b], -sizes[b])


_STRATEGIES: list[tuple[str, Key, bool]] = [
    ("greedy-by-size-best-fit", _by_size, True),
    ("greedy-by-size-first-fit", _by_size, False),
    ("greedy-by-size-longest-first-best-fit", _by_size_then_lifetime, True),
    ("greedy-by-size-longest-first-first-fit", _by_size_then_lifetime, False),
    ("first-fit-in-order", _in_order, False),
]


def check_plan(graph: Graph, streams: StreamPlan | None, plan: MemoryPlan) -> None:
    """Raises AssertionError unless: every planned tensor has an aligned offset inside the arena, and any two
    tensors whose bytes overlap are never live at the same time (one's uses all happen before the other is
    written), are a view of one another, or one is written in place over the other by a node before which
    every other use of the overwritten tensor happened."""
    order = _Order(graph, streams)
    values = planned_values(graph)
    assert {v.name for v in values} == set(plan.offsets), "planned tensors and offsets differ"
    ranges = []
    for v in values:
        off = plan.offsets[v.name]
        assert off % ALIGN == 0, f"{v.name}: offset {off} is not {ALIGN}-aligned"
        assert off >= 0 and off + v.nbytes <= plan.arena_size, f"{v.name}: [{off}, +{v.nbytes}) outside arena"
        ranges.append((off, off + max(v.nbytes, 1), v))
    ranges.sort(key=lambda r: r[0])
    for i, (lo, hi, a) in enumerate(ranges):
        for lo2, _hi2, b in ranges[i + 1:]:
            if lo2 >= hi:
                break
            assert _may_share(a, b, plan, order) or _may_share(b, a, plan, order), \
                f"{a.name} and {b.name} overlap in memory [{lo}, {hi}) while both are live"


def _may_share(a: Value, b: Value, plan: MemoryPlan, order: _Order) -> bool:
    writer = b.producer
    assert writer is not None
    if all(order.before(u, writer) for u in _uses(a)):
        return True
    if _view_root(a, plan) is _view_root(b, plan):
        return True
    if plan.inplace.get(b.name) == a.name and a in writer.inputs and writer.op_type in INPLACE_OPS:
        return all(order.before(u, writer) for u in _uses(a) if u is not writer)
    return False


def _view_root(value: Value, plan: MemoryPlan) -> Value:
    """Follows view ops (checked in the graph, not taken from the plan) while they keep the offset."""
    while value.producer is not None and value.producer.op_type in VIEW_OPS:
        source = value.producer.inputs[0]
        if source is None or plan.offsets.get(source.name) != plan.offsets[value.name] \
                or source.nbytes != value.nbytes:
            break
        value = source
    return value
