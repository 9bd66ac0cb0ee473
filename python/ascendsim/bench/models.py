"""Model execution benchmarks, side by side with onnxruntime in one run.

Groups and their rows (NAME for --only), each beside onnxruntime on the same ONNX model unless said:
- overhead: aclmdlExecute per call on a one-node model (Add of two [1,4] float tensors), from Python
  (acl.mdl.execute with prepared datasets) and from C (model_bench.c), vs ORT `InferenceSession.run` and
  `run_with_iobinding` with pre-bound CPU OrtValues (from Python: the wheel ships no C headers).
  Goal: <= 1 us (ORT: 1.8-3.6 us).
- chain: per-node dispatch on a chain of 1000 tiny Adds ([1,4]), compiled with elementwise_fusion disabled
  (checked: the .om has 1000 nodes); ns per node = (execute of the chain - execute of the one-Add model) / 999,
  the cost of each further node without the per-call overhead, the same formula for ORT, whose session has
  graph optimisations off (ORT_DISABLE_ALL) so that it does not fuse the Adds either. Goal: <= 20 ns/node (ORT:
  about 190 ns).
- sink: a network of SINK_OPS (300) tiny Adds ([1,4], fusion off) run once as a model (aclmdlExecute) vs the
  same Adds one by one on a stream (aclopExecuteV2 of a single-operator model from `atc --singleop`, then
  aclrtSynchronizeStream), from C and from Python (acl.op.execute_v2): device-side (sunk) execution vs host
  dispatch of each op; and the same figures per op (the launch overhead of one operator). Goal: sink mode
  >= 10x faster.
- concurrency: two independent streams of work vs one (C): two loaded copies of a MatMul chain (4 MatMuls of
  [128,256]x[256,256]), each iteration two aclmdlExecuteAsync on one stream vs one on each of two streams, then
  synchronize; with 2 free CPUs the ideal ratio is 0.5.
- resnet50, mobilenet_v2, bert_base, efficientnet_b0, shufflenet_v1, densenet121, convnext_tiny, vit_b16: latency
  of ResNet-50, MobileNetV2, EfficientNet-B0, ShuffleNet V1 (g = 3), DenseNet-121, ConvNeXt-Tiny and ViT-B/16
  (224x224, batch 1) and a BERT-base encoder (seq 128), full size with random weights (ascendsim.models), at 1
  and 2 threads: ours with
  ASCENDSIM_NUM_THREADS=N (compiled with every pass, precision_mode force_fp32) vs ORT with
  intra_op_num_threads=N, inter_op_num_threads=1, ORT_SEQUENTIAL, default graph optimisations, both from Python
  with inputs and outputs bound in advance. Goal of issue 11: <= 1.0x ORT's time. NAME.tN.nolayout: the same
  figure beside ORT at ORT_ENABLE_EXTENDED, its fusions without its layout pass (on x86 the default level
  converts convolution chains to blocked NCHWc tensors with kernels of their own, reordered at the chain's
  ends), in the same turns: what of the gap is the layout rather than the kernels.
- dynamic: the v2 (dynamic-shape) runtime. dynamic.bert.sL.tN: a BERT-base encoder (the bert_base builder)
  compiled once with a dynamic sequence axis ("input_ids:1,-1;...") and run at L = 16, 64, 128, 384 (its inputs'
  descriptions set to [1, L]) vs ORT on the same ONNX with the same dynamic axes (goal <= 1.0x) and, in the
  .static rows, vs ascendsim's static model compiled for [1, L], loaded with its streams in task order
  (ASCENDSIM_MODEL_STREAMS=in_order: one CPU per thread, as the v2 path) (goal: the dynamic path costs <= 5 % more); their
  note is the v2 execution's peak feature-map memory (ascendsim.model_memory) beside the static planner's arena.
  dynamic.chain.{c,py}: the chain rows' formula on the same chain compiled with a dynamic batch axis ("x:-1,4",
  run at 1): the v2 Main loop's cost per node (infer-shape, alloc, launch, free) vs ORT's per node on that
  dynamic ONNX (goal <= 0.25x) and vs the v1 sink loop's per node (the chain rows' figure, same run); and from
  Python under the topological and parallel executors (ASCENDSIM_V2_EXECUTOR at load), in turns with the default.
The overhead, chain and concurrency rows and dynamic.chain run with one thread per execution (ASCENDSIM_NUM_THREADS=1,
intra_op 1).

Within each repeat ours and ORT take turns, so both see the same machine, and on the model rows each turn starts
after a 0.25 s pause, so that the other side's spinning threads (OpenBLAS's workers spin about 0.1 s after a GEMM;
ORT's spin waiting for work) have gone to sleep. ASCENDSIM_NUM_THREADS is read once per process, so each thread
count runs in its own worker process (ascendsim.bench.workers).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import acl
import ascendsim

from . import common
from .common import Effort, Figure, Row, make_row
from .groups import MODELS
from .model_files import CHAIN, DYNAMIC_SEQS, SINK_OPS
from .sessions import ORT_IOBINDING, ORT_RUN, OURS, Ours, Peer, SingleOps, check, random_feeds, statements

THREADS = (1, 2)
SINK_GOAL = 0.1  # issue 5: sink mode at least 10x faster than host dispatch on small tensors
OVERHEAD_GOAL_NS = 1000.0
NODE_GOAL_NS = 20.0
MODEL_GOAL = 1.0
DYNAMIC_STATIC_GOAL = 1.05  # issue 15: the dynamic path costs <= 5 % more than the static model of that shape
V2_NODE_GOAL = 0.25  # issue 15: the v2 Main loop's per-node cost <= 0.25x onnxruntime's
V2_EXECUTORS = ("topological", "parallel")  # ASCENDSIM_V2_EXECUTOR values timed beside the default (sequential)


# ---------------------------------------------------------------- worker side (runs in a clean environment)

def micro_worker(directory: Path, groups: Sequence[str], effort: Effort) -> tuple[dict[str, Figure], list[str]]:
    """The overhead, chain and concurrency figures: the Python calls taking turns with ORT's, then the C program."""
    figures: dict[str, Figure] = {}
    c_args: list[str] = []
    providers: list[str] = []
    dispatch = ["one", "chain"] if set(groups) & {"chain", "dynamic"} else ["one"] if "overhead" in groups else []
    dispatch += ["one_dyn", "chain_dyn"] if "dynamic" in groups else []
    for name in dispatch:
        path = directory / f"{name}.onnx"
        feeds = random_feeds(path)
        peer = Peer(path, feeds, 1, optimise=False)
        ours = Ours(directory / f"{name}.om", feeds, peer.output_bytes)
        iterations = effort.overhead_iterations if name.startswith("one") else effort.chain_iterations
        timed = {f"py.execute.{name}": OURS, f"py.ort_run.{name}": ORT_RUN, f"py.ort_iobinding.{name}": ORT_IOBINDING}
        namespace = statements(ours, peer)
        # The other v2 executors (read at load) on the same dynamic model, in turns with the default one.
        others = [Ours(directory / f"{name}.om", feeds, peer.output_bytes, {"ASCENDSIM_V2_EXECUTOR": executor})
                  for executor in (V2_EXECUTORS if name.endswith("_dyn") else ())]
        for executor, other in zip(V2_EXECUTORS, others):
            timed[f"py.execute.{name}.{executor}"] = f"execute({executor}_id, {executor}_in, {executor}_out)"
            namespace.update({f"{executor}_id": other.model_id, f"{executor}_in": other.inputs,
                              f"{executor}_out": other.outputs})
        figures.update(common.measure(timed, iterations, namespace, effort.repeats))
        c_args += [name, str(directory / f"{name}.om"), str(iterations * 5)]
        providers = peer.session.get_providers()
        for model in (ours, *others):
            model.close()
    if "sink" in groups:
        model, ops = Ours(directory / "sink.om", random_feeds(directory / "sink.onnx")), SingleOps(directory / "sink_ops")
        iterations = max(2, effort.chain_iterations // 20)
        figures.update(common.measure({"py.sink.model": OURS, "py.sink.ops": "run_ops()"}, iterations,
                                      {**statements(model, None), "run_ops": ops.run}, effort.repeats))
        ops.close()
        model.close()
        c_args += [f"sink:{SINK_OPS}", str(directory), str(max(2, effort.chain_iterations // 2))]
    if "concurrency" in groups:
        c_args += ["streams", str(directory / "streams.om"), str(effort.streams_iterations)]
    figures.update(common.run_c_benchmark("model_bench", c_args, repeats=effort.repeats))
    return figures, providers


def model_worker(directory: Path, groups: Sequence[str], threads: int,
                 effort: Effort) -> tuple[dict[str, Figure], list[str], dict[str, str]]:
    """Latency of each model at this process's thread count, ours and ORT taking turns; the iterations per
    repeat are set so that a repeat takes about effort.model_seconds. The dynamic group: the dynamic BERT at
    each length beside ORT and beside our static model of that length, with the memory notes."""
    figures: dict[str, Figure] = {}
    notes: dict[str, str] = {}
    providers: list[str] = []
    runs = [(name, name, None) for name in MODELS if name in groups]
    runs += [(f"bert_dyn.s{seq}", "bert_dyn", seq) for seq in DYNAMIC_SEQS] if "dynamic" in groups else []
    for label, name, seq in runs:
        path = directory / f"{name}.onnx"
        feeds = random_feeds(path, seq or 1)
        peer = Peer(path, feeds, threads, optimise=True)
        ours = Ours(directory / f"{name}.om", feeds, peer.output_bytes)
        timed = {f"py.execute.{label}.t{threads}": OURS, f"py.ort_iobinding.{label}.t{threads}": ORT_IOBINDING}
        namespace = statements(ours, peer)
        if seq is None:  # the .nolayout row: ORT without its layout pass, in the same turns
            plain = Peer(path, feeds, threads, optimise=True, layout=False)
            timed[f"py.ort_nolayout.{label}.t{threads}"] = "run_plain(binding_plain)"
            namespace.update({"run_plain": plain.session.run_with_iobinding, "binding_plain": plain.binding})
        static = None
        if seq is not None:  # our static model of this length, its peer in the .static row
            # Its streams in task order at every thread count, as the v2 path runs: one thread is then one CPU
            # for both (concurrent side streams would give the static model a second one at 1 thread).
            static = Ours(directory / f"bert_s{seq}.om", feeds, (), {"ASCENDSIM_MODEL_STREAMS": "in_order"})
            timed[f"py.execute.bert_s{seq}.t{threads}"] = "execute(static_id, static_inputs, static_outputs)"
            namespace.update({"static_id": static.model_id, "static_inputs": static.inputs,
                              "static_outputs": static.outputs})
            peak, planned = (ascendsim.model_memory(model)["max_peak_bytes"] for model in (ours.model_id,
                                                                                           static.model_id))
            notes[f"memory.{label}"] = (f"peak feature maps of the v2 execution {peak / 2**20:.2f} MiB "
                                        f"(ascendsim.model_memory), static plan {planned / 2**20:.2f} MiB "
                                        f"({peak / planned:.2f}x)")
        start = time.perf_counter()
        check(acl.mdl.execute(ours.model_id, ours.inputs, ours.outputs), "execute")
        peer.session.run_with_iobinding(peer.binding)
        iterations = max(1, round(effort.model_seconds / (time.perf_counter() - start)))
        figures.update(common.measure(timed, iterations, namespace, effort.repeats, effort.pause))
        providers = peer.session.get_providers()
        ours.close()
        if static is not None:
            static.close()
    return figures, providers, notes


def per_node(chain: Figure, one: Figure) -> Figure:
    """(chain - one) / (CHAIN - 1), min-max from the extremes of both."""
    return {"ns": (chain["ns"] - one["ns"]) / (CHAIN - 1), "min": (chain["min"] - one["max"]) / (CHAIN - 1),
            "max": (chain["max"] - one["min"]) / (CHAIN - 1)}


def scaled(figure: Figure, count: int) -> Figure:
    """A figure per item of `count`."""
    return {key: value / count for key, value in figure.items()}


def dynamic_rows(figures: dict[str, Any], notes: dict[str, str]) -> list[Row]:
    """The dynamic group's rows (see the module's text)."""
    out: list[Row] = []
    ort_node = per_node(figures["py.ort_iobinding.chain_dyn"], figures["py.ort_iobinding.one_dyn"])
    for face in ("c", "py"):
        v2 = per_node(figures[f"{face}.execute.chain_dyn"], figures[f"{face}.execute.one_dyn"])
        out.append(make_row(f"dynamic.chain.{face}.per_node", f"v2 Main loop per node, dynamic {CHAIN}-Add chain ({face})",
                            v2, "ORT per node, same dynamic axes", ort_node, goal_ratio=V2_NODE_GOAL))
        out.append(make_row(f"dynamic.chain.{face}.v1", f"  the same ({face})", v2, "v1 sink loop per node (chain row)",
                            per_node(figures[f"{face}.execute.chain"], figures[f"{face}.execute.one"])))
    for executor in V2_EXECUTORS:
        v2 = per_node(figures[f"py.execute.chain_dyn.{executor}"], figures[f"py.execute.one_dyn.{executor}"])
        out.append(make_row(f"dynamic.chain.py.per_node.{executor}", f"  the same, {executor} executor (py)", v2,
                            "ORT per node, same dynamic axes", ort_node, goal_ratio=V2_NODE_GOAL))
    for seq in DYNAMIC_SEQS:
        for threads in THREADS:
            dynamic = figures[f"py.execute.bert_dyn.s{seq}.t{threads}"]
            out.append(make_row(f"dynamic.bert.s{seq}.t{threads}", f"bert_base dynamic model, seq {seq}, {threads}t",
                                dynamic, f"ORT IOBinding, dynamic axes, intra_op {threads}",
                                figures[f"py.ort_iobinding.bert_dyn.s{seq}.t{threads}"], threads=threads,
                                goal_ratio=MODEL_GOAL))
            out.append(make_row(f"dynamic.bert.s{seq}.t{threads}.static", f"  the same vs own static model, {threads}t",
                                dynamic, f"ascendsim static model, seq {seq}, streams in order",
                                figures[f"py.execute.bert_s{seq}.t{threads}"], threads=threads,
                                goal_ratio=DYNAMIC_STATIC_GOAL, note=notes.get(f"memory.bert_dyn.s{seq}", "")))
    return out


def rows(figures: dict[str, Any], groups: Sequence[str], notes: dict[str, str]) -> list[Row]:
    """Every row: what, ours, the peer and the goal (a time ratio limit or an absolute ns limit)."""
    out: list[Row] = []
    if "overhead" in groups:
        for face in ("py", "c"):
            for peer in ("run", "iobinding"):
                out.append(make_row(f"overhead.{face}.{peer}", f"aclmdlExecute, 1-node model ({face})",
                                    figures[f"{face}.execute.one"],
                                    f"ORT {'run' if peer == 'run' else 'IOBinding'} (py)",
                                    figures[f"py.ort_{peer}.one"], goal_ns=OVERHEAD_GOAL_NS))
    if "chain" in groups:
        ort_node = per_node(figures["py.ort_iobinding.chain"], figures["py.ort_iobinding.one"])
        for face in ("c", "py"):
            out.append(make_row(f"chain.{face}.execute", f"{CHAIN}-Add chain: execute ({face})",
                                figures[f"{face}.execute.chain"], "ORT IOBinding, no graph opt (py)",
                                figures["py.ort_iobinding.chain"]))
            out.append(make_row(f"chain.{face}.per_node", f"  per node, (chain - 1-node)/{CHAIN - 1} ({face})",
                                per_node(figures[f"{face}.execute.chain"], figures[f"{face}.execute.one"]),
                                "ORT, same formula", ort_node, goal_ns=NODE_GOAL_NS))
    if "sink" in groups:
        for face, op_call in (("c", "aclopExecuteV2"), ("py", "acl.op.execute_v2")):
            model, ops = figures[f"{face}.sink.model"], figures[f"{face}.sink.ops"]
            out.append(make_row(f"sink.{face}", f"{SINK_OPS} Adds: one model, aclmdlExecute ({face})", model,
                                f"{SINK_OPS} {op_call} + sync", ops, goal_ratio=SINK_GOAL))
            out.append(make_row(f"sink.{face}.per_op", f"  per Add: in the model ({face})", scaled(model, SINK_OPS),
                                f"per {op_call} (launch overhead)", scaled(ops, SINK_OPS)))
    if "concurrency" in groups:
        out.append(make_row("concurrency.c", "2 executions: two streams vs one (c)",
                            figures["c.streams.two"], "one stream", figures["c.streams.one"],
                            note="ideal 0.5x with 2 free CPUs"))
    for name in (g for g in MODELS if g in groups):
        for threads in THREADS:
            ours = figures[f"py.execute.{name}.t{threads}"]
            out.append(make_row(f"{name}.t{threads}",
                                f"{name} latency, {threads} thread{'s' if threads > 1 else ''}",
                                ours, f"ORT IOBinding, intra_op {threads}",
                                figures[f"py.ort_iobinding.{name}.t{threads}"], threads=threads,
                                goal_ratio=MODEL_GOAL))
            out.append(make_row(f"{name}.t{threads}.nolayout", "  the same", ours,
                                f"ORT without its layout pass, intra_op {threads}",
                                figures[f"py.ort_nolayout.{name}.t{threads}"], threads=threads))
    if "dynamic" in groups:
        out += dynamic_rows(figures, notes)
    return out


def goal_notes(rows: Sequence[dict[str, Any]]) -> list[str]:
    notes = []
    for row in rows:
        if row["goal_ns"] is not None:
            met = row["ours"]["ns"] <= row["goal_ns"]
            notes.append(f"goal {row['benchmark'].strip()} <= {row['goal_ns']:.0f} ns: {row['ours']['ns']:.0f} ns, "
                         f"{'met' if met else 'MISSED'}")
        elif row["goal_ratio"] is not None and row["bytes"]:  # a bandwidth row: the goal as a bandwidth ratio
            met = row["ratio"] <= row["goal_ratio"]
            notes.append(f"goal {row['benchmark']} >= {1 / row['goal_ratio']:.1f}x {row['peer_name']} bandwidth: "
                         f"{1 / row['ratio']:.2f}x, {'met' if met else 'MISSED'}")
        elif row["goal_ratio"] is not None:
            met = row["ratio"] <= row["goal_ratio"]
            notes.append(f"goal {row['benchmark']} <= {row['goal_ratio']}x {row['peer_name']}: {row['ratio']:.2f}x, "
                         f"{'met' if met else 'MISSED'}")
    return list(dict.fromkeys(notes))  # the overhead goal is the same for both of its peers
