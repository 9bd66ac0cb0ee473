"""`ascendsim bench`: the microbenchmark suite, every figure beside its peer or physical limit from the same run."""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import ascendc, kernels, model_files, models, runtime, workers
from .common import FULL, QUICK, Figure, Progress, Row, format_table, table_cells
from .groups import ALL as GROUPS
from .groups import ASCENDC, DYNAMIC, KERNELS, MICRO, MODELS, RUNTIME


def matches(name: str, term: str) -> bool:
    return name == term or name.startswith(term + ".") or fnmatch.fnmatchcase(name, term)


def select_groups(terms: Sequence[str]) -> list[str]:
    """The groups the terms need (a term names rows `group.rest`: its first component picks the groups)."""
    if not terms:
        return list(GROUPS)
    chosen = set()
    for term in terms:
        found = {g for g in GROUPS if matches(g, term) or fnmatch.fnmatchcase(g, term.split(".")[0])}
        if not found:
            raise SystemExit(f"ascendsim bench: no row matches {term!r}; groups: {', '.join(GROUPS)}")
        chosen |= found
    return [g for g in GROUPS if g in chosen]


def header(found: dict[str, dict[str, Any]], machine_blas: dict[str, str] | None, facts: dict[str, Any],
           load: Sequence[tuple[float, float, float]], quick: bool) -> list[str]:
    """Which BLAS kernel and ORT ran, on what, with which environment (as each measuring worker saw it)."""
    seen = list(found.values())
    cores = sorted({f"core {w['openblas']['corename']} ({w['openblas']['config']})" for w in seen})
    ort_runs = sorted({f"onnxruntime {w['ort_version']} ({', '.join(w['ort_providers'])})"
                       for w in seen if w["ort_providers"]})
    others = sorted({", ".join(f"{k}={v}" for k, v in w["variables"].items() if k != "ASCENDSIM_NUM_THREADS")
                     or "none" for w in seen})
    removed = [f"{k}={os.environ[k]}" for k in workers.BLAS_VARIABLES if k in os.environ]
    loads = " and at end ".join(", ".join(f"{x:.2f}" for x in triple) for triple in load)
    lines = [
        f"ascendsim bench, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; peers: {'; '.join([*ort_runs, 'glibc, C'])}"
        + (" [--quick: tiny sizes, few repeats, values mean little]" if quick else ""),
        (f"machine: {sys.platform}, {os.cpu_count()} CPUs ({len(os.sched_getaffinity(0))} usable), python "
         f"{sys.version.split()[0]}; load average (1, 5, 15 min) at start {loads} (idle: about 0)"),
        "CPU: " + "; ".join(sorted({w["cpu"] for w in seen})),
        f"BLAS: {workers.openblas_library()} (scipy_openblas32, linked by libascendcl.so): {'; '.join(cores)}",
        "measuring processes: " + ", ".join(f"{name} ASCENDSIM_NUM_THREADS={w['ASCENDSIM_NUM_THREADS']}"
                                            for name, w in found.items())
        + f"; their other {'*/'.join(workers.THREADING_PREFIXES)}* variables: {'; '.join(others)}",
        (f"this shell sets {', '.join(removed)} (OpenBLAS core under it: "
         f"{machine_blas['corename'] if machine_blas else '?'}): removed from the measuring processes' environment "
         "(only there)") if removed else f"this shell sets neither {' nor '.join(workers.BLAS_VARIABLES)}",
    ]
    if set(facts) - {"streams"}:
        lines.append("ORT sessions: overhead/chain intra_op 1 and ORT_DISABLE_ALL; models intra_op_num_threads = "
                     "ASCENDSIM_NUM_THREADS, inter_op 1, ORT_SEQUENTIAL, default graph optimisations (the .nolayout rows: "
                     "ORT_ENABLE_EXTENDED, without the NCHWc layout pass); ours force_fp32")
    if facts:
        lines.append("nodes ONNX -> .om: " + ", ".join(
            f"{k} {v['onnx_nodes']} -> {v['om_nodes']}" + (f" ({v['side_stream_nodes']} on side streams)"
                                                           if v.get("side_stream_nodes") else "")
            for k, v in facts.items()))
    if any(v.get("side_stream_nodes") for v in facts.values()):
        # With one pool thread a model's branches run concurrently, as on the device: a 1-thread row is not one CPU
        # throughout (with several, or a chain handed between streams, they run in task order on the executing
        # thread: docs/runtime.md).
        lines.append("with one pool thread a model's side streams that branch off stream 0 run on threads of their "
                     "own, concurrently with it (as on the device): while their nodes run, the 1-thread rows use more "
                     "CPUs than one (up to one more per side stream); with several pool threads, or when the graph's "
                     "chain moves from stream to stream, the streams run in task order")
    return lines


