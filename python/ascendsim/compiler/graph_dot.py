"""Pictures of compiler graphs: Graphviz DOT for any stage's graph, rendered to SVG and PNG when the `dot`
program is installed (otherwise only the .dot is written and a warning says so; a dump never fails for it).

Layout of the picture: one box per node (name, op type, output shape), filled with its stream's colour; an
ellipse per graph input and output; edges labelled with the tensor's shape; weights and folded constants are
not drawn (they would swamp the picture) but counted in the node's label. A fused node is a dashed cluster
labelled with its name and op, holding one small box per op it fused, wired as inside the fusion:
FusedElementwise shows its program's steps (step inputs below n_inputs are the node's inputs, the others
earlier steps), and Conv / Gemm / MatMul show the bias Add and activation of their epilogue. A legend cluster
lists the streams' colours and the fused-node style. Streams are known after stream assignment: the stage
dumps (before it) are all stream 0; build.py adds a final picture with the stream plan and its events
(dotted edges from the recording node to the waiting one).
"""

from __future__ import annotations

import shutil
import subprocess
import warnings
from pathlib import Path
from typing import Any

from .ir import ASCENDSIM_DOMAIN, Graph, Node, Value
from .streams import StreamPlan

COLOURS = ("#cfe2f3", "#d9ead3", "#fce5cd", "#ead1dc", "#fff2cc", "#d0e0e3", "#f4cccc", "#d9d2e9")
_EPILOGUE_OPS = ("Conv", "Gemm", "MatMul")


def quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _shape(value: Value | None) -> str:
    if value is None or value.shape is None:
        return "?"
    return "x".join(str(d) for d in value.shape) or "scalar"


def fused_members(node: Node) -> list[tuple[str, list[int]]]:
    """The ops a fused node stands for, as (op, inputs) with inputs < len(node.inputs) naming the node's
    inputs and the others earlier members; empty for a node that fused nothing."""
    if node.domain == ASCENDSIM_DOMAIN and node.op_type == "FusedElementwise":
        return [(str(step["op"]), [int(i) for i in step.get("inputs", [])]) for step in node.attrs.get("program", [])]
    fused = ("activation", "fused_bias", "fused_sum")
    if node.op_type not in _EPILOGUE_OPS or not any(node.attrs.get(key) for key in fused):
        return []
    n = len(node.inputs)
    members: list[tuple[str, list[int]]] = [(node.op_type, [0, 1])]
    if node.attrs.get("fused_bias"):
        members.append(("Add (bias)", [n + len(members) - 1, 2]))
    if node.attrs.get("fused_sum"):
        members.append(("Add (sum)", [n + len(members) - 1, 3]))
    if node.attrs.get("activation"):
        members.append((str(node.attrs["activation"]), [n + len(members) - 1]))
    return members


def to_dot(graph: Graph, streams: StreamPlan | None = None, title: str = "") -> str:
    lines = [f"digraph {quote(graph.name)} {{", "  rankdir=TB;", f"  label={quote(title or graph.name)};",
             "  labelloc=t;", '  fontname="Helvetica"; fontsize=12;', '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=8];']
    entry: dict[int, str] = {}  # id(value) -> the DOT node that writes it
    for i, value in enumerate(graph.inputs):
        entry[id(value)] = f"in{i}"
        lines.append(f"  in{i} [shape=ellipse, style=solid, label={quote(value.name + chr(10) + _shape(value))}];")
    used_streams: set[int] = set()
    for index, node in enumerate(graph.nodes):
        used_streams.add(node.stream)
        lines += _node(index, node, entry)
    for i, value in enumerate(graph.outputs):
        lines.append(f"  out{i} [shape=ellipse, style=solid, label={quote(value.name + chr(10) + _shape(value))}];")
        if id(value) in entry:
            lines.append(f"  {entry[id(value)]} -> out{i} [label={quote(_shape(value))}];")
    for event in streams.events if streams else []:
        lines.append(f"  {_exit(graph, event.record_node)} -> {_enter(graph, event.wait_node)} [style=dotted, "
                     f"color=red, constraint=false, label={quote(f'event {event.event_id}')}];")
    lines += _legend(sorted(used_streams), streams is not None)
    lines.append("}")
    return "\n".join(lines) + "\n"


