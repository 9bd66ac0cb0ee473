"""`ascendsim.compile(...)`: ONNX -> .om, GE's build pipeline with every stage timed.

Per plan (one for a static model, one per gear for --dynamic_batch_size / _image_size / _dims):
import (onnx_import, shapes from --input_shape, which also runs shape inference) -> --out_nodes ->
--input_format -> static AIPP (--insert_op_conf, aipp.py: GE inserts it in the prepare stage) -> passes (PassManager, GE's stages) -> --input_fp16_nodes / --output_type -> precision marks ->
output fix-up (an output that is a graph input, a constant or a repeated value gets an Identity so that every
output has its own producer) -> stream assignment -> static memory plan -> weight layout over all plans ->
OM writer. A dynamic-shape model (-1, ranges or -2 in --input_shape without a gear option) has one plan on one
stream with no static memory plan: the runtime's v2 path infers shapes and allocates per execution
(dynamic_shape.py checks every node has a runtime shape function and lists the shape-dependent nodes). A model
with control flow (If/Loop, onnx_control_flow.py) is always such a model, as GE runs a graph whose functional
ops have data-dependent output shapes on its dynamic (hybrid) path; each subgraph goes through the passes,
precision and checks on its own and is written after the main plan. `progress(stage)` is called as each stage starts (atc's progress display).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .aipp import AippInfo, apply_aipp
from .aipp_config import AippConfig, load_aipp_config
from .build_options import (
    InputRanges,
    check_input_format,
    gear_shapes,
    is_dynamic_shape,
    parse_gears,
    parse_input_shape,
    parse_out_nodes,
)
from .dynamic_shape import DynamicShapeInfo, check_dynamic, dynamic_memory_plan
from .errors import CompileError
from .ir import Graph, Value
from .memory import MemoryPlan, WeightPlan, plan_memory, plan_weights
from .om_format import MAX_BYTES, DynamicType, Precision
from .om_writer import OmModel, OmPlan, write_om
from .ops import lookup
from .passes import PassManager, PassReport
from .passes.layout_5hd import LAYOUT_PASS
from .precision import apply_input_fp16, apply_output_type, apply_precision, parse_precision_mode
from .streams import StreamPlan, assign_streams

DEFAULT_SOC = "Ascend910B"
Progress = Callable[[str], None]


@dataclass
class CompileResult:
    output: Path | None
    plans: list[OmPlan]
    weights: WeightPlan
    seconds: dict[str, float] = field(default_factory=dict)  # stage -> seconds (summed over gears)
    pass_reports: list[PassReport] = field(default_factory=list)
    nodes_before: int = 0
    file_size: int = 0
    precision_mode: str = ""
    dynamic: DynamicShapeInfo | None = None  # a dynamic-shape model (v2 runtime)
    subgraphs: list[OmPlan] = field(default_factory=list)  # the If/Loop subgraphs (graph.subgraphs' order)

    @property
    def graph(self) -> Graph:
        return self.plans[0].graph

    @property
    def memory(self) -> MemoryPlan:
        return self.plans[0].memory

    @property
    def streams(self) -> StreamPlan:
        return self.plans[0].streams

    def summary(self) -> str:
        lines = []
        if self.pass_reports:
            lines.append(self.pass_reports[0].format())
        for i, plan in enumerate(self.plans):
            gear = f" gear {','.join(map(str, plan.gear))}" if plan.gear else ""
            s = plan.streams
            lines.append(f"[Build] plan {i}{gear}: {len(plan.graph.nodes)} nodes, {s.stream_count} streams, "
                         f"{len(s.events)} events ({s.event_count} event ids; {s.cross_stream_edges} cross-stream "
                         f"edges, redundant removed: {s.removed})")
            if self.dynamic is None:  # a dynamic-shape model has no static memory plan
                lines.append(f"[Build] plan {i}{gear}: {plan.memory.report()}")
        if self.dynamic is not None:
            lines.append(self.dynamic.report())
        for i, sub in enumerate(self.subgraphs):
            lines.append(f"[Build] subgraph {i} '{sub.graph.name}': {len(sub.graph.nodes)} nodes, "
                         f"{len(sub.graph.inputs)} inputs, {len(sub.graph.outputs)} outputs")
        lines.append(f"[Build] weights {self.weights.size} bytes in {len(self.weights.order)} constants; "
                     f"precision_mode {self.precision_mode}")
        lines.append("[Build] time: " + ", ".join(f"{k} {v * 1e3:.1f} ms" for k, v in self.seconds.items())
                     + f"; total {sum(self.seconds.values()) * 1e3:.1f} ms")
        if self.output is not None:
            lines.append(f"[Build] wrote {self.output} ({self.file_size} bytes)")
        return "\n".join(lines)

    def brief(self) -> str:
        """The summary without the per-stage detail: pass totals, each plan's streams and memory, time."""
        kept = ("[GraphOpt] total", "[Build] plan", "[Build] dynamic", "[Build] time", "[Build] wrote")
        return "\n".join(line for line in self.summary().splitlines() if line.startswith(kept))


