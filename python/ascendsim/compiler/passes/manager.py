"""The pass manager: passes registered by name into GE's stages, run in order, timed, counted and dumped.

A pass is a function `(graph, stats) -> changed` registered with `@register_pass(name, stage=..., order=...)`.
Stages run in GE's order (GraphManager: PrepareGraph -> OptimizeOriginalGraph -> OptimizeStage1 ->
OptimizeStage2 -> OptimizeGraphBeforeBuild); inside a stage passes run by `order`, then by registration.
Stages marked fixed-point repeat their whole pass list until no pass changes the graph, at most
`max_iterations` times (XLA's HloPassFix cap of 25; ONNX Runtime repeats a level the same way). Any pass
can be switched off by name (GE's `ge.disableOptimizations`). Each stage is timed (GE's
GM_RUN_AND_DUMP_PERF) and optionally dumped after it runs: to a directory as ONNX through
`onnx_export.to_onnx` plus a picture (graph_dot.py: DOT, SVG/PNG with Graphviz), or `$ASCENDSIM_DUMP_GRAPH`, or
to any callback.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Union

from ..ir import Graph
from .report import PassRecord, PassReport, PassStats, StageRecord

PassFn = Callable[[Graph, PassStats], bool]
DumpFn = Callable[[str, int, Graph], None]  # (stage name, stage index, graph)
Dump = Union[str, Path, DumpFn, None]

MAX_ITERATIONS = 25
DUMP_ENV = "ASCENDSIM_DUMP_GRAPH"


@dataclass(frozen=True)
class Stage:
    name: str
    title: str
    fixed_point: bool


STAGES = (
    Stage("prepare", "PrepareGraph", False),
    Stage("optimize_original", "OptimizeOriginalGraph", True),
    Stage("stage1", "OptimizeStage1", True),
    Stage("stage2", "OptimizeStage2", False),
    Stage("build", "OptimizeGraphBeforeBuild", False),
)
STAGE_NAMES = tuple(stage.name for stage in STAGES)


@dataclass(frozen=True)
class PassInfo:
    name: str
    stage: str
    order: int
    fn: PassFn
    doc: str


REGISTRY: dict[str, PassInfo] = {}


def register_pass(name: str, stage: str, order: int = 100) -> Callable[[PassFn], PassFn]:
    """Registers a graph pass under `name` in `stage` (one of STAGE_NAMES); lower `order` runs first."""
    if stage not in STAGE_NAMES:
        raise ValueError(f"pass {name!r}: unknown stage {stage!r}; stages are {', '.join(STAGE_NAMES)}")

    def register(fn: PassFn) -> PassFn:
        if name in REGISTRY and REGISTRY[name].fn is not fn:
            raise ValueError(f"a pass named {name!r} is already registered")
        REGISTRY[name] = PassInfo(name, stage, order, fn, (fn.__doc__ or "").strip().split("\n")[0])
        return fn
    return register


def passes_of(stage: str) -> list[PassInfo]:
    ordered = sorted(enumerate(REGISTRY.values()), key=lambda item: (item[1].order, item[0]))
    return [info for _, info in ordered if info.stage == stage]


class PassManager:
    """Runs the registered passes over a graph. `disabled`: pass names to skip (unknown names are an error,
    so a typo cannot silently leave a pass on); `dump`: a directory or a callback, None for $ASCENDSIM_DUMP_GRAPH;
    `check`: verify the graph's invariants after every pass (tests)."""

    def __init__(self, disabled: Iterable[str] = (), dump: Dump = None, max_iterations: int = MAX_ITERATIONS,
                 check: bool = False) -> None:
        self.disabled = frozenset(disabled)
        unknown = sorted(self.disabled - set(REGISTRY))
        if unknown:
            raise ValueError(f"unknown pass name(s) to disable: {', '.join(unknown)}; "
                             f"passes are {', '.join(sorted(REGISTRY))}")
        if max_iterations < 1:
            raise ValueError(f"max_iterations must be at least 1, got {max_iterations}")
        self.max_iterations = max_iterations
        self.check = check
        env_dump = os.environ.get(DUMP_ENV)
        self.dump = dump if dump is not None else (env_dump or None)

    def run(self, graph: Graph, stages: Iterable[str] = STAGE_NAMES) -> PassReport:
        wanted = list(stages)
        for name in wanted:
            if name not in STAGE_NAMES:
                raise ValueError(f"unknown stage {name!r}; stages are {', '.join(STAGE_NAMES)}")
        report = PassReport(disabled=tuple(sorted(self.disabled)))
        for index, stage in enumerate(STAGES):
            if stage.name in wanted:
                report.stages.append(self._run_stage(graph, stage, index))
        return report

    def _run_stage(self, graph: Graph, stage: Stage, index: int) -> StageRecord:
        record = StageRecord(stage.name, stage.title, nodes_before=len(graph.nodes))
        passes = [info for info in passes_of(stage.name) if info.name not in self.disabled]
        records = {info.name: PassRecord(info.name) for info in passes}
        record.passes = list(records.values())
        start = time.perf_counter()
        limit = self.max_iterations if stage.fixed_point else 1
        changed = True
        while changed and record.iterations < limit:
            record.iterations += 1
            changed = False
            for info in passes:
                changed |= self._run_pass(graph, info, records[info.name])
        record.converged = not (stage.fixed_point and changed)
        record.seconds = time.perf_counter() - start
        record.nodes_after = len(graph.nodes)
        if self.dump is not None:
            record.dumped = self._dump(graph, stage, index)
        return record

    def _run_pass(self, graph: Graph, info: PassInfo, record: PassRecord) -> bool:
        start, nodes = time.perf_counter(), len(graph.nodes)
        changed = bool(info.fn(graph, record.stats))
        record.seconds += time.perf_counter() - start
        record.runs += 1
        record.changed += changed
        record.nodes_removed += nodes - len(graph.nodes)
        if self.check:
            from .verify import verify
            verify(graph, f"after pass {info.name}")
        return changed

    def _dump(self, graph: Graph, stage: Stage, index: int) -> str | None:
        if callable(self.dump):
            self.dump(stage.name, index, graph)
            return None
        assert self.dump is not None
        directory = Path(self.dump)
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{graph.name}_{index:02d}_{stage.name}.onnx"
        save_onnx(graph, path)
        from ..graph_dot import save_picture

        save_picture(graph, path.with_suffix(""), title=f"{graph.name} after {stage.title}")
        return str(path)


def save_onnx(graph: Graph, path: Path) -> None:
    """Saves `graph` as ONNX through the frontend's exporter (imported late: it is written separately)."""
    from .. import onnx_export

    model = onnx_export.to_onnx(graph)
    if isinstance(model, (bytes, bytearray)):
        path.write_bytes(model)
    else:
        import onnx
        onnx.save(model, str(path))
