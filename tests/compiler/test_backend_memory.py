"""Static memory planning: the checker on every test model, reuse, in place, views, stream awareness,
alignment, planned vs lower bound vs no reuse; and the checker rejects a bad plan."""

from __future__ import annotations

import dataclasses

import pytest
from backend_models import MODELS

from ascendsim.compiler.build import compile
from ascendsim.compiler.ir import DType, Graph, Value
from ascendsim.compiler.memory import ALIGN, MemoryPlan, check_plan, plan_memory
from ascendsim.compiler.streams import StreamPlan, assign_streams


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("single_stream", [False, True])
def test_plan_is_valid_and_between_bounds(name: str, single_stream: bool) -> None:
    result = compile(MODELS[name]().SerializeToString(), single_stream=single_stream)
    plan = result.memory
    check_plan(result.graph, result.streams, plan)
    assert plan.lower_bound <= plan.arena_size <= plan.no_reuse
    assert all(off % ALIGN == 0 for off in plan.offsets.values())
    assert plan.arena_size == min(plan.strategies.values()) and len(plan.strategies) >= 2
    if single_stream:
        assert plan.arena_size <= 1.1 * plan.lower_bound


def test_no_reuse_option() -> None:
    result = compile(MODELS["resnet"]().SerializeToString(), disable_reuse_memory=True)
    check_plan(result.graph, result.streams, result.memory)
    assert result.memory.arena_size >= result.memory.no_reuse - ALIGN * result.memory.buffer_count


def chain(ops: list[str]) -> Graph:
    g = Graph("chain")
    x = g.value("x", DType.FLOAT, (4, 64))
    g.inputs.append(x)
    y: Value = x
    for op in ops:
        y = g.add_node(op, [y]).outputs[0]
        y.dtype, y.shape = DType.FLOAT, (4, 64)
    g.outputs.append(g.add_node("Exp", [y]).outputs[0])
    g.outputs[0].dtype, g.outputs[0].shape = DType.FLOAT, (4, 64)
    return g


def planned_chain(ops: list[str]) -> tuple[Graph, StreamPlan, MemoryPlan, list[str]]:
    """chain(ops) with its streams and checked memory plan, and its nodes' output names."""
    g = chain(ops)
    streams = assign_streams(g)
    plan = plan_memory(g, streams)
    check_plan(g, streams, plan)
    return g, streams, plan, [n.outputs[0].name for n in g.nodes]


def test_in_place_and_views() -> None:
    g, streams, plan, names = planned_chain(["MatMul", "Relu", "Reshape", "Sigmoid"])
    assert plan.inplace == {names[1]: names[0], names[3]: names[2]}
    assert plan.aliases == {names[2]: names[1]}
    assert plan.arena_size == ALIGN * 2  # 1 KiB tensor -> 1024 bytes, one buffer
    plain = plan_memory(g, streams, inplace=False, views=False)
    check_plan(g, streams, plain)
    assert plain.arena_size == 2 * plan.arena_size


def test_row_normalisations_in_place() -> None:
    """Softmax and LayerNormalization read each row before writing it: their output overwrites their input."""
    _, _, plan, names = planned_chain(["MatMul", "Softmax", "LayerNormalization", "LogSoftmax"])
    assert plan.inplace == {names[1]: names[0], names[2]: names[1], names[3]: names[2]}


def test_cross_stream_reuse_needs_an_event() -> None:
    """Two independent branches on two streams: their tensors may not share memory (no event orders them);
    on one stream they can."""
    g = Graph("two")
    x = g.value("x", DType.FLOAT, (256,))
    g.inputs.append(x)
    outs = []
    for _ in range(2):
        a = g.add_node("MatMul", [x]).outputs[0]
        b = g.add_node("MatMul", [a]).outputs[0]
        for v in (a, b):
            v.dtype, v.shape = DType.FLOAT, (256,)
        outs.append(b)
    s = g.add_node("Sum", outs).outputs[0]
    s.dtype, s.shape = DType.FLOAT, (256,)
    g.outputs.append(s)
    multi = assign_streams(g)
    assert multi.stream_count == 2
    plan = plan_memory(g, multi)
    check_plan(g, multi, plan)
    assert plan.arena_size == 4 * 1024
    single = assign_streams(g, single_stream=True)
    plan1 = plan_memory(g, single)
    check_plan(g, single, plan1)
    assert plan1.arena_size == 3 * 1024
    # plan made for one stream is wrong once the branches run concurrently: the checker says so
    with pytest.raises(AssertionError, match="overlap"):
        check_plan(g, assign_streams(g), plan1)


def test_checker_rejects_overlap_and_misalignment() -> None:
    g = chain(["MatMul", "MatMul", "MatMul"])
    streams = assign_streams(g)
    plan = plan_memory(g, streams)
    names = [n.outputs[0].name for n in g.nodes[:3]]
    bad = dataclasses.replace(plan, offsets={n: 0 for n in names})
    with pytest.raises(AssertionError, match="overlap"):
        check_plan(g, streams, bad)
    with pytest.raises(AssertionError, match="aligned"):
        check_plan(g, streams, dataclasses.replace(plan, offsets={**plan.offsets, names[0]: 8}))