def compile(model: Any, output: str | os.PathLike[str] | None = None, *, soc_version: str = DEFAULT_SOC,
            input_shape: str | Mapping[str, Sequence[int]] | None = None, input_format: str | None = None,
            out_nodes: str | None = None, precision_mode: str | None = None,
            input_fp16_nodes: str | Sequence[str] | None = None, output_type: str | None = None,
            dynamic_batch_size: str | None = None, dynamic_image_size: str | None = None,
            dynamic_dims: str | None = None, insert_op_conf: str | None = None, max_streams: int = 8,
            single_stream: bool = False, disable_reuse_memory: bool = False, disabled_passes: Iterable[str] = (),
            dump_graph: str | None = None, progress: Progress | None = None) -> CompileResult:
    """Compiles an ONNX model (path, bytes or ModelProto) for `soc_version`; writes `output` (".om" appended
    when missing, as atc does) unless it is None. Raises CompileError for anything the model or options get
    wrong."""
    if not soc_version:
        raise CompileError("soc_version must be given (e.g. Ascend910B)")
    shapes, ranges = _input_shapes(input_shape)
    kind, gears = parse_gears(dynamic_batch_size, dynamic_image_size, dynamic_dims, shapes)
    dynamic_shape = _dynamic_shape_model(shapes, ranges, gears)
    fmt = check_input_format(input_format)
    precision = parse_precision_mode(precision_mode)
    fp16_inputs = input_fp16_nodes.split(";") if isinstance(input_fp16_nodes, str) else list(input_fp16_nodes or [])
    aipp_configs = _aipp_configs(insert_op_conf, kind)
    aipp: list[AippInfo] = []
    result = CompileResult(None, [], WeightPlan(0, {}, []), precision_mode=precision_mode or "force_fp16")
    clock = _Clock(result.seconds, progress)
    for gear in gears or [()]:
        gear_shape = gear_shapes(shapes, kind, gear) if gear else shapes
        with clock("import"):
            graph = _import(model, gear_shape)
        dynamic_shape = dynamic_shape or _control_flow(graph, gears)
        result.nodes_before = len(graph.nodes)
        _select_outputs(graph, parse_out_nodes(out_nodes))
        for value in graph.inputs:  # ATC's default for ONNX is NCHW; ascendsim keeps ND for non-4-D inputs
            value.format = fmt or ("NCHW" if value.shape is not None and len(value.shape) == 4 else "ND")
        if aipp_configs:
            with clock("aipp"):
                aipp = _add_aipp(graph, aipp_configs, fmt, fp16_inputs, soc_version=soc_version, first_gear=aipp)
        with clock("passes"):
            result.pass_reports.append(_run_passes(graph, disabled_passes, dump_graph))
        with clock("precision"):
            apply_input_fp16(graph, [n for n in fp16_inputs if n])
            apply_output_type(graph, output_type or "")
            flags = apply_precision(graph, precision)
            _fix_outputs(graph)
            result.dynamic = check_dynamic(graph, shapes, ranges) if dynamic_shape else _check_static(graph)
        with clock("streams"):  # the v2 runtime runs one Main graph: one stream
            streams = assign_streams(graph, max_streams=max_streams, single_stream=single_stream or dynamic_shape)
        _dump_streams(dump_graph, graph, streams, gear)
        with clock("memory"):
            memory = dynamic_memory_plan(graph) if dynamic_shape else \
                _check_arena(plan_memory(graph, streams, reuse=not disable_reuse_memory))
        result.plans.append(OmPlan(graph, streams, memory, flags, gear))
        result.subgraphs = _subgraph_plans(graph, disabled_passes, precision, clock)
    with clock("weights"):
        result.weights = _shared_weights(result.plans + result.subgraphs)
    if output is not None:
        path = _om_path(output)
        name = Path(model).stem if isinstance(model, (str, os.PathLike)) else result.graph.name
        om = OmModel(name or "model", soc_version, result.plans, result.weights, precision, kind,
                     [n for n, d in shapes.items() if -1 in d] if gears else [], aipp,
                     dynamic_shape=dynamic_shape, shape_ranges=result.dynamic.ranges if result.dynamic else {},
                     subgraphs=result.subgraphs)
        with clock("om"):
            try:
                result.file_size = write_om(path, om)
            except (OSError, ValueError, TypeError) as error:
                raise CompileError(f"cannot write {path}: {error}") from error
        result.output = path
    return result


