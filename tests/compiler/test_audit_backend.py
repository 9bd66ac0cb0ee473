"""Audit of issue 3 points 5 and 6 on purpose-built graphs: the memory planner is stream-aware (a tensor freed
on one stream is reused by another stream only after an event orders them), in-place happens only where
safe, graph inputs and outputs are zero copy, and stream assignment + events on a multi-branch model."""

from __future__ import annotations

from backend_models import MODELS

from ascendsim.compiler.build import compile
from ascendsim.compiler.ir import DType, Graph, Node, Value
from ascendsim.compiler.memory import check_plan, plan_memory
from ascendsim.compiler.om_reader import read_om
from ascendsim.compiler.streams import assign_streams

SHAPE = (256,)  # 1 KiB of float32: two 512-byte alignment units


def op(g: Graph, op_type: str, inputs: list[Value], shape: tuple[int, ...] = SHAPE,
       dtype: DType = DType.FLOAT) -> Value:
    out = g.add_node(op_type, inputs).outputs[0]
    out.dtype, out.shape = dtype, shape
    return out


def graph_input(g: Graph, shape: tuple[int, ...] = SHAPE) -> Value:
    x = g.value("x", DType.FLOAT, shape)
    g.inputs.append(x)
    return x


def overlap(plan_offsets: dict[str, int], a: Value, b: Value) -> bool:
    lo_a, lo_b = plan_offsets[a.name], plan_offsets[b.name]
    return lo_a < lo_b + b.nbytes and lo_b < lo_a + a.nbytes


def test_freed_on_one_stream_not_reused_by_an_unordered_stream() -> None:
    """b (stream 1) is last read at task 2; c (stream 0) is written at task 3, later in task order but with no
    event between them: the streams may run 2 and 3 at the same time, so c must not take b's bytes. After the
    join (task 4 waits for stream 1) e may take them."""
    g = Graph("streams")
    x = graph_input(g)
    r = op(g, "MatMul", [x])           # 0, s0
    b = op(g, "MatMul", [x])           # 1, s1
    b2 = op(g, "MatMul", [b])          # 2, s1: last use of b
    c = op(g, "MatMul", [r])           # 3, s0: not ordered after task 2
    j = op(g, "Sum", [c, b2])          # 4, s0: waits for b2
    e = op(g, "MatMul", [j])           # 5, s0: ordered after task 2 through the event
    g.outputs.append(op(g, "MatMul", [e]))
    streams = assign_streams(g)
    assert [n.stream for n in g.nodes] == [0, 1, 1, 0, 0, 0, 0]
    assert [(ev.record_node, ev.wait_node) for ev in streams.events] == [(2, 4)]
    assert not streams.happens_before(2, 3, [n.stream for n in g.nodes])
    plan = plan_memory(g, streams)
    check_plan(g, streams, plan)
    assert not overlap(plan.offsets, b, c)
    # in task order alone (one stream) c could take b's bytes: the case is a real one
    unaware = plan_memory(g, None)
    assert overlap(unaware.offsets, b, c) or overlap(unaware.offsets, b2, c)
    try:
        check_plan(g, streams, unaware)
    except AssertionError as error:
        assert "overlap" in str(error)
    else:
        raise AssertionError("the checker accepted a stream-unaware plan")
    # r, b, b2, c pairwise may run at once (4 KiB, the minimum); j and e reuse their bytes after the join
    assert plan.arena_size == 4 * 1024 and plan.no_reuse == 6 * 1024
    assert any(overlap(plan.offsets, e, v) for v in (b, b2))


def test_in_place_only_where_safe() -> None:
    g = Graph("inplace")
    x = graph_input(g)
    relu_of_input = op(g, "Relu", [x])                  # x is the user's buffer: never overwritten
    a = op(g, "MatMul", [relu_of_input])
    kept = op(g, "Relu", [a])                           # a is read again below: not in place
    view = op(g, "Reshape", [kept], (16, 16))
    over_view = op(g, "Sigmoid", [view], (16, 16))      # kept is read below via MatMul: not in place
    again = op(g, "MatMul", [kept])
    grown = op(g, "Add", [again, x], (2, 256))          # output larger than the input: not in place
    half = op(g, "Cast", [grown], (2, 256), DType.FLOAT16)  # smaller output: not in place
    soft = op(g, "CumSum", [half], (2, 256), DType.FLOAT16)  # reads values it has written: not in place
    fine = op(g, "Tanh", [soft], (2, 256), DType.FLOAT16)    # last use of soft: in place
    total = op(g, "Sum", [a, over_view, fine], (2, 256), DType.FLOAT16)
    g.outputs.append(total)
    streams = assign_streams(g, single_stream=True)
    plan = plan_memory(g, streams)
    check_plan(g, streams, plan)
    assert plan.inplace == {fine.name: soft.name}
    assert plan.aliases == {view.name: kept.name}
    assert relu_of_input.name in plan.offsets and x.name not in plan.offsets


