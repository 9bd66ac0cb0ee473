"""Model execution benchmarks, side by side with onnxruntime in one run.

    python benchmarks/bench_models.py [--json] [--only NAME,...] [--quick]

Rows (NAME for --only in brackets), each beside onnxruntime on the same ONNX model:
- [overhead] aclmdlExecute per call on a one-node model (Add of two [1,4] float tensors), from Python
  (acl.mdl.execute with prepared datasets) and from C (model_bench.c), vs ORT `InferenceSession.run` and
  `run_with_iobinding` with pre-bound CPU OrtValues (from Python: the wheel ships no C headers).
  Goal: <= 1 us (ORT: 1.8-3.6 us).
- [chain] per-node dispatch on a chain of 1000 tiny Adds ([1,4]), compiled with elementwise_fusion disabled
  (checked: the .om has 1000 nodes); ns per node = (execute of the chain - execute of the one-Add model) / 999,
  the cost of each further node without the per-call overhead, the same formula for ORT, whose session has
  graph optimisations off (ORT_DISABLE_ALL) so that it does not fuse the Adds either. Goal: <= 20 ns/node (ORT:
  about 190 ns).
- [resnet50, mobilenet_v2, bert_base] latency of ResNet-50 (224x224, batch 1), MobileNetV2 (224x224) and a
  BERT-base encoder (seq 128), full size with random weights (ascendsim.models), at 1 and 2 threads: ours with
  ASCENDSIM_NUM_THREADS=N (compiled with every pass, precision_mode force_fp32) vs ORT with
  intra_op_num_threads=N, inter_op_num_threads=1, ORT_SEQUENTIAL, default graph optimisations, both from Python
  with inputs and outputs bound in advance. Goal of issue 4: <= 1.2x ORT's time (the project's: <= 1.0x).
The overhead and chain rows run with one thread on both sides (ASCENDSIM_NUM_THREADS=1, intra_op 1).

Figures are the median of 7 repeats after a warm-up, [min-max] in brackets; within each repeat ours and ORT take
turns, so both see the same machine, and on the model rows each turn starts after a 0.25 s pause, so that the other
side's spinning threads (OpenBLAS's workers spin about 0.1 s after a GEMM; ORT's spin waiting for work) have gone to
sleep. ASCENDSIM_NUM_THREADS is read once per process, so each thread count runs in its own worker process. The
header names the BLAS (the OpenBLAS core that scipy_openblas32's library picked in the measuring processes), ORT's
version and provider, the CPUs, the load average and the environment. OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, if set,
are removed from the environment of the measuring processes only (OpenBLAS reads them when it loads; the project's
machines have had them set, halving its speed); the header says so. --quick: small models, 3 repeats, few
iterations, no pause (for the tests; the values then mean little).

To measure fairly: an otherwise idle machine (the header's load average near 0: with 2 CPUs, one busy process
elsewhere halves the 2-thread figures), no other OpenBLAS/ORT thread settings in the environment
(OPENBLAS_NUM_THREADS, OPENBLAS_THREAD_TIMEOUT, OMP_NUM_THREADS...: the header lists any it saw), and ratios taken
from one run, not across runs.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bench_common
import numpy as np
import onnx
import onnxruntime as ort
import scipy_openblas32
from bench_common import Figure
from onnx import TensorProto, helper, numpy_helper

import acl
import ascendsim
from ascendcl import ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEMCPY_HOST_TO_DEVICE
from ascendsim.compiler.om_reader import read_om
from ascendsim.models import bert_base_encoder, mobilenet_v2, resnet50

HERE = Path(__file__).resolve().parent
BLAS_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")  # removed for the measuring processes
THREADING_PREFIXES = ("OPENBLAS_", "GOTO_", "OMP_", "ASCENDSIM_")  # the variables the header reports
SOC = "Ascend910B1"
THREADS = (1, 2)
CHAIN = 1000
MICRO = ("overhead", "chain")
MODELS = ("resnet50", "mobilenet_v2", "bert_base")
GROUPS = MICRO + MODELS
OVERHEAD_GOAL_NS = 1000.0
NODE_GOAL_NS = 20.0
MODEL_GOAL = 1.2


@dataclass(frozen=True)
class Effort:
    repeats: int
    overhead_iterations: int  # per repeat, from Python (the C program runs 5x as many)
    chain_iterations: int
    model_seconds: float  # about the time of one repeat of a model row (ours + ORT)
    pause: float  # seconds before each turn on the model rows: see bench_common.measure


FULL = Effort(bench_common.REPEATS, 20000, 200, 0.4, 0.25)
QUICK = Effort(3, 200, 5, 0.02, 0.0)


# ---------------------------------------------------------------- models (built and compiled by the parent)

def add_chain(length: int) -> onnx.ModelProto:
    """y = (((x + c) + c) ... + c), `length` Adds of [1,4] float tensors; c is not 0, so no pass removes them."""
    names = ["x", *(f"a{i}" for i in range(1, length)), "y"]
    nodes = [helper.make_node("Add", [names[i], "c"], [names[i + 1]], name=f"add{i}") for i in range(length)]
    x, y = (helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, 4]) for name in ("x", "y"))
    constant = numpy_helper.from_array(np.full((1, 4), 0.5, np.float32), "c")
    graph = helper.make_graph(nodes, f"add_chain_{length}", [x], [y], [constant])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def model_builders(quick: bool) -> dict[str, Callable[[], onnx.ModelProto]]:
    if quick:  # the sizes of tests/model/test_whole_models.py
        return {"resnet50": lambda: resnet50(image=32, layers=(1, 1, 1, 1), width=8, num_classes=10),
                "mobilenet_v2": lambda: mobilenet_v2(image=32, width=0.25, num_classes=10),
                "bert_base": lambda: bert_base_encoder(seq=16, layers=1, hidden=32, heads=4, intermediate=64,
                                                       vocab=50)}
    return {"resnet50": resnet50, "mobilenet_v2": mobilenet_v2, "bert_base": lambda: bert_base_encoder(seq=128)}


def compile_models(groups: Sequence[str], directory: Path, quick: bool) -> dict[str, Any]:
    """Writes NAME.onnx and NAME.om for every model the groups need; returns facts about them."""
    wanted: dict[str, tuple[Callable[[], onnx.ModelProto], tuple[str, ...]]] = {}
    if set(groups) & set(MICRO):
        wanted["one"] = (lambda: add_chain(1), ("elementwise_fusion",))
    if "chain" in groups:
        wanted["chain"] = (lambda: add_chain(CHAIN), ("elementwise_fusion",))
    builders = model_builders(quick)
    wanted.update({name: (builders[name], ()) for name in MODELS if name in groups})
    facts: dict[str, Any] = {}
    for name, (build, disabled) in wanted.items():
        model = build()
        onnx.save(model, str(directory / f"{name}.onnx"))
        ascendsim.compile(model, directory / name, soc_version=SOC, precision_mode="force_fp32",
                          disabled_passes=disabled)
        nodes = read_om(directory / f"{name}.om").plans[0]["nodes"]
        facts[name] = {"onnx_nodes": len(model.graph.node), "om_nodes": len(nodes)}
    if "chain" in facts and facts["chain"]["om_nodes"] != CHAIN:
        raise SystemExit(f"bench_models: the Add chain compiled to {facts['chain']['om_nodes']} nodes, not {CHAIN}: "
                         "a pass fused it; the per-node figure would be wrong")
    return facts


# ---------------------------------------------------------------- environment

def openblas_library() -> Path:
    return Path(scipy_openblas32.get_lib_dir()) / "libscipy_openblas.so"


def openblas_info() -> dict[str, str]:
    """The config string and the core OpenBLAS picked in this process (it decides when it loads)."""
    library = ctypes.CDLL(str(openblas_library()))
    info = {}
    for key in ("config", "corename"):
        function = getattr(library, f"scipy_openblas_get_{key}")
        function.restype = ctypes.c_char_p
        info[key] = function().decode()
    return info


def measuring_environment(threads: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in BLAS_VARIABLES}
    env["ASCENDSIM_NUM_THREADS"] = str(threads)
    return env


# ---------------------------------------------------------------- worker side (runs in a clean environment)

def random_feeds(onnx_path: Path) -> dict[str, np.ndarray]:
    """Random float inputs; integer inputs (token ids, masks, types) are 0 or 1, valid for every model here."""
    rng = np.random.default_rng(0)
    feeds = {}
    for value in onnx.load(str(onnx_path), load_external_data=False).graph.input:
        kind = value.type.tensor_type
        shape = [d.dim_value for d in kind.shape.dim]
        dtype = helper.tensor_dtype_to_np_dtype(kind.elem_type)
        feeds[value.name] = (rng.standard_normal(shape).astype(dtype) if np.issubdtype(dtype, np.floating)
                             else rng.integers(0, 2, shape).astype(dtype))
    return feeds


def check(ret: int, what: str) -> None:
    if ret != 0:
        raise RuntimeError(f"bench_models: {what} failed with {ret}: {acl.get_recent_err_msg()}")


class Ours:
    """A loaded .om with device datasets, as a pyACL program prepares them: inputs copied in once, outputs
    sized by the model description."""

    def __init__(self, om_path: Path, feeds: dict[str, np.ndarray]) -> None:
        self.model_id, ret = acl.mdl.load_from_file(str(om_path))
        check(ret, f"load {om_path}")
        desc = acl.mdl.create_desc()
        check(acl.mdl.get_desc(desc, self.model_id), "get_desc")
        outputs = [acl.mdl.get_output_size_by_index(desc, i) for i in range(acl.mdl.get_num_outputs(desc))]
        acl.mdl.destroy_desc(desc)
        self.device: list[int] = []
        self.inputs = self._dataset([(a.nbytes, a.ctypes.data) for a in feeds.values()])
        self.outputs = self._dataset([(size, 0) for size in outputs])
        check(acl.mdl.execute(self.model_id, self.inputs, self.outputs), "execute")

    def _dataset(self, buffers: list[tuple[int, int]]) -> int:
        dataset = acl.mdl.create_dataset()
        for size, host in buffers:
            device, ret = acl.rt.malloc(max(size, 1), ACL_MEM_MALLOC_HUGE_FIRST)
            check(ret, "rt.malloc")
            self.device.append(device)
            if host:
                check(acl.rt.memcpy(device, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE), "rt.memcpy")
            _, ret = acl.mdl.add_dataset_buffer(dataset, acl.create_data_buffer(device, size))
            check(ret, "add_dataset_buffer")
        return dataset

    def close(self) -> None:
        for dataset in (self.inputs, self.outputs):
            for i in range(acl.mdl.get_dataset_num_buffers(dataset)):
                acl.destroy_data_buffer(acl.mdl.get_dataset_buffer(dataset, i))
            acl.mdl.destroy_dataset(dataset)
        for device in self.device:
            acl.rt.free(device)
        acl.mdl.unload(self.model_id)


class Peer:
    """An onnxruntime session on the CPU provider, with an IOBinding of CPU OrtValues bound in advance."""

    def __init__(self, onnx_path: Path, feeds: dict[str, np.ndarray], threads: int, optimise: bool) -> None:
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        if not optimise:
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        self.session = ort.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])
        self.feeds = feeds
        self.binding = self.session.io_binding()
        for name, array in feeds.items():
            self.binding.bind_ortvalue_input(name, ort.OrtValue.ortvalue_from_numpy(array))
        for output, result in zip(self.session.get_outputs(), self.session.run(None, feeds)):
            self.binding.bind_ortvalue_output(output.name, ort.OrtValue.ortvalue_from_numpy(np.empty_like(result)))


def statements(ours: Ours, peer: Peer) -> dict[str, object]:
    """What the timed statements name: ours and ORT's calls with their prepared arguments."""
    return {"execute": acl.mdl.execute, "model_id": ours.model_id, "inputs": ours.inputs, "outputs": ours.outputs,
            "run": peer.session.run, "feeds": peer.feeds, "run_with_iobinding": peer.session.run_with_iobinding,
            "binding": peer.binding}


