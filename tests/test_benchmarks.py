"""`ascendsim bench` runs and prints every row with numbers (values are not judged: no timing thresholds in tests)."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import ascendsim
from ascendsim.bench import model_files, workers

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
QUICK_SIZES = ("4KiB", "64KiB")
MODELS = ("resnet50", "mobilenet_v2", "bert_base", "efficientnet_b0", "shufflenet_v1", "densenet121", "convnext_tiny",
          "vit_b16")
EVERY_ROW = {
    "call.py", "malloc.cached.c", "malloc.cached.py", "malloc.uncached.c",
    *(f"copy.c.{kind}.{size}" for kind in ("H2D", "D2H", "D2D", "H2H") for size in QUICK_SIZES),
    *(f"copy.py.{kind}.4KiB" for kind in ("H2D", "D2H")),
    "launch.c", "ascendc.launch.c", "ascendc.vector_add.c", "event.record_sync.c", "event.wait.c", "event.sync_completed.c", "event.elapsed.c", "callback.c",
    *(f"overhead.{face}.{peer}" for face in ("py", "c") for peer in ("run", "iobinding")),
    *(f"chain.{face}.{what}" for face in ("c", "py") for what in ("execute", "per_node")),
    *(f"sink.{face}{per_op}" for face in ("c", "py") for per_op in ("", ".per_op")),
    "concurrency.c", *(f"{model}.t{threads}{peer}" for model in MODELS for threads in (1, 2) for peer in ("", ".nolayout")),
    *(f"kernels.{case}.{peer}" for case in ("conv1x1.64_256_56", "conv3x3.64_64_56") for peer in ("openblas", "ort")),
    "kernels.dw3x3.32_112.ort", "kernels.matmul.attention_12_128_64.ort",
    *(f"dynamic.chain.{face}.{peer}" for face in ("c", "py") for peer in ("per_node", "v1")),
    *(f"dynamic.chain.py.per_node.{executor}" for executor in ("topological", "parallel")),
    *(f"dynamic.bert.s{seq}.t{threads}{static}" for seq in (16, 64, 128, 384) for threads in (1, 2)
      for static in ("", ".static")),
}


def bench(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ascendsim", "bench", *args], capture_output=True, text=True,
                          env=env, timeout=600, check=False)


def is_figure(figure: Any) -> bool:
    return set(figure) == {"ns", "min", "max"} and all(math.isfinite(v) and v > 0 for v in figure.values())


def table(stdout: str) -> list[str]:
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("name "))
    end = lines.index("", start) if "" in lines[start:] else len(lines)
    return lines[start + 1:end]


def test_quick_json_prints_every_row_with_numbers_and_charts(tmp_path: Path) -> None:
    # The BLAS variables are set for the command: it must remove them from its measuring processes.
    env = {**os.environ, "OPENBLAS_CORETYPE": "Haswell", "OPENBLAS_L2_SIZE": "524288"}
    done = bench("--quick", "--json", "--plot", str(tmp_path / "charts"), env=env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    rows = report["rows"]
    expected = EVERY_ROW
    assert [row["name"] for row in rows if row["name"] not in expected] == []
    assert {row["name"] for row in rows} == expected
    for row in rows:
        assert row["benchmark"] and row["peer_name"], row
        assert is_figure(row["ours"]) and is_figure(row["peer"]), row
        assert math.isfinite(row["ratio"]) and math.isfinite(row["ratio_of_mins"]), row
        assert (row["bytes"] is not None) == row["name"].startswith(("copy.", "ascendc.vector_add.")), row
        assert (row["flops"] is not None) == row["name"].startswith("kernels."), row
    # Each kernels row names the path ours took, and the OpenBLAS side really ran on OpenBLAS.
    kernel_rows = {row["name"]: row for row in rows if row["name"].startswith("kernels.")}
    assert "Winograd" in kernel_rows["kernels.conv3x3.64_64_56.openblas"]["note"]
    assert "Winograd F(2x2, 3x3), products on OpenBLAS sgemm" in kernel_rows["kernels.conv3x3.64_64_56.openblas"][
        "peer_name"]
    assert "depthwise" in kernel_rows["kernels.dw3x3.32_112.ort"]["note"]
    found = report["workers"]
    assert sorted(found) == ["kernels worker 1t", "micro worker 1t", "models worker 1t", "models worker 2t",
                             "runtime worker 1t"]
    for worker in found.values():
        assert "OPENBLAS_CORETYPE" not in worker["variables"] and "OPENBLAS_L2_SIZE" not in worker["variables"]
        assert worker["variables"]["ASCENDSIM_NUM_THREADS"] == str(worker["ASCENDSIM_NUM_THREADS"])
        assert worker["openblas"]["corename"] and "OpenBLAS" in worker["openblas"]["config"]
        assert f"kernel variant {ascendsim.kernel_variant()}" in worker["cpu"]
    header = "\n".join(report["header"])
    assert "CPU: " in header and "kernel variant" in header
    assert "OPENBLAS_CORETYPE=Haswell" in header and "removed" in header
    assert "chain 1000 -> 1000" in header  # the chain was not fused
    assert "chain_dyn 1000 -> 1000" in header
    # Models with side streams say how many nodes run there (the quick ResNet's 4 downsampling convs), and that
    # those run beside the pool.
    assert "resnet50 " in header and re.search(r"resnet50 \d+ -> \d+ \(4 on side streams\)", header), header
    assert "the 1-thread rows use more CPUs than one" in header
    # The dynamic BERT's static rows carry the v2 peak feature-map memory beside the static planner's arena.
    # The second peer of each model row is ORT without its layout pass.
    assert "without its layout pass" in next(r for r in rows if r["name"] == "resnet50.t2.nolayout")["peer_name"]
    assert "ORT_ENABLE_EXTENDED" in header
    static_row = next(r for r in rows if r["name"] == "dynamic.bert.s16.t1.static")
    assert "peak feature maps of the v2 execution" in static_row["note"]
    assert "streams in order" in static_row["peer_name"]  # one CPU per thread on both sides
    assert "load average" in header
    if importlib.util.find_spec("matplotlib") is None:
        assert report["charts"] == [] and "matplotlib is not installed" in done.stderr
    else:
        assert sorted(Path(chart).name for chart in report["charts"]) == ["copies.png", "models.png"]
        for chart in report["charts"]:
            assert Path(chart).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_only_and_positional_names_select_rows_and_progress_goes_to_stderr() -> None:
    done = bench("--quick", "--progress", "--only", "malloc,event.elapsed.c", "copy.c.*.4KiB", "sink")
    assert done.returncode == 0, done.stderr
    names = [line.split()[0] for line in table(done.stdout)]
    assert names == ["malloc.cached.c", "malloc.cached.py", "malloc.uncached.c",
                     *(f"copy.c.{kind}.4KiB" for kind in ("H2D", "D2H", "D2D", "H2H")), "event.elapsed.c",
                     "sink.c", "sink.c.per_op", "sink.py", "sink.py.per_op"]
    assert "[" in done.stderr and "done" in done.stderr  # the bar
    quiet = bench("--quick", "call")
    assert quiet.returncode == 0, quiet.stderr
    assert [line.split()[0] for line in table(quiet.stdout)] == ["call.py"]
    assert quiet.stderr == ""  # no bar when stderr is not a terminal


def test_unknown_names_are_refused_with_the_groups() -> None:
    done = bench("--only", "malloc,nope")
    assert done.returncode != 0
    assert "no row matches 'nope'" in done.stderr and "resnet50" in done.stderr
    done = bench("--quick", "malloc.nope")  # the group exists, the row does not
    assert done.returncode != 0
    assert "no row matches malloc.nope" in done.stderr and "malloc.cached.c" in done.stderr


def test_benchmark_scripts_are_entry_points_into_the_suite() -> None:
    for script, name in (("bench_runtime.py", "event.elapsed.c"), ("bench_models.py", "overhead.c.run")):
        done = subprocess.run([sys.executable, str(BENCHMARKS / script), "--quick", name], capture_output=True,
                              text=True, timeout=600, check=False)
        assert done.returncode == 0, done.stderr
        assert [line.split()[0] for line in table(done.stdout)] == [name]


def test_help_documents_fair_measurement() -> None:
    done = bench("--help")
    assert done.returncode == 0
    for words in ("OPENBLAS_CORETYPE", "taskset", "idle", "ASCENDSIM_NUM_THREADS", "--plot", "--only"):
        assert words in done.stdout


def test_refuses_a_fused_chain(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    real = model_files.ascendsim.compile

    def compile_with_every_pass(*args: Any, disabled_passes: Any = (), **options: Any) -> Any:
        return real(*args, **options)

    monkeypatch.setattr(model_files, "ascendsim", SimpleNamespace(compile=compile_with_every_pass))
    with pytest.raises(SystemExit, match="the Add chain compiled to 1 nodes, not 1000"):
        model_files.compile_models(["chain"], tmp_path, quick=True)


def test_reports_a_failed_worker(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"the micro worker with 1 thread\(s\) failed:(.|\n)*missing"):
        workers.run_worker("micro", 1, tmp_path / "missing", ["overhead"], quick=True)


def test_ascendc_rows_print_the_goal_and_skip_without_a_host_compiler(tmp_path: Path) -> None:
    done = bench("--quick", "ascendc")
    assert done.returncode == 0, done.stderr
    assert [line.split()[0] for line in table(done.stdout)] == ["ascendc.launch.c", "ascendc.vector_add.c"]
    assert "ascendc.vector_add.c: 48 blocks: every vector core of Ascend910B1" in done.stdout
    assert "goal Ascend C vector add 64KiB float, 3 operands moved (c) >= 0.5x memcpy 64KiB bandwidth: " in done.stdout
    # No g++ on PATH: bisheng cannot build the kernels, so the group is skipped with the reason.
    skipped = bench("--quick", "ascendc", env={**os.environ, "PATH": str(tmp_path)})
    assert skipped.returncode == 0, skipped.stderr
    assert "ascendc: skipped: bisheng needs a host C++ compiler (g++)" in skipped.stdout
    assert table(skipped.stdout) == []
