"""The README's main command: `ascendsim demo` runs a pyACL program on the emulated device and checks it."""

from __future__ import annotations

import subprocess
import sys


def test_demo_runs_and_checks_its_data() -> None:
    result = subprocess.run([sys.executable, "-m", "ascendsim", "demo", "--megabytes", "4"], capture_output=True,
                            text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "data matches" in result.stdout and "callback: callback ran" in result.stdout