OURS, ORT_RUN, ORT_IOBINDING = "execute(model_id, inputs, outputs)", "run(None, feeds)", "run_with_iobinding(binding)"


def micro_worker(directory: Path, groups: Sequence[str], effort: Effort) -> tuple[dict[str, Figure], list[str]]:
    """The overhead and chain figures: the Python calls taking turns with ORT's, then the C program."""
    figures: dict[str, Figure] = {}
    c_args: list[str] = []
    providers: list[str] = []
    for name in ["one"] + (["chain"] if "chain" in groups else []):
        path = directory / f"{name}.onnx"
        feeds = random_feeds(path)
        ours, peer = Ours(directory / f"{name}.om", feeds), Peer(path, feeds, 1, optimise=False)
        iterations = effort.overhead_iterations if name == "one" else effort.chain_iterations
        figures.update(bench_common.measure({f"py.execute.{name}": OURS, f"py.ort_run.{name}": ORT_RUN,
                                             f"py.ort_iobinding.{name}": ORT_IOBINDING},
                                            iterations, statements(ours, peer), effort.repeats))
        c_args += [name, str(directory / f"{name}.om"), str(iterations * 5)]
        providers = peer.session.get_providers()
        ours.close()
    figures.update(bench_common.run_c_benchmark(HERE / "model_bench.c", c_args))
    return figures, providers