def _control_flow(graph: Graph, gears: list[tuple[int, ...]]) -> bool:
    """A model with If/Loop subgraphs is a dynamic-shape model: its output shapes may follow the data (GE runs
    a graph whose functional ops have unknown output shapes on its dynamic path); gears do not apply."""
    if graph.subgraphs and gears:
        raise CompileError("the model has control flow (If/Loop), which runs on the dynamic-shape runtime; it "
                           "cannot be compiled with --dynamic_batch_size, --dynamic_image_size or --dynamic_dims")
    return bool(graph.subgraphs)


def _subgraph_plans(root: Graph, disabled: Iterable[str], precision: Precision, clock: _Clock) -> list[OmPlan]:
    with clock("subgraphs"):
        return [_subgraph_plan(g, disabled, precision) for g in root.subgraphs]


def _subgraph_plan(graph: Graph, disabled: Iterable[str], precision: Precision) -> OmPlan:
    """An If/Loop subgraph through the same stages as the main graph of a dynamic-shape model: passes,
    precision, output fix-up, the v2 checks (an op without a runtime shape function is an error naming the
    node), one stream, no static memory plan."""
    _run_passes(graph, [*disabled, LAYOUT_PASS], None)  # the v2 runtime has no shape functions for NC1HWC0 ops
    flags = apply_precision(graph, precision)
    _fix_outputs(graph)
    check_dynamic(graph, {}, {})
    return OmPlan(graph, assign_streams(graph, max_streams=1, single_stream=True), dynamic_memory_plan(graph), flags)


def _input_shapes(given: str | Mapping[str, Sequence[int]] | None) -> tuple[dict[str, list[int]], InputRanges]:
    ranges: InputRanges = {}
    if isinstance(given, (str, type(None))):
        return parse_input_shape(given, ranges), ranges
    return {k: list(v) for k, v in given.items()}, ranges


def _dynamic_shape_model(shapes: dict[str, list[int]], ranges: InputRanges, gears: list[tuple[int, ...]]) -> bool:
    """-1, ranges or -2 without a gear option make a dynamic-shape model; ranges and gears do not mix."""
    if gears and any(low != high and (low, high) != (1, -1) for bounds in ranges.values() for low, high in bounds):
        raise CompileError("--input_shape ranges (lo~hi) cannot be used with --dynamic_batch_size, "
                           "--dynamic_image_size or --dynamic_dims; use -1 at the gear dims")
    return not gears and is_dynamic_shape(shapes)


def _om_path(output: str | os.PathLike[str]) -> Path:
    """`output` with ".om" appended when missing (as atc does); a directory is a CompileError."""
    path = Path(os.fspath(output))
    if path.name in ("", ".", "..") or path.is_dir():
        raise CompileError(f"output {os.fspath(output)!r} names a directory; give a file name (.om is appended)")
    return path if path.suffix == ".om" else path.with_name(path.name + ".om")