def test_in_place_respects_other_streams() -> None:
    """r = Relu(a) on stream 0 while stream 1 still reads a: r may not overwrite a."""
    g = Graph("inplace_streams")
    x = graph_input(g)
    a = op(g, "MatMul", [x])           # s0
    r = op(g, "Relu", [a])             # s0 (continues a's stream)
    s = op(g, "MatMul", [a])           # s1 (a's stream already claimed) reads a
    g.outputs.append(op(g, "Sum", [r, s]))
    streams = assign_streams(g)
    assert g.nodes[1].stream != g.nodes[2].stream
    plan = plan_memory(g, streams)
    check_plan(g, streams, plan)
    assert r.name not in plan.inplace and not overlap(plan.offsets, a, r)
    single = assign_streams(g, single_stream=True)  # one stream: Relu (task 1) runs before the MatMul (task 2)
    plan1 = plan_memory(g, single)                   # that still reads a, so still not in place
    check_plan(g, single, plan1)
    assert r.name not in plan1.inplace


def test_inputs_and_outputs_are_zero_copy(tmp_path: object) -> None:
    """Inputs and outputs are the user's buffers: no copy node, no arena bytes; the first node reads the
    INPUT tensor and the last node writes the OUTPUT tensor directly."""
    result = compile(MODELS["bert"]().SerializeToString(), tmp_path / "bert")  # type: ignore[operator]
    graph = result.graph
    io_names = {v.name for v in graph.inputs + graph.outputs}
    assert not io_names & set(result.memory.offsets)
    assert all(n.op_type not in ("Identity", "Copy", "MemCpy") for n in graph.nodes)
    om = read_om(result.output)  # type: ignore[arg-type]
    plan = om.plans[0]
    tensors = plan["tensors"]
    for ids, kind in ((plan["inputs"], "INPUT"), (plan["outputs"], "OUTPUT")):
        for k, t in enumerate(ids):
            assert tensors[t]["kind"] == kind and tensors[t]["io_index"] == k and tensors[t]["offset"] == 0
    readers = {t for n in plan["nodes"] for t in n["inputs"]}
    writers = {t for n in plan["nodes"] for t in n["outputs"]}
    assert set(plan["inputs"]) <= readers and set(plan["outputs"]) <= writers
    planned = sum(v.nbytes for n in graph.nodes for v in n.outputs if v.name in result.memory.offsets)
    assert result.memory.no_reuse >= planned and result.memory.no_reuse < planned + 512 * len(result.memory.offsets)


def test_an_output_that_is_an_input_gets_its_own_producer() -> None:
    g = Graph("passthrough")
    x = graph_input(g)
    g.outputs += [x, op(g, "Relu", [x])]
    from ascendsim.compiler.build import _fix_outputs

    _fix_outputs(g)
    assert g.outputs[0] is not x and g.outputs[0].producer is not None
    assert isinstance(g.outputs[0].producer, Node) and g.outputs[0].producer.op_type == "Identity"


def test_inception_block_streams_events_and_memory() -> None:
    result = compile(MODELS["inception"]().SerializeToString())
    streams, graph = result.streams, result.graph
    order = [n.stream for n in graph.nodes]
    assert streams.stream_count >= 3  # the 4 branches run on separate streams
    index = {id(n): i for i, n in enumerate(graph.nodes)}
    cross = 0
    for i, node in enumerate(graph.nodes):
        for value in node.inputs:
            if value is not None and value.producer is not None:
                j = index[id(value.producer)]
                assert streams.happens_before(j, i, order)
                cross += order[j] != order[i]
    assert streams.cross_stream_edges == cross and 0 < len(streams.events) <= cross
    assert all(e.record_stream != e.wait_stream for e in streams.events)
    assert streams.event_count <= len(streams.events)
    check_plan(graph, streams, result.memory)
    capped = compile(MODELS["inception"]().SerializeToString(), max_streams=2)
    assert capped.streams.stream_count == 2
    check_plan(capped.graph, capped.streams, capped.memory)
