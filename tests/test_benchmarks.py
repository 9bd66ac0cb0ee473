"""The benchmarks run and print every row with numbers (values are not judged: no timing thresholds in tests)."""

from __future__ import annotations

import importlib
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
MODELS = ("resnet50", "mobilenet_v2", "bert_base")


def run(script: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(BENCHMARKS / script), *args], capture_output=True, text=True,
                          env=env, timeout=600, check=False)


def is_figure(figure: Any) -> bool:
    return set(figure) == {"ns", "min", "max"} and all(math.isfinite(v) for v in figure.values())


def test_bench_models_quick_prints_every_row_with_numbers() -> None:
    # The BLAS variables are set for the benchmark's own command: it must remove them from its measuring processes.
    env = {**os.environ, "OPENBLAS_CORETYPE": "Haswell", "OPENBLAS_L2_SIZE": "524288"}
    done = run("bench_models.py", "--quick", "--json", env=env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    rows = report["rows"]
    assert {(r["group"], r["threads"]) for r in rows} == {
        ("overhead", 1), ("chain", 1), *((m, t) for m in MODELS for t in (1, 2))}
    assert sum(r["group"] == "overhead" for r in rows) == 4  # Python and C, each vs ORT run and IOBinding
    assert sum(r["group"] == "chain" for r in rows) == 4  # chain execute and per node, from C and Python
    for row in rows:
        assert row["benchmark"] and row["peer_name"], row
        assert is_figure(row["ours"]) and is_figure(row["peer"]), row
        assert math.isfinite(row["ratio"]) and math.isfinite(row["ratio_of_mins"]), row
    workers = report["workers"]
    assert sorted(w["ASCENDSIM_NUM_THREADS"] for w in workers.values()) == [1, 1, 2]
    for worker in workers.values():
        assert "OPENBLAS_CORETYPE" not in worker["variables"] and "OPENBLAS_L2_SIZE" not in worker["variables"]
        assert worker["variables"]["ASCENDSIM_NUM_THREADS"] == str(worker["ASCENDSIM_NUM_THREADS"])
        assert worker["openblas"]["corename"] and "OpenBLAS" in worker["openblas"]["config"]
        assert worker["ort_version"] and worker["ort_providers"] == ["CPUExecutionProvider"]
    header = "\n".join(report["header"])
    assert "OPENBLAS_CORETYPE=Haswell" in header and "removed" in header
    assert "chain 1000 -> 1000" in header  # the chain was not fused


def test_bench_models_only_one_group_and_table() -> None:
    done = run("bench_models.py", "--quick", "--only", "overhead")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("BLAS: ") for line in lines)
    table = lines[next(i for i, line in enumerate(lines) if line.startswith("benchmark ")) + 1:]
    assert [line.startswith("aclmdlExecute, 1-node model") for line in table[:5]] == [True] * 4 + [False]
    assert not any("chain" in line or "latency" in line for line in table)


def test_bench_models_rejects_unknown_names() -> None:
    done = run("bench_models.py", "--only", "overhead,nope")
    assert done.returncode == 2
    assert "unknown --only nope" in done.stderr and "resnet50" in done.stderr


def import_bench_models(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    return importlib.import_module("bench_models")


def test_bench_models_refuses_a_fused_chain(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bench_models = import_bench_models(monkeypatch)
    real = bench_models.ascendsim.compile

    def compile_with_every_pass(*args: Any, disabled_passes: Any = (), **options: Any) -> Any:
        return real(*args, **options)

    monkeypatch.setattr(bench_models, "ascendsim", SimpleNamespace(compile=compile_with_every_pass))
    with pytest.raises(SystemExit, match="the Add chain compiled to 1 nodes, not 1000"):
        bench_models.compile_models(["chain"], tmp_path, quick=True)


def test_bench_models_reports_a_failed_worker(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bench_models = import_bench_models(monkeypatch)
    with pytest.raises(SystemExit, match=r"the micro worker with 1 thread\(s\) failed:(.|\n)*missing"):
        bench_models.run_worker("micro", 1, tmp_path / "missing", ["overhead"], quick=True)
