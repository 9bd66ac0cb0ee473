"""The README's main command: `ascendsim demo` compiles the embedded default model with atc, runs it through
pyACL and checks it against the reference; `ascendsim runtime-demo` exercises streams, copies and callbacks."""

from __future__ import annotations

import subprocess
import sys


def run_command(*args: str) -> str:
    result = subprocess.run([sys.executable, "-m", "ascendsim", *args], capture_output=True, text=True, timeout=300,
                            check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_demo_runs_the_default_model_and_matches_the_reference() -> None:
    out = run_command("demo", "--image", "64", "--repeats", "3")
    assert "ATC run success" in out and "top-5: class" in out and "aclmdlExecute latency" in out
    assert "kernel variant" in out and "ascendsim / onnxruntime:" in out and "x time" in out
    assert "matches" in out and "DOES NOT MATCH" not in out


def test_runtime_demo_checks_its_data() -> None:
    out = run_command("runtime-demo", "--megabytes", "4")
    assert "data matches" in out and "callback: callback ran" in out


def test_demo_without_onnxruntime_uses_the_numpy_reference() -> None:
    # `pip install .` does not install onnxruntime: the demo then checks against the compiler's interpreter.
    code = ("import sys; sys.modules['onnxruntime'] = None\n"
            "from ascendsim.__main__ import main\n"
            "sys.exit(main(['demo', '--image', '32', '--repeats', '2']))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "numpy interpreter): matches" in result.stdout
