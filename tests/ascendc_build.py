"""Building the Ascend C test programs (tests/ascendc/) the ways users build them: g++ for the CPU-debug mode,
bisheng (the emulator's driver, on PATH as a console script and in the toolkit tree) for <<<>>> programs and kernel
shared objects."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from acl_helpers import toolkit_env

BISHENG = Path(sys.executable).with_name("bisheng")


def bisheng(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    command = [str(BISHENG), *args] if BISHENG.exists() else [sys.executable, "-m", "ascendsim.ascendc.bisheng", *args]
    done = subprocess.run(command, capture_output=True, text=True, env=toolkit_env(), check=False)
    if check:
        assert done.returncode == 0, f"{' '.join(command)}\n{done.stdout}{done.stderr}"
    return done
