"""Leak reports: what a program still held at aclFinalize or at the last aclrtResetDevice of a device.

The runtime keeps, for every handle it gave out (streams, events, contexts, models, datasets, data buffers,
tensor descriptions, op attributes, config handles) and every device allocation, the API that created it and
a creation number; at aclFinalize (every device) and at a device's last aclrtResetDevice (that device's
objects) it logs one warning per object the program did not destroy plus a summary, and keeps the report.
`leak_report()` returns that report; `leak_report(live=True)` what aclFinalize would report now.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from . import _core


def json_call(name: str, arg: int) -> dict[str, Any]:
    text, ret = getattr(_core, name)(arg)
    if ret != 0:
        raise RuntimeError(_core.aclGetRecentErrMsg() or f"{name} failed with {ret}")
    result: dict[str, Any] = json.loads(text)
    return result


def leak_report(live: bool = False) -> dict[str, Any]:
    """The latest leak report, or (live=True) what is live now.

    Returns {"trigger": "aclFinalize" | "aclrtResetDevice" | ... | None, "device": -1 or the device reset,
    "objects": [{"kind", "handle", "id", "device", "size", "api", "seq"}, ...] in creation order,
    "summary": {kind: count}}. "allocation" objects are device memory from aclrtMalloc*; "model memory" is the
    memory of a model still loaded (reported with the model).
    """
    report = json_call("ascendsimGetLeakReport", 1 if live else 0)
    report["summary"] = dict(Counter(obj["kind"] for obj in report["objects"]))
    return report


def format_leak_report(report: dict[str, Any]) -> str:
    """The report as text: one line per object, then a summary line."""
    scope = f" of device {report['device']}" if report["device"] >= 0 else ""
    trigger = report["trigger"] or "live now"
    lines = []
    for obj in report["objects"]:
        what = f"id {obj['id']}" if obj["kind"] == "model" else hex(obj["handle"])
        size = f" ({obj['size']} bytes)" if obj["size"] else ""
        device = f" on device {obj['device']}" if obj["device"] >= 0 else ""
        lines.append(f"{trigger}{scope}: leaked {obj['kind']} {what}{size}{device}, created by {obj['api']} "
                     f"(#{obj['seq']})")
    if not report["objects"]:
        return f"{trigger}{scope}: no leaks"
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(report["summary"].items()))
    total = sum(obj["size"] for obj in report["objects"])
    lines.append(f"{trigger}{scope}: {len(report['objects'])} leaked objects ({kinds}), {total} bytes of device memory")
    return "\n".join(lines)
