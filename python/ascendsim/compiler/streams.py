"""Stream assignment and events (GE's logical stream allocator + InsertSyncNodesByLogicStream, at node level).

1. Assign by dependency. Nodes are visited in topological (= task) order. A node continues the stream of its
   first predecessor whose stream has not been claimed yet by another successor of that predecessor; every
   predecessor's stream can be continued by exactly one successor, so a fork sends its second, third ...
   branch onto new streams. Graph inputs count as a virtual Data node on stream 0. New stream ids are handed
   out round-robin modulo `max_streams` (GE's `max_parallel_num`); `single_stream` puts everything on 0.
2. Events. A data edge whose producer and consumer run on different streams needs "record after X on stream
   a" + "wait before Y on stream b". Redundant events are dropped with vector clocks: visiting consumers in
   task order, `clock[b][a]` is how far stream b is already known to be ordered after stream a. An edge is
   dropped when the clock already covers X. This contains GE's two rules (stream_utils.cc):
   - "send" rule (OptimizeBySendEvents): X already signalled an earlier node of stream b -> later receivers on
     b need no event of their own;
   - "recv" rule (OptimizeByRecvEvents): Y receives several edges from stream a -> only the latest sender
     (processed first) keeps its event;
   and also drops edges that are ordered transitively through a third stream ("transitive").
3. Event ids are reused (RefreshEventsAndNotifiesWithReuse): an id may be recorded again once its previous
   wait is *ordered before* the new record (so the runtime can never see the second record before the first
   wait consumed it); ids are taken greedily, lowest first.

Every stream's tasks keep the global task order and every wait refers to an earlier task, so execution can
never deadlock. `happens_before` is exported for the memory planner, which may only reuse memory across
streams along these events.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .ir import Graph, Node


@dataclass(frozen=True)
class Event:
    """Record `event_id` on `record_stream` after task `record_node`; stream `wait_stream` waits before
    task `wait_node` (indices into graph.nodes)."""

    event_id: int
    record_node: int
    record_stream: int
    wait_node: int
    wait_stream: int


@dataclass
class StreamPlan:
    stream_count: int
    events: list[Event]
    event_count: int  # distinct event ids after reuse
    cross_stream_edges: int
    removed: dict[str, int] = field(default_factory=dict)  # by rule: send, recv, transitive
    clocks: list[list[int]] = field(default_factory=list, repr=False)  # per node: vector clock at its start
    positions: list[int] = field(default_factory=list, repr=False)  # per node: 1-based position on its stream

    def happens_before(self, first: int, second: int, streams: list[int]) -> bool:
        """Whether task `first` has completed before task `second` starts (same stream order or events)."""
        return self.clocks[second][streams[first]] >= self.positions[first]


def assign_streams(graph: Graph, *, max_streams: int = 8, single_stream: bool = False) -> StreamPlan:
    """Sets node.stream for every node of `graph` and computes the events; returns the plan."""
    if max_streams < 1:
        raise ValueError(f"max_streams must be at least 1, got {max_streams}")
    nodes = graph.nodes
    index = {id(n): i for i, n in enumerate(nodes)}
    preds = [_predecessors(n, index) for n in nodes]
    if single_stream or max_streams == 1:
        for node in nodes:
            node.stream = 0
    else:
        _assign_by_dependency(nodes, preds, max_streams)
    _make_dense(nodes)
    stream_count = max((n.stream for n in nodes), default=0) + 1
    return _insert_events(nodes, preds, stream_count)


def _predecessors(node: Node, index: dict[int, int]) -> list[int]:
    """Producer node indices of `node`'s inputs, in input order, without duplicates; -1 = graph input."""
    result: list[int] = []
    for value in node.inputs:
        if value is None or value.is_constant:
            continue
        producer = index[id(value.producer)] if value.producer is not None else -1
        if producer not in result:
            result.append(producer)
    return result or [-1]


def _assign_by_dependency(nodes: list[Node], preds: list[list[int]], max_streams: int) -> None:
    claimed: set[int] = set()  # predecessors (-1 = the virtual Data node) whose stream was continued
    next_new = 1
    for i, node in enumerate(nodes):
        stream = None
        for p in preds[i]:
            if p not in claimed:
                claimed.add(p)
                stream = 0 if p == -1 else nodes[p].stream
                break
        if stream is None:
            stream = next_new % max_streams
            next_new += 1
        node.stream = stream


def _make_dense(nodes: list[Node]) -> None:
    """Renumbers streams 0..n-1 in order of first use (GE's RefreshContinuousStreams)."""
    mapping: dict[int, int] = {}
    for node in nodes:
        node.stream = mapping.setdefault(node.stream, len(mapping))


def _insert_events(nodes: list[Node], preds: list[list[int]], stream_count: int) -> StreamPlan:
    streams = [n.stream for n in nodes]
    stream_clock = [[0] * stream_count for _ in range(stream_count)]  # stream_clock[b] = clock of stream b
    clocks: list[list[int]] = []
    positions: list[int] = []
    finished: list[list[int]] = []  # clock just after each node completed
    candidates: list[tuple[int, int]] = []
    removed = {"send": 0, "recv": 0, "transitive": 0}
    signalled: set[tuple[int, int]] = set()  # (record node, wait stream) already signalled
    kept: list[tuple[int, int]] = []
    for y, node in enumerate(nodes):
        b = node.stream
        clock = list(stream_clock[b])
        incoming = sorted((p for p in preds[y] if p >= 0 and streams[p] != b), key=lambda p: -positions[p])
        seen_streams: set[int] = set()
        for x in incoming:
            a = streams[x]
            candidates.append((x, y))
            if clock[a] >= positions[x]:
                if (x, b) in signalled:
                    removed["send"] += 1
                elif a in seen_streams:
                    removed["recv"] += 1
                else:
                    removed["transitive"] += 1
                continue
            seen_streams.add(a)
            signalled.add((x, b))
            kept.append((x, y))
            clock = [max(c, f) for c, f in zip(clock, finished[x])]
        clocks.append(clock)
        positions.append(stream_clock[b][b] + 1)
        done = list(clock)
        done[b] = positions[y]
        finished.append(done)
        stream_clock[b] = done
    events, event_count = _number_events(kept, streams, clocks, positions)
    return StreamPlan(stream_count, events, event_count, len(candidates), removed, clocks, positions)


def _number_events(kept: list[tuple[int, int]], streams: list[int], clocks: list[list[int]],
                   positions: list[int]) -> tuple[list[Event], int]:
    last_wait: list[int] = []  # per event id: the node that last waited on it
    events: list[Event] = []
    for x, y in sorted(kept):
        event_id = next((e for e, w in enumerate(last_wait) if clocks[x][streams[w]] >= positions[w]), None)
        if event_id is None:
            event_id = len(last_wait)
            last_wait.append(y)
        else:
            last_wait[event_id] = y
        events.append(Event(event_id, x, streams[x], y, streams[y]))
    return events, len(last_wait)
