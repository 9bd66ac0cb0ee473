"""Reading what the profiler wrote (docs/profiling.md).

Each profiling session (aclprofInit..aclprofFinalize, or aclInit..aclFinalize with the `profiler` section of
the JSON file or ASCENDSIM_PROFILE=<dir>) writes a directory `<output>/PROF_<pid>_<n>/` holding `trace.json`
(Chrome trace events: open it in https://ui.perfetto.dev or chrome://tracing), `summary.txt` (msprof-style
tables: time per op type, top nodes, stream tasks, host API calls) and msprof's `op_summary.csv` /
`op_statistic.csv`. These helpers find the newest session
under an output directory and return its summary or its trace.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["latest_session", "load_trace", "print_summary", "profile_summary", "sessions"]


def sessions(output: str | Path) -> list[Path]:
    """The session directories under `output`, oldest first."""
    found = [p for p in Path(output).glob("PROF_*") if (p / "trace.json").is_file()]
    return sorted(found, key=lambda p: (p.stat().st_mtime_ns, p.name))


def latest_session(path: str | Path) -> Path:
    """`path` itself if it is a session directory, else the newest session under it."""
    path = Path(path)
    if (path / "trace.json").is_file():
        return path
    found = sessions(path)
    if not found:
        raise FileNotFoundError(f"no profiling session (PROF_*/trace.json) under {path}")
    return found[-1]


def profile_summary(path: str | Path) -> str:
    """The text summary of the session at or under `path`."""
    return (latest_session(path) / "summary.txt").read_text()


def load_trace(path: str | Path) -> dict[str, Any]:
    """The trace of the session at or under `path`, as parsed JSON."""
    with open(latest_session(path) / "trace.json") as file:
        trace: dict[str, Any] = json.load(file)
    return trace


def print_summary(path: str | Path) -> int:
    """`ascendsim prof-summary <dir>`: the trace's path and the summary; 1 when there is no session."""
    try:
        session = latest_session(path)
    except FileNotFoundError as error:
        print(f"ascendsim prof-summary: {error}", file=sys.stderr)
        return 1
    print(f"{session / 'trace.json'}: open it in https://ui.perfetto.dev or chrome://tracing\n")
    print(profile_summary(session), end="")
    return 0