class _Clock:
    def __init__(self, seconds: dict[str, float], progress: Progress | None) -> None:
        self.seconds, self.progress, self.stage = seconds, progress, ""

    def __call__(self, stage: str) -> _Clock:
        self.stage = stage
        return self

    def __enter__(self) -> None:
        if self.progress is not None:
            self.progress(self.stage)
        self.start = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self.seconds[self.stage] = self.seconds.get(self.stage, 0.0) + time.perf_counter() - self.start


def _import(model: Any, shapes: dict[str, list[int]]) -> Graph:
    from .onnx_import import import_onnx

    graph = import_onnx(model, input_shapes=shapes)
    names = {v.name for v in graph.inputs}
    unknown = sorted(set(shapes) - names)
    if unknown:
        raise CompileError(f"--input_shape names {', '.join(unknown)}, which {'is' if len(unknown) == 1 else 'are'} "
                           f"not model input(s); inputs: {', '.join(sorted(names))}")
    return graph


def _aipp_configs(path: str | None, kind: DynamicType) -> list[AippConfig]:
    """The --insert_op_conf blocks. With --dynamic_image_size the image follows the gear: GE's
    InsertAippOpUtil refuses crop, padding and fixed source sizes there (each gear's AIPP takes the gear's
    H x W); with --dynamic_batch_size / --dynamic_dims every gear is checked against its own shape."""
    if not path:
        return []
    configs = load_aipp_config(path)
    if kind == DynamicType.DYNAMIC_IMAGE:
        for cfg in configs:
            switch = next((f for f in ("crop", "padding") if cfg.flag(f)), None)
            size = next((f for f in ("src_image_size_w", "src_image_size_h") if cfg.as_int(f)), None)
            if switch or size:
                raise cfg.error(switch or size, "When --dynamic_image_size is set, " + (
                    "crop and padding cannot be set to 'true'" if switch else
                    f"src_image_size_w and src_image_size_h must be set to '0' (got {size} {cfg.as_int(size)})"))
    return configs


def _add_aipp(graph: Graph, configs: list[AippConfig], fmt: str | None, fp16_inputs: list[str], *,
              soc_version: str, first_gear: list[AippInfo]) -> list[AippInfo]:
    """Inserts the AIPP ops for one plan; the first gear's records collect every gear's shapes."""
    names = [v.name for v in graph.inputs]
    infos = apply_aipp(graph, configs, fmt, soc_version)
    for info in infos:
        if names[info.input_index] in fp16_inputs:  # GE: E10034
            raise CompileError(f"E10034: This input op [{names[info.input_index]}] is linked to aipp, can not be set "
                               "to fp16, please check your atc parameter --insert_op_conf, --input_fp16_nodes.")
    if not first_gear:
        return infos
    for kept, info in zip(first_gear, infos):
        kept.add_plan(info)
    return first_gear


def _dump_streams(dump: str | None, graph: Graph, streams: StreamPlan, gear: Sequence[int]) -> None:
    """--dump_graph: after the stage dumps, a picture of the final graph with its streams and events."""
    if dump:
        from .graph_dot import save_picture

        suffix = "_gear" + "x".join(map(str, gear)) if gear else ""
        save_picture(graph, Path(dump) / f"{graph.name}_05_streams{suffix}", streams, f"{graph.name}: streams and events")


def _run_passes(graph: Graph, disabled: Iterable[str], dump: str | None) -> PassReport:
    # The passes package imports (and so registers) every pass module; one that is missing fails the import.
    try:
        manager = PassManager(disabled=disabled, dump=dump)
    except ValueError as error:
        raise CompileError(str(error)) from None
    return manager.run(graph)


def _select_outputs(graph: Graph, wanted: list[tuple[str, int]]) -> None:
    if not wanted:
        return
    by_name = {n.name: n for n in graph.nodes}
    outputs = []
    for name, index in wanted:
        node = by_name.get(name)
        if node is None or index >= len(node.outputs):
            raise CompileError(f"--out_nodes: {name}:{index} is not an output of a node of the model")
        outputs.append(node.outputs[index])
    graph.outputs = outputs