def run(groups: Sequence[str], quick: bool, show_progress: bool = False) -> dict[str, Any]:
    """Measures the groups; returns the header, workers, rows (all of the groups' rows) and raw figures."""
    machine_blas = workers.openblas_info() if any(k in os.environ for k in workers.BLAS_VARIABLES) else None
    runs = ([("runtime", 1)] if set(groups) & {*RUNTIME, *ASCENDC} else []) + \
        ([("micro", 1)] if set(groups) & {*MICRO, DYNAMIC} else []) + \
        ([("kernels", 1)] if set(groups) & set(KERNELS) else []) + \
        ([("models", t) for t in models.THREADS] if set(groups) & {*MODELS, DYNAMIC} else [])
    progress = Progress(len(runs) + 1, show_progress)  # the runs and compiling the models
    figures: dict[str, Figure] = {}
    notes: dict[str, str] = {}
    found: dict[str, dict[str, Any]] = {}
    load = [os.getloadavg()]
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        progress.step("compiling the models")
        facts = model_files.compile_models(groups, directory, quick)
        if set(groups) & set(KERNELS):
            kernels.compile_cases(directory, quick)
        for kind, threads in runs:
            progress.step(f"{kind} worker, {threads} thread{'s' if threads > 1 else ''}")
            output = workers.run_worker(kind, threads, directory, groups, quick)
            figures.update(output["figures"])
            notes.update(output["notes"])
            found[f"{kind} worker {threads}t"] = output["environment"]
    progress.finish()
    load.append(os.getloadavg())
    effort = QUICK if quick else FULL
    effort_rows = runtime.rows(figures, groups, effort) + ascendc.rows(figures, notes, effort) + \
        models.rows(figures, groups, notes)
    if set(groups) & set(KERNELS):
        effort_rows += kernels.rows(figures, notes, quick)
    skipped = {key.removeprefix("skipped."): text for key, text in notes.items() if key.startswith("skipped.")}
    return {"header": header(found, machine_blas, facts, load, quick), "workers": found, "rows": effort_rows,
            "figures": figures, "notes": notes, "skipped": skipped}


def main(args: argparse.Namespace) -> int:
    terms = [*args.names, *(t for t in args.only.split(",") if t)]
    groups = select_groups(terms)
    report = run(groups, args.quick, args.progress or sys.stderr.isatty())
    rows: list[Row] = report["rows"]
    if terms:
        rows = [row for row in rows if any(matches(row["name"], t) for t in terms)]
        missing = [t for t in terms if not any(matches(r["name"], t) for r in rows)
                   and not any(matches(group, t.split(".")[0]) for group in report["skipped"])]
        if missing:
            names = ", ".join(row["name"] for row in report["rows"])
            raise SystemExit(f"ascendsim bench: no row matches {', '.join(missing)}; rows: {names}")
    report["rows"] = rows
    if args.plot is not None:
        from .plot import write_charts

        report["charts"] = [str(p) for p in write_charts(rows, args.plot)]
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print("\n".join(report["header"]))
    print()
    print(format_table([table_cells(row) for row in rows]))
    notes = [f"{row['name']}: {row['note']}" for row in rows if row["note"]]
    notes += models.goal_notes(rows)
    notes += [f"{group}: {reason}" for group, reason in report["skipped"].items()]
    if notes:
        print()
        print("\n".join(notes))
    for chart in report.get("charts", []):
        print(f"wrote {chart}")
    return 0
