"""The fuzzers' CI budget (docs/fuzzing.md): each fuzzer with a small fixed budget and fixed seeds must end
with 0 crashes, 0 hangs, 0 tracebacks and 0 sanitizer reports; and the harness itself must see, attribute and
save every kind of failure (a target that fails on purpose), so that these tests can fail."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import broken_target
import harness
import om_loader
import onnx_atc
import pytest

HERE = Path(__file__).parent
OM_CASES = 10000  # about 8 s on the CI machine (docs/fuzzing.md)
ONNX_CASES = 2500  # about 17 s


def check(report: harness.Report, cases: int) -> None:
    assert report.cases == cases, report.text()
    assert not report.failed(), report.text() + "".join(f"\n{k}: {v}" for k, v in report.failures.items() if v)


@pytest.mark.parametrize("seed", [1])
def test_om_loader_budget(seed: int, tmp_path: Path) -> None:
    report = harness.fuzz(om_loader.OmLoader(), HERE / "om_loader.py", seed=seed, cases=OM_CASES, save=tmp_path)
    check(report, OM_CASES)
    assert report.accepted >= OM_CASES // 100, report.text()  # the unchanged seeds and mutations that still run
    assert sum(report.refused.values()) >= OM_CASES // 2, report.text()


@pytest.mark.parametrize("seed", [1])
def test_onnx_atc_budget(seed: int, tmp_path: Path) -> None:
    report = harness.fuzz(onnx_atc.OnnxAtc(), HERE / "onnx_atc.py", seed=seed, cases=ONNX_CASES, save=tmp_path)
    check(report, ONNX_CASES)
    assert report.refused[onnx_atc.COMPILE_REFUSED] >= ONNX_CASES // 4, report.text()
    assert report.accepted >= 1, report.text()  # some generated models compile, load and run


def test_cases_depend_only_on_seed_and_index() -> None:
    import random

    target = om_loader.OmLoader()
    first = [target.generate(random.Random(f"5:{i}"), i) for i in range(20)]
    again = [target.generate(random.Random(f"5:{i}"), i) for i in reversed(range(20))]
    assert first == again[::-1]
    assert len(set(first)) > 15


def test_harness_attributes_every_failure_to_its_case(tmp_path: Path) -> None:
    target = broken_target.Broken()
    report = harness.fuzz(target, HERE / "broken_target.py", seed=1, cases=16, save=tmp_path)
    assert report.cases == 16 and report.failed()
    assert report.failures == {"crash": [1, 9], "hang": [3, 11], "traceback": [4, 12], "sanitizer": [6, 14]}
    assert report.accepted == 6 and report.refused == {7: 2}
    crash = tmp_path / "broken-seed1-case1-crash.bin"
    assert crash.read_bytes() == b"crash"
    assert "exit status -11" in (tmp_path / "broken-seed1-case1-crash.txt").read_text()
    assert "KeyError" in (tmp_path / "broken-seed1-case4-traceback.txt").read_text()


def test_command_line_exits_non_zero_on_a_failure_and_replays_it(tmp_path: Path) -> None:
    script = str(HERE / "broken_target.py")
    run = subprocess.run([sys.executable, script, "--cases=3", f"--save={tmp_path}"], capture_output=True,
                         text=True, timeout=60, check=False)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "cases 3, accepted 1, refused 1 (by code: 7: 1), crashes 1, hangs 0" in run.stdout, run.stdout
    replay = subprocess.run([sys.executable, script, f"--replay={tmp_path / 'broken-seed1-case1-crash.bin'}"],
                            capture_output=True, text=True, timeout=60, check=False)
    assert replay.returncode == 1 and replay.stdout.strip().endswith(": crash"), replay.stdout
    clean = subprocess.run([sys.executable, script, "--cases=1"], capture_output=True, text=True, timeout=60,
                           check=False)
    assert clean.returncode == 0, clean.stdout + clean.stderr
