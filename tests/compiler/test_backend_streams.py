"""Stream assignment and events: branches on separate streams, events only on cross-stream edges, GE's two
redundant-event rules, event id reuse, max stream count and single stream."""

from __future__ import annotations

import numpy as np
import pytest

from ascendsim.compiler.ir import DType, Graph, Value
from ascendsim.compiler.streams import assign_streams


def _typed(graph: Graph, op: str, inputs: list[Value | None], **attrs: object) -> Value:
    out = graph.add_node(op, inputs, attrs=dict(attrs)).outputs[0]
    out.dtype, out.shape = DType.FLOAT, (1, 8)
    return out


def fork(branches: int, depth: int = 1) -> Graph:
    g = Graph("fork")
    x = g.value("x", DType.FLOAT, (1, 8))
    g.inputs.append(x)
    root = _typed(g, "Relu", [x])
    ends = []
    for _ in range(branches):
        y = root
        for _ in range(depth):
            y = _typed(g, "Sigmoid", [y])
        ends.append(y)
    g.outputs.append(_typed(g, "Sum", ends))
    return g


def test_branches_get_their_own_streams_and_events_only_cross_stream() -> None:
    g = fork(4, depth=2)
    plan = assign_streams(g, max_streams=8)
    assert plan.stream_count == 4
    streams = [n.stream for n in g.nodes]
    assert streams[0] == 0 and streams[-1] == 0
    for e in plan.events:
        assert e.record_stream != e.wait_stream
        assert g.nodes[e.record_node].stream == e.record_stream and g.nodes[e.wait_node].stream == e.wait_stream
    # fork -> 3 other streams, 3 joins back: 6 events, reused ids
    assert len(plan.events) == 6
    assert plan.event_count == 3


def test_max_streams_wraps_and_single_stream() -> None:
    g = fork(6)
    assert assign_streams(g, max_streams=2).stream_count == 2
    plan = assign_streams(g, single_stream=True)
    assert plan.stream_count == 1 and plan.events == [] and {n.stream for n in g.nodes} == {0}
    with pytest.raises(ValueError, match="max_streams"):
        assign_streams(g, max_streams=0)


def test_send_rule_one_event_per_receiving_stream() -> None:
    """X on stream 1 feeds two nodes of stream 0: only the first needs to wait (GE OptimizeBySendEvents)."""
    g = Graph("send")
    x = g.value("x", DType.FLOAT, (1, 8))
    g.inputs.append(x)
    a = _typed(g, "Relu", [x])          # stream 0
    b = _typed(g, "Relu", [x])          # stream 1 (input already claimed)
    c = _typed(g, "Add", [a, b])        # stream 0, waits for b
    d = _typed(g, "Add", [c, b])        # stream 0, b already covered
    g.outputs.append(d)
    plan = assign_streams(g)
    assert [n.stream for n in g.nodes] == [0, 1, 0, 0]
    assert len(plan.events) == 1 and plan.removed["send"] == 1


def test_recv_rule_keeps_only_the_latest_sender() -> None:
    """Two producers on stream 1 feed one node of stream 0: only the later one needs an event."""
    g = Graph("recv")
    x = g.value("x", DType.FLOAT, (1, 8))
    g.inputs.append(x)
    a = _typed(g, "Relu", [x])          # stream 0
    b = _typed(g, "Relu", [x])          # stream 1
    b2 = _typed(g, "Sigmoid", [b])      # stream 1
    g.outputs.append(_typed(g, "Sum", [a, b, b2]))
    plan = assign_streams(g)
    assert len(plan.events) == 1 and plan.events[0].record_node == 2 and plan.removed["recv"] == 1


def test_transitive_events_are_dropped() -> None:
    g = Graph("transitive")
    x = g.value("x", DType.FLOAT, (1, 8))
    g.inputs.append(x)
    a = _typed(g, "Relu", [x])          # s0
    b = _typed(g, "Relu", [x])          # s1
    c = _typed(g, "Add", [a, b])        # s0, waits for b
    e = _typed(g, "Relu", [b])          # s1 (continues b's stream)
    f = _typed(g, "Add", [c, e])        # s0 waits e
    g.outputs.append(f)
    plan = assign_streams(g)
    assert all(ev.record_stream != ev.wait_stream for ev in plan.events)
    for i in range(len(g.nodes)):
        for value in g.nodes[i].inputs:
            if value is not None and value.producer is not None:
                j = g.nodes.index(value.producer)
                assert plan.happens_before(j, i, [n.stream for n in g.nodes])


def test_every_data_edge_is_ordered_on_random_graphs() -> None:
    rng = np.random.default_rng(1)
    for trial in range(30):
        g = Graph(f"random{trial}")
        x = g.value("x", DType.FLOAT, (1, 8))
        g.inputs.append(x)
        values = [x]
        for _ in range(25):
            picks = rng.choice(len(values), size=min(len(values), int(rng.integers(1, 4))), replace=False)
            values.append(_typed(g, "Sum", [values[int(i)] for i in picks]))
        g.outputs.append(values[-1])
        plan = assign_streams(g, max_streams=int(rng.integers(1, 6)))
        streams = [n.stream for n in g.nodes]
        for i, node in enumerate(g.nodes):
            for value in node.inputs:
                if value is not None and value.producer is not None:
                    assert plan.happens_before(g.nodes.index(value.producer), i, streams)
        # event id reuse is only allowed after the previous wait is ordered before the new record
        last: dict[int, int] = {}
        for ev in sorted(plan.events, key=lambda e: e.record_node):
            if ev.event_id in last:
                assert plan.happens_before(last[ev.event_id], ev.record_node, streams)
            last[ev.event_id] = ev.wait_node