def model_worker(directory: Path, groups: Sequence[str], threads: int,
                 effort: Effort) -> tuple[dict[str, Figure], list[str]]:
    """Latency of each model at this process's thread count, ours and ORT taking turns; the iterations per
    repeat are set so that a repeat takes about effort.model_seconds."""
    figures: dict[str, Figure] = {}
    providers: list[str] = []
    for name in (g for g in MODELS if g in groups):
        path = directory / f"{name}.onnx"
        feeds = random_feeds(path)
        ours, peer = Ours(directory / f"{name}.om", feeds), Peer(path, feeds, threads, optimise=True)
        start = time.perf_counter()
        check(acl.mdl.execute(ours.model_id, ours.inputs, ours.outputs), "execute")
        peer.session.run_with_iobinding(peer.binding)
        iterations = max(1, round(effort.model_seconds / (time.perf_counter() - start)))
        figures.update(bench_common.measure({f"py.execute.{name}.t{threads}": OURS,
                                             f"py.ort_iobinding.{name}.t{threads}": ORT_IOBINDING},
                                            iterations, statements(ours, peer), effort.repeats, effort.pause))
        providers = peer.session.get_providers()
        ours.close()
    return figures, providers


def worker(kind: str, directory: Path, groups: Sequence[str], quick: bool) -> dict[str, Any]:
    check(acl.init(), "acl.init")
    check(acl.rt.set_device(0), "acl.rt.set_device")
    threads = int(os.environ["ASCENDSIM_NUM_THREADS"])
    effort = QUICK if quick else FULL
    figures, providers = micro_worker(directory, groups, effort) if kind == "micro" else \
        model_worker(directory, groups, threads, effort)
    environment = {"openblas": openblas_info(), "ort_version": ort.__version__, "ort_providers": providers,
                   "ASCENDSIM_NUM_THREADS": threads,
                   "variables": {k: v for k, v in sorted(os.environ.items()) if k.startswith(THREADING_PREFIXES)}}
    return {"figures": figures, "environment": environment}


