"""`ascendsim show model.om`: what a compiled model holds, from the one .om reader (compiler/om_reader.py,
also behind `atc --mode=1`).

`describe` turns the parsed file into a plain dict (what `--json` prints): the runtime that loads it (v1, the
static/gear sink path, or v2, the dynamic-shape execute graph: the loader's choice, GE's IsNeedHybridLoad),
the inputs and outputs (name, dtype, format, dims, size, shape ranges), the gears, the AIPP records, the weights size and, per plan (one per gear), the
streams, the events (each record/wait pair in task order; ids are reused), the planned feature-map memory
and the node list with each input and output tensor's kind, region offset and size. `format_description`
prints it as text.

Planned memory. The .om keeps the arena size and each feature-map tensor's offset, not the planner's
figures, so they are recomputed from the plan: a tensor lives from the node that writes it to the last node
that reads it (task order). Tensors whose bytes overlap while both are live are one buffer (views and
in-place results share their input's bytes; a valid plan never overlaps two distinct live buffers). The
lower bound is the compiler's own (`memory.live_lower_bound`: the most bytes live at one point) over those
buffers, and "no reuse" is the sum of the buffers' aligned sizes.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from .compiler.memory import align, live_lower_bound
from .compiler.om_reader import OmFile, OmFormatError, read_om

_GEAR_KEYS = ("dynamic_batch", "dynamic_hw", "dynamic_dims")


def describe(om: OmFile) -> dict[str, Any]:
    model, inout = om.model, om.inout
    io_keys = ("name", "dtype", "format", "dims", "size", "shape_range")
    return {
        "file": om.path, "name": model["name"], "soc_version": model["soc_version"],
        "precision_mode": model["precision_mode"], "dynamic_type": model["dynamic_type"],
        "runtime": "v2 (dynamic shape: execute graph, shapes inferred per execution"
        + (f"; {model['subgraph_count']} If/Loop subgraphs" if model["subgraph_count"] else "") + ")"
        if model["dynamic_shape"] else "v1 (static: task sink)",
        "inputs": [{k: d[k] for k in io_keys} for d in inout["inputs"]],
        "outputs": [{k: d[k] for k in io_keys} for d in inout["outputs"]],
        "gears": {k: inout[k] for k in _GEAR_KEYS if k in inout},
        "aipp": inout.get("aipp", []),
        "weights_size": model["weight_size"],
        "plans": [_plan(i, plan, om.tasks[i]) for i, plan in enumerate(om.plans)],
    }


def _plan(index: int, plan: dict[str, Any], tasks: list[dict[str, int]]) -> dict[str, Any]:
    tensors = plan["tensors"]

    def ref(t: int) -> dict[str, Any]:
        if t < 0:
            return {"tensor": -1}
        tensor = tensors[t]
        return {"tensor": t, "name": tensor["name"], "kind": tensor["kind"], "offset": tensor["offset"],
                "size": tensor["size"]}

    nodes = [{"index": i, "name": n["name"], "op_type": n["op_type"], "stream": n["stream"],
              "shape_dependent": "SHAPE_DEPENDENT" in n["flags"],
              "inputs": [ref(t) for t in n["inputs"]], "outputs": [ref(t) for t in n["outputs"]]}
             for i, n in enumerate(plan["nodes"])]
    return {"index": index, "gear": plan["gear"], "stream_count": plan["stream_count"],
            "streams": [{"stream": s, "nodes": sum(1 for n in plan["nodes"] if n["stream"] == s)}
                        for s in range(plan["stream_count"])],
            "event_count": plan["event_count"], "events": _events(tasks), "memory": _memory(plan), "nodes": nodes}


def _events(tasks: list[dict[str, int]]) -> list[dict[str, int]]:
    """Each record with its wait (a record's id is waited on once before it is recorded again)."""
    pending: dict[int, dict[str, int]] = {}
    events = []
    for task in tasks:
        if task["type"] == "EVENT_RECORD":
            pending[task["arg"]] = {"event": task["arg"], "record_stream": task["stream"],
                                    "record_after_node": task["node"]}
        elif task["type"] == "EVENT_WAIT":
            event = pending.pop(task["arg"])
            events.append({**event, "wait_stream": task["stream"], "wait_before_node": task["node"]})
    return events


def _memory(plan: dict[str, Any]) -> dict[str, int]:
    spans: dict[int, list[int]] = {}  # feature-map tensor -> [first, last] node index
    for i, node in enumerate(plan["nodes"]):
        for t in [*node["inputs"], *node["outputs"]]:
            if t >= 0 and plan["tensors"][t]["kind"] == "FEATURE_MAP":
                span = spans.setdefault(t, [i, i])
                span[0], span[1] = min(span[0], i), max(span[1], i)
    buffers = _buffers(plan["tensors"], spans)
    sizes = [end - begin for begin, end, _, _ in buffers]
    lower = live_lower_bound(sizes, [b[2] for b in buffers], [b[3] for b in buffers])
    arena = plan["feature_map_size"]
    return {"arena_size": arena, "lower_bound": lower, "no_reuse": sum(sizes), "saved_by_reuse": sum(sizes) - arena,
            "tensors": len(spans), "buffers": len(buffers)}


def _buffers(tensors: list[dict[str, Any]], spans: dict[int, list[int]]) -> list[list[int]]:
    """Merges tensors overlapping in bytes and in lifetime into buffers [begin, end, first, last]."""
    buffers: list[list[int]] = []
    for t in sorted(spans, key=lambda t: tensors[t]["offset"]):
        begin, size = tensors[t]["offset"], align(tensors[t]["size"])
        buffer = [begin, begin + size, *spans[t]]
        while other := next((b for b in buffers if b[0] < buffer[1] and buffer[0] < b[1] and b[2] <= buffer[3]
                             and buffer[2] <= b[3]), None):  # the merged buffer may reach further ones
            buffers.remove(other)
            buffer = [min(buffer[0], other[0]), max(buffer[1], other[1]), min(buffer[2], other[2]),
                      max(buffer[3], other[3])]
        buffers.append(buffer)
    return buffers


def _dims(dims: list[int]) -> str:
    return "[" + ",".join(str(d) for d in dims) + "]"


def _io(desc: dict[str, Any]) -> str:
    ranges = desc.get("shape_range") or []
    shown = f" range {' '.join(f'{lo}~{hi}' for lo, hi in ranges)}" if any(lo != hi for lo, hi in ranges) else ""
    return f"  {desc['name']}: {desc['dtype']} {desc['format']} {_dims(desc['dims'])}{shown}, {desc['size']} bytes"


def format_description(d: dict[str, Any]) -> str:
    lines = [(f"model {d['name']} ({d['file']}): soc {d['soc_version']}, precision {d['precision_mode']}, "
             f"{'dynamic' if d['runtime'].startswith('v2') else d['dynamic_type'].lower()} shapes, "
             f"{len(d['plans'])} plan(s)"),
             f"runtime: {d['runtime']}",
             f"inputs ({len(d['inputs'])}):", *map(_io, d["inputs"]),
             f"outputs ({len(d['outputs'])}):", *map(_io, d["outputs"]),
             "gears: " + ("; ".join(f"{k} {v}" for k, v in d["gears"].items()) or "none (static)"),
             f"aipp ({len(d['aipp'])}):" if d["aipp"] else "aipp: none"]
    for record in d["aipp"]:
        lines.append("  " + ", ".join(f"{k}={v}" for k, v in record.items()))
    lines.append(f"weights: {d['weights_size']} bytes")
    for plan in d["plans"]:
        mem = plan["memory"]
        gear = f" (gear {_dims(plan['gear'])})" if plan["gear"] else ""
        lines += [f"plan {plan['index']}{gear}:",
                  f"  streams: {plan['stream_count']} (" +
                  ", ".join(f"stream {s['stream']}: {s['nodes']} nodes" for s in plan["streams"]) + ")",
                  f"  events: {plan['event_count']} ids, {len(plan['events'])} record/wait pairs"]
        lines += [f"    event {e['event']}: recorded on stream {e['record_stream']} after node "
                  f"{e['record_after_node']}, waited on stream {e['wait_stream']} before node {e['wait_before_node']}"
                  for e in plan["events"]]
        if d["runtime"].startswith("v2"):
            lines.append(f"  feature map: allocated per execution ({mem['tensors']} tensors, shapes inferred at run time)")
        else:
            lines.append(f"  feature map: arena {mem['arena_size']} bytes, lower bound {mem['lower_bound']}, "
                         f"no reuse {mem['no_reuse']} (reuse saves {mem['saved_by_reuse']}); {mem['tensors']} tensors "
                         f"in {mem['buffers']} buffers")
        lines.append(f"  nodes ({len(plan['nodes'])}):")
        for node in plan["nodes"]:
            mark = " (shape-dependent)" if node["shape_dependent"] else ""
            lines.append(f"    {node['index']:>4} {node['name']} {node['op_type']} stream {node['stream']}{mark}")
            for role in ("inputs", "outputs"):
                refs = ", ".join("-" if r["tensor"] < 0 else f"{r['name']} {r['kind'].lower()}@{r['offset']}+{r['size']}"
                                 for r in node[role])
                lines.append(f"         {role[:-1]:<6} {refs}")
    return "\n".join(lines)


def show_model(path: str, as_json: bool = False) -> int:
    """`ascendsim show`: prints the model; 1 with the reader's message if the file is not a valid .om."""
    try:
        description = describe(read_om(path))
    except OmFormatError as error:
        print(f"ascendsim show: {path}: {error}", file=sys.stderr)
        return 1
    print(json.dumps(description, indent=1) if as_json else format_description(description))
    return 0
