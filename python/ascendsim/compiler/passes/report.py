"""What the pass manager did, for the CLI's GE-style log and for tests.

A PassReport holds one StageRecord per stage run (time, fixed-point iterations, node count before -> after)
and in it one PassRecord per pass (how often it ran and changed the graph, its time, node counts, and the
named counters the pass bumped: "constants folded", "subexpressions removed", "patterns fused", ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class PassStats:
    """The named counters one pass bumps while it runs (summed over all its runs)."""

    counts: dict[str, int] = field(default_factory=dict)

    def add(self, key: str, amount: int = 1) -> None:
        if amount:
            self.counts[key] = self.counts.get(key, 0) + amount

    def __getitem__(self, key: str) -> int:
        return self.counts.get(key, 0)


@dataclass
class PassRecord:
    name: str
    runs: int = 0
    changed: int = 0  # runs that changed the graph
    seconds: float = 0.0
    nodes_removed: int = 0  # net, over all its runs (negative when it added nodes)
    stats: PassStats = field(default_factory=PassStats)


@dataclass
class StageRecord:
    name: str
    title: str  # GE's name for the stage, as its log prints it
    seconds: float = 0.0
    iterations: int = 0
    converged: bool = True  # False when a fixed-point stage hit the iteration cap
    nodes_before: int = 0
    nodes_after: int = 0
    passes: list[PassRecord] = field(default_factory=list)
    dumped: str | None = None


@dataclass
class PassReport:
    stages: list[StageRecord] = field(default_factory=list)
    disabled: tuple[str, ...] = ()

    @property
    def seconds(self) -> float:
        return sum(stage.seconds for stage in self.stages)

    @property
    def nodes_before(self) -> int:
        return self.stages[0].nodes_before if self.stages else 0

    @property
    def nodes_after(self) -> int:
        return self.stages[-1].nodes_after if self.stages else 0

    def stat(self, key: str, pass_name: str | None = None) -> int:
        """A counter summed over all passes (or one pass) and stages."""
        return sum(record.stats[key] for stage in self.stages for record in stage.passes
                   if pass_name is None or record.name == pass_name)

    def totals(self) -> dict[str, int]:
        summed: dict[str, int] = {}
        for stage in self.stages:
            for record in stage.passes:
                for key, count in record.stats.counts.items():
                    summed[key] = summed.get(key, 0) + count
        return summed

    def format(self) -> str:
        """GE-log-like lines: one per stage, one per pass that did something, then the totals."""
        lines: list[str] = []
        for stage in self.stages:
            capped = "" if stage.converged else " (iteration cap reached)"
            lines.append(f"[GraphOpt] {stage.title}: {stage.nodes_before} -> {stage.nodes_after} nodes, "
                         f"{stage.iterations} iteration(s){capped}, {stage.seconds * 1e3:.2f} ms")
            for record in stage.passes:
                if record.stats.counts or record.nodes_removed:
                    counters = ", ".join(f"{key} {count}" for key, count in record.stats.counts.items())
                    lines.append(f"[GraphOpt]   {record.name}: {counters or 'changed'}; net nodes removed "
                                 f"{record.nodes_removed}, {record.runs} run(s), {record.seconds * 1e3:.2f} ms")
            if stage.dumped:
                lines.append(f"[GraphOpt]   dumped to {stage.dumped}")
        totals = ", ".join(f"{key} {count}" for key, count in self.totals().items())
        lines.append(f"[GraphOpt] total: {self.nodes_before} -> {self.nodes_after} nodes, {self.seconds * 1e3:.2f} ms"
                     + (f"; {totals}" if totals else ""))
        if self.disabled:
            lines.append(f"[GraphOpt] disabled: {', '.join(self.disabled)}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"seconds": self.seconds, "nodes_before": self.nodes_before, "nodes_after": self.nodes_after,
                "disabled": list(self.disabled), "stages": [
                    {"name": s.name, "title": s.title, "seconds": s.seconds, "iterations": s.iterations,
                     "converged": s.converged, "nodes_before": s.nodes_before, "nodes_after": s.nodes_after,
                     "passes": [{"name": p.name, "runs": p.runs, "changed": p.changed, "seconds": p.seconds,
                                 "nodes_removed": p.nodes_removed,
                                 "stats": dict(p.stats.counts)} for p in s.passes]}
                    for s in self.stages]}