# ---------------------------------------------------------------- parent: orchestration and the table

def run_worker(kind: str, threads: int, directory: Path, groups: Sequence[str], quick: bool) -> dict[str, Any]:
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", kind, "--directory", str(directory),
               "--only", ",".join(groups), *(["--quick"] if quick else [])]
    done = subprocess.run(command, env=measuring_environment(threads), capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench_models: the {kind} worker with {threads} thread(s) failed:\n{done.stderr}")
    return json.loads(done.stdout)


def per_node(chain: Figure, one: Figure) -> Figure:
    """(chain - one) / (CHAIN - 1), min-max from the extremes of both."""
    return {"ns": (chain["ns"] - one["ns"]) / (CHAIN - 1), "min": (chain["min"] - one["max"]) / (CHAIN - 1),
            "max": (chain["max"] - one["min"]) / (CHAIN - 1)}


def comparisons(figures: dict[str, Any], groups: Sequence[str]) -> list[dict[str, Any]]:
    """Every row: what, ours, the peer and the goal (a time ratio limit or an absolute ns limit)."""
    rows: list[dict[str, Any]] = []

    def add(group: str, label: str, ours: Figure, peer_label: str, peer: Figure, *,
            threads: int = 1, goal_ns: float | None = None, goal_ratio: float | None = None) -> None:
        rows.append({"group": group, "threads": threads, "benchmark": label, "ours": ours, "peer_name": peer_label,
                     "peer": peer, "ratio": ours["ns"] / peer["ns"], "ratio_of_mins": ours["min"] / peer["min"],
                     "goal_ns": goal_ns, "goal_ratio": goal_ratio})

    if "overhead" in groups:
        for face in ("py", "c"):
            for peer in ("ort_run", "ort_iobinding"):
                add("overhead", f"aclmdlExecute, 1-node model ({face})", figures[f"{face}.execute.one"],
                    f"ORT {'run' if peer == 'ort_run' else 'IOBinding'} (py)", figures[f"py.{peer}.one"],
                    goal_ns=OVERHEAD_GOAL_NS)
    if "chain" in groups:
        ort = per_node(figures["py.ort_iobinding.chain"], figures["py.ort_iobinding.one"])
        for face in ("c", "py"):
            add("chain", f"{CHAIN}-Add chain: execute ({face})", figures[f"{face}.execute.chain"],
                "ORT IOBinding, no graph opt (py)", figures["py.ort_iobinding.chain"])
            add("chain", f"  per node, (chain - 1-node)/{CHAIN - 1} ({face})",
                per_node(figures[f"{face}.execute.chain"], figures[f"{face}.execute.one"]), "ORT, same formula", ort,
                goal_ns=NODE_GOAL_NS)
    for name in (g for g in MODELS if g in groups):
        for threads in THREADS:
            add(name, f"{name} latency, {threads} thread{'s' if threads > 1 else ''}",
                figures[f"py.execute.{name}.t{threads}"], f"ORT IOBinding, intra_op {threads}",
                figures[f"py.ort_iobinding.{name}.t{threads}"], threads=threads, goal_ratio=MODEL_GOAL)
    return rows


def goal_notes(rows: Sequence[dict[str, Any]]) -> list[str]:
    notes = []
    for row in rows:
        if row["goal_ns"] is not None:
            met = row["ours"]["ns"] <= row["goal_ns"]
            notes.append(f"goal {row['benchmark'].strip()} <= {row['goal_ns']:.0f} ns: {row['ours']['ns']:.0f} ns, "
                         f"{'met' if met else 'MISSED'}")
        elif row["goal_ratio"] is not None:
            met = row["ratio"] <= row["goal_ratio"]
            notes.append(f"goal {row['benchmark']} <= {row['goal_ratio']}x ORT: {row['ratio']:.2f}x, "
                         f"{'met' if met else 'MISSED'}")
    return list(dict.fromkeys(notes))  # the overhead goal is the same for both of its peers


def header(workers: dict[str, dict[str, Any]], machine_blas: dict[str, str] | None, facts: dict[str, Any],
           load: Sequence[tuple[float, float, float]], quick: bool) -> list[str]:
    """Which BLAS kernel and ORT ran, on what, with which environment (as each measuring worker saw it)."""
    seen = list(workers.values())
    cores = sorted({f"core {w['openblas']['corename']} ({w['openblas']['config']})" for w in seen})
    ort_runs = sorted({f"onnxruntime {w['ort_version']} ({', '.join(w['ort_providers'])})" for w in seen})
    others = sorted({", ".join(f"{k}={v}" for k, v in w["variables"].items() if k != "ASCENDSIM_NUM_THREADS")
                     or "none" for w in seen})
    removed = [f"{k}={os.environ[k]}" for k in BLAS_VARIABLES if k in os.environ]
    loads = " and at end ".join(", ".join(f"{x:.2f}" for x in triple) for triple in load)
    lines = [
        f"ascendsim model execution vs {'; '.join(ort_runs)}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
        + (" [--quick: small models, values mean little]" if quick else ""),
        (f"machine: {sys.platform}, {os.cpu_count()} CPUs ({len(os.sched_getaffinity(0))} usable), python "
         f"{sys.version.split()[0]}; load average (1, 5, 15 min) at start {loads} (idle: about 0)"),
        f"BLAS: {openblas_library()} (scipy_openblas32, linked by libascendcl.so): {'; '.join(cores)}",
        "measuring processes: " + ", ".join(f"{name} ASCENDSIM_NUM_THREADS={w['ASCENDSIM_NUM_THREADS']}"
                                            for name, w in workers.items())
        + f"; their other {'*/'.join(THREADING_PREFIXES)}* variables: {'; '.join(others)}",
        (f"this shell sets {', '.join(removed)} (OpenBLAS core under it: "
         f"{machine_blas['corename'] if machine_blas else '?'}): removed from the measuring processes' environment "
         "(only there)") if removed else f"this shell sets neither {' nor '.join(BLAS_VARIABLES)}",
        ("ORT sessions: overhead/chain intra_op 1 and ORT_DISABLE_ALL; models intra_op_num_threads = "
         "ASCENDSIM_NUM_THREADS, inter_op 1, ORT_SEQUENTIAL, default graph optimisations; ours force_fp32"),
    ]
    if facts:
        lines.append("nodes ONNX -> .om: " + ", ".join(f"{k} {v['onnx_nodes']} -> {v['om_nodes']}"
                                                       for k, v in facts.items()))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the header, rows and raw figures as JSON")
    parser.add_argument("--only", default=",".join(GROUPS), help="comma-separated, from: " + ", ".join(GROUPS))
    parser.add_argument("--quick", action="store_true", help="small models and few iterations (for tests)")
    parser.add_argument("--worker", choices=("micro", "models"), help=argparse.SUPPRESS)
    parser.add_argument("--directory", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    groups = [g for g in args.only.split(",") if g]
    unknown = [g for g in groups if g not in GROUPS]
    if unknown or not groups:
        parser.error(f"unknown --only {', '.join(unknown) or '(empty)'}; names: {', '.join(GROUPS)}")
    if args.worker:
        print(json.dumps(worker(args.worker, args.directory, groups, args.quick)))
        return 0

    # This process keeps the shell's environment: it only compiles, asks OpenBLAS which core that environment
    # gives, and starts the measuring workers without the BLAS variables.
    machine_blas = openblas_info() if any(k in os.environ for k in BLAS_VARIABLES) else None
    figures: dict[str, Figure] = {}
    workers: dict[str, dict[str, Any]] = {}
    load = [os.getloadavg()]
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        facts = compile_models(groups, directory, args.quick)
        runs = ([("micro", 1)] if set(groups) & set(MICRO) else []) + \
            ([("models", t) for t in THREADS] if set(groups) & set(MODELS) else [])
        for kind, threads in runs:
            output = run_worker(kind, threads, directory, groups, args.quick)
            figures.update(output["figures"])
            workers[f"{kind} worker {threads}t"] = output["environment"]
    load.append(os.getloadavg())
    rows = comparisons(figures, groups)
    lines = header(workers, machine_blas, facts, load, args.quick)
    if args.json:
        print(json.dumps({"header": lines, "workers": workers, "rows": rows, "figures": figures}, indent=2))
        return 0
    print("\n".join(lines))
    print()
    print(bench_common.format_table([(r["benchmark"], bench_common.fmt_time(r["ours"], r["peer"]),
                                      f"{r['peer_name']} {bench_common.fmt_time(r['peer'], r['ours'])}",
                                      bench_common.time_ratio(r["ours"], r["peer"])) for r in rows]))
    print()
    print("\n".join(goal_notes(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
