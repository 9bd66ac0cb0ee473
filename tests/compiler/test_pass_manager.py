"""The PassManager: stage order, registration, disabling, fixed points, timing, statistics, dumps, checks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import onnx
import pytest

from ascendsim.compiler.ir import Graph
from ascendsim.compiler.onnx_import import import_onnx
from ascendsim.compiler.passes import (
    MAX_ITERATIONS,
    REGISTRY,
    STAGE_NAMES,
    PassManager,
    PassStats,
    passes_of,
    register_pass,
)
from ascendsim.compiler.passes.manager import DUMP_ENV
from ascendsim.compiler.passes.verify import GraphInvariantError
from onnx_models import MODEL_BUILDERS


def _graph() -> Graph:
    return import_onnx(MODEL_BUILDERS["resnet"]())


@pytest.fixture
def temporary_passes() -> Iterator[list[str]]:
    """Names registered during a test are unregistered afterwards."""
    names: list[str] = []
    yield names
    for name in names:
        REGISTRY.pop(name, None)


def test_stages_in_ge_order_with_the_default_passes() -> None:
    assert STAGE_NAMES == ("prepare", "optimize_original", "stage1", "stage2", "build")
    assert MAX_ITERATIONS == 25
    assert [p.name for p in passes_of("optimize_original")] == [
        "constant_folding", "noop_removal", "transpose_to_reshape", "common_subexpression_elimination", "conv_bn_folding",
        "dead_code_elimination"]
    assert next(p.name for p in passes_of("stage1")) == "epilogue_fusion"
    assert [p.name for p in passes_of("stage2")] == ["nc1hwc0_layout", "batch_norm_activation_fusion",
                                                     "elementwise_fusion"]
    assert all(p.doc for p in REGISTRY.values())


def test_report_counts_times_and_formats() -> None:
    graph = _graph()
    report = PassManager().run(graph)
    assert [s.name for s in report.stages] == list(STAGE_NAMES)
    assert report.nodes_before == 14 and report.nodes_after == len(graph.nodes) == 7  # the residual Add fused
    assert all(s.seconds >= 0 and s.converged for s in report.stages)
    assert report.stat("BatchNormalization folded") == 3
    assert report.totals()["BatchNormalization folded"] == 3
    text = report.format()
    for title in ("PrepareGraph", "OptimizeOriginalGraph", "OptimizeStage1", "OptimizeStage2",
                  "OptimizeGraphBeforeBuild", "conv_bn_folding: BatchNormalization folded 3", "14 -> 7 nodes"):
        assert title in text
    data = report.to_dict()
    assert data["nodes_before"] == 14 and data["stages"][1]["passes"][4]["stats"] == {"BatchNormalization folded": 3}


def test_disabled_passes_do_not_run() -> None:
    graph = _graph()
    disabled = ("batch_norm_activation_fusion", "conv_bn_folding", "epilogue_fusion")
    report = PassManager(disabled=set(disabled)).run(graph)
    assert graph.count_ops()["BatchNormalization"] == 3 and graph.count_ops()["Relu"] == 2
    assert report.stat("BatchNormalization folded") == 0
    assert f"disabled: {', '.join(disabled)}" in report.format()
    assert all(r.name not in disabled for s in report.stages for r in s.passes)


def test_bad_options_are_errors() -> None:
    with pytest.raises(ValueError, match=r"unknown pass name.*constant_foldin\b.*passes are"):
        PassManager(disabled={"constant_foldin"})
    with pytest.raises(ValueError, match="max_iterations"):
        PassManager(max_iterations=0)
    with pytest.raises(ValueError, match="unknown stage 'stage3'"):
        PassManager().run(_graph(), stages=["stage3"])
    with pytest.raises(ValueError, match="unknown stage 'late'"):
        register_pass("x", stage="late")


def test_duplicate_registration_is_an_error(temporary_passes: list[str]) -> None:
    temporary_passes.append("dup")
    register_pass("dup", stage="build")(lambda g, s: False)
    with pytest.raises(ValueError, match="already registered"):
        register_pass("dup", stage="build")(lambda g, s: False)


def test_fixed_point_repeats_until_nothing_changes(temporary_passes: list[str]) -> None:
    remaining = [3]

    def countdown(graph: Graph, stats: PassStats) -> bool:
        """Changes the graph three times."""
        stats.add("ticks")
        remaining[0] -= 1
        return remaining[0] >= 0

    temporary_passes.append("countdown")
    register_pass("countdown", stage="stage1", order=99)(countdown)
    report = PassManager().run(_graph(), stages=["stage1"])
    (stage,) = report.stages
    assert stage.iterations == 4 and stage.converged
    assert report.stat("ticks") == 4


def test_fixed_point_is_capped(temporary_passes: list[str]) -> None:
    temporary_passes.append("always")
    register_pass("always", stage="optimize_original", order=99)(lambda g, s: True)
    report = PassManager(max_iterations=5).run(_graph(), stages=["optimize_original", "stage2"])
    assert report.stages[0].iterations == 5 and not report.stages[0].converged
    assert report.stages[1].iterations == 1  # stage2 is not a fixed-point stage
    assert "iteration cap reached" in report.format()


def test_dump_to_a_directory(tmp_path: Path) -> None:
    report = PassManager(dump=tmp_path / "dumps").run(_graph())
    files = sorted(p.name for p in (tmp_path / "dumps").glob("*.onnx"))
    assert files == [f"resnet_block_{i:02d}_{s}.onnx" for i, s in enumerate(STAGE_NAMES)]
    assert sorted(p.name for p in (tmp_path / "dumps").glob("*.dot")) == [f[:-4] + "dot" for f in files]
    for path in (tmp_path / "dumps").glob("*.onnx"):
        onnx.checker.check_model(onnx.load(str(path)))
    assert f"dumped to {tmp_path / 'dumps'}" in report.format()


def test_dump_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DUMP_ENV, str(tmp_path))
    PassManager().run(_graph(), stages=["stage2"])
    assert [p.name for p in tmp_path.glob("*.onnx")] == ["resnet_block_03_stage2.onnx"]


def test_dump_to_a_callback() -> None:
    seen: list[tuple[str, int, int]] = []
    PassManager(dump=lambda stage, index, graph: seen.append((stage, index, len(graph.nodes)))).run(_graph())
    assert [s[0] for s in seen] == list(STAGE_NAMES) and [s[1] for s in seen] == [0, 1, 2, 3, 4]
    assert seen[0][2] == 14 and seen[-1][2] == 7


def test_check_catches_a_corrupting_pass(temporary_passes: list[str]) -> None:
    def corrupt(graph: Graph, stats: PassStats) -> bool:
        """Drops a node without unlinking it."""
        graph.nodes.pop(0)
        return True

    temporary_passes.append("corrupt")
    register_pass("corrupt", stage="build")(corrupt)
    with pytest.raises(GraphInvariantError, match="after pass corrupt"):
        PassManager(check=True).run(_graph(), stages=["build"])