def _enter(graph: Graph, index: int) -> str:
    return f"n{index}_0" if fused_members(graph.nodes[index]) else f"n{index}"


def _exit(graph: Graph, index: int) -> str:
    members = fused_members(graph.nodes[index])
    return f"n{index}_{len(members) - 1}" if members else f"n{index}"


def _node(index: int, node: Node, entry: dict[int, str]) -> list[str]:
    colour = COLOURS[node.stream % len(COLOURS)]
    constants = sum(1 for v in node.inputs if v is not None and v.data is not None)
    weights = f"\n{constants} constant input{'s' if constants > 1 else ''}" if constants else ""
    members = fused_members(node)
    lines: list[str] = []
    sources = [entry.get(id(v)) if v is not None and v.data is None else None for v in node.inputs]
    if not members:
        label = f"{node.name}\n{node.op_type}\n{_shape(node.outputs[0] if node.outputs else None)}{weights}"
        lines.append(f"  n{index} [fillcolor={quote(colour)}, label={quote(label)}];")
        targets = [(f"n{index}", i) for i in range(len(node.inputs))]
    else:
        lines += [f"  subgraph cluster_n{index} {{", "    style=dashed; fontsize=9;",
                  f"    label={quote(f'{node.name}: {node.op_type} ({len(members)} ops){weights}')};"]
        targets = []
        for m, (op, inputs) in enumerate(members):
            lines.append(f"    n{index}_{m} [fillcolor={quote(colour)}, label={quote(op)}];")
            for i in inputs:
                if i < len(node.inputs):
                    targets.append((f"n{index}_{m}", i))
                else:
                    lines.append(f"    n{index}_{i - len(node.inputs)} -> n{index}_{m};")
        lines.append("  }")
    for target, i in targets:
        if i < len(sources) and sources[i] is not None:
            lines.append(f"  {sources[i]} -> {target} [label={quote(_shape(node.inputs[i]))}];")
    writer = f"n{index}_{len(members) - 1}" if members else f"n{index}"
    for value in node.outputs:
        entry[id(value)] = writer
    return lines


def _legend(streams: list[int], planned: bool) -> list[str]:
    lines = ["  subgraph cluster_legend {", '    label="legend"; style=solid; fontsize=9;']
    for s in streams:
        note = "" if planned else " (before stream assignment)"
        lines.append(f"    legend_stream{s} [fillcolor={quote(COLOURS[s % len(COLOURS)])}, "
                     f"label={quote(f'stream {s}{note}')}];")
    lines += ["    subgraph cluster_legend_fused {", '      style=dashed; label="fused node";',
              '      legend_fused [label="op it fused", style=rounded];', "    }",
              '    legend_io [shape=ellipse, style=solid, label="graph input / output"];']
    if planned:
        lines += ['    legend_event_a [label="record", style=rounded]; legend_event_b [label="wait", style=rounded];',
                  '    legend_event_a -> legend_event_b [style=dotted, color=red, label="event"];']
    return [*lines, "  }"]


def save_picture(graph: Graph, stem: Path, streams: StreamPlan | None = None, title: str = "") -> dict[str, Any]:
    """Writes stem.dot, and stem.svg / stem.png when Graphviz's `dot` is installed; returns the paths written
    and, when a picture could not be rendered, why (also raised as a warning)."""
    dot_path = stem.with_suffix(".dot")
    dot_path.write_text(to_dot(graph, streams, title))
    written: dict[str, Any] = {"dot": str(dot_path)}
    program = shutil.which("dot")
    if program is None:
        written["note"] = "Graphviz `dot` not found: wrote the .dot only (install graphviz for SVG/PNG)"
        warnings.warn(written["note"], stacklevel=2)
        return written
    for fmt in ("svg", "png"):
        out = stem.with_suffix(f".{fmt}")
        result = subprocess.run([program, f"-T{fmt}", str(dot_path), "-o", str(out)], capture_output=True, text=True,
                                check=False, timeout=300)
        if result.returncode == 0:
            written[fmt] = str(out)
        else:
            written["note"] = f"dot -T{fmt} failed: {result.stderr.strip()}"
            warnings.warn(written["note"], stacklevel=2)
    return written