def _fix_outputs(graph: Graph) -> None:
    seen: set[int] = set()
    for i, value in enumerate(graph.outputs):
        if value.producer is None or id(value) in seen:
            copy = graph.add_node("Identity", [value], 1, name=graph.unique_name(f"{value.name}_output_copy"))
            copy.outputs[0].dtype, copy.outputs[0].shape = value.dtype, value.shape
            graph.outputs[i] = copy.outputs[0]
        seen.add(id(graph.outputs[i]))


def _check_static(graph: Graph) -> None:
    """Refuses what the static runtime cannot run (value-dependent or non-static shapes, oversized tensors)."""
    for node in graph.nodes:  # NonZero, Unique: no kernel, folded at compile time or nothing
        spec = lookup(node.op_type, node.domain)
        if spec is not None and spec.value_shaped:
            constant = all(v is None or v.is_constant for v in node.inputs)
            why = "the constant_folding pass is disabled" if constant else "its input is computed at run time"
            raise CompileError(f"node {node.name!r} ({node.op_type}): its output shape depends on the values of its "
                               f"input, so it is compiled only when folded at compile time, and {why}: dynamic "
                               "shapes are not supported yet")
    values: list[Value] = list(graph.inputs) + [v for n in graph.nodes for v in n.outputs]
    for value in values:
        if not value.is_static or value.dtype is None:
            raise CompileError(_dynamic_shape(value) or f"tensor {value.name!r} has shape {value.shape} and type "
                               f"{value.dtype}: a static shape is needed; give the input shapes with --input_shape "
                               "(or dynamic gears)")
        where = f"node {value.producer.name!r} ({value.producer.op_type}): output" if value.producer else "input"
        if value.nbytes > MAX_BYTES:
            raise CompileError(f"{where} {value.name!r} has shape {value.shape}: {value.nbytes} bytes, more than a "
                               f"tensor can hold ({MAX_BYTES})")
        # (a zero-size tensor may still have a dim past what the .om's signed 64-bit dims hold)
        if any(int(d) > MAX_BYTES for d in value.shape):  # type: ignore[union-attr, arg-type]
            raise CompileError(f"{where} {value.name!r} has shape {value.shape}: a dim past {MAX_BYTES}, more than "
                               "a .om dim can hold")


def _dynamic_shape(value: Value) -> str | None:
    """Why a node's output has no static shape when its inputs have one: the size depends on the values of an
    input computed at run time (Reshape's shape, TopK's K, ...), which the static-shape runtime cannot run; None
    for other causes."""
    node = value.producer
    if node is None or not all(v is None or v.is_static for v in node.inputs):
        return None
    return (f"node {node.name!r} ({node.op_type}): the shape of output {value.name!r} depends on the values of an "
            "input, computed at run time: dynamic shapes are not supported yet (the input must be a constant, or "
            "computed from constants and static shapes only)")


def _check_arena(memory: MemoryPlan) -> MemoryPlan:
    if memory.arena_size > MAX_BYTES:
        raise CompileError(f"the feature maps need {memory.arena_size} bytes of device memory, more than a .om can "
                           f"describe ({MAX_BYTES})")
    return memory


def _shared_weights(plans: list[OmPlan]) -> WeightPlan:
    """One weight region for all plans: constants are shared by name; a same-named constant whose data differs
    between gears (e.g. a folded shape) is renamed for that plan."""
    chosen: dict[str, Value] = {}
    for i, plan in enumerate(plans):
        for value in plan_weights(plan.graph).order:
            first = chosen.setdefault(value.name, value)
            if first is not value and not (first.dtype == value.dtype and first.shape == value.shape
                                           and np.array_equal(first.data, value.data)):  # type: ignore[arg-type]
                value.name = f"{value.name}__plan{i}"
                chosen[value.name] = value
    merged = Graph("weights")
    for value in chosen.values():
        merged.outputs.append(value)
    return plan_weights(merged)


__all__ = ["DEFAULT_SOC", "CompileResult", "compile"]
