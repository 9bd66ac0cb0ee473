"""Memory snapshots of an emulated device's caching allocator, after PyTorch's torch.cuda.memory_snapshot.

A snapshot lists the segments the allocator has mapped from the device's address range (pool, stream,
size) and the blocks that tile each one (allocated with the bytes requested and the allocating API and
creation number, or free = cached for reuse). The totals are computed from the blocks and agree with
`ascendsim.memory_stats` taken at the same moment. `ascendsim memory FILE` prints a snapshot saved as JSON.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from .leaks import json_call


def memory_snapshot(device_id: int) -> dict[str, Any]:
    """{"device", "segments": [{"address", "size", "pool", "stream", "blocks": [...]}], "totals": {...}}."""
    snapshot = json_call("ascendsimGetMemorySnapshot", device_id)
    blocks = [block for segment in snapshot["segments"] for block in segment["blocks"]]
    allocated = [block for block in blocks if block["state"] == "allocated"]
    snapshot["totals"] = {
        "reserved_bytes": sum(segment["size"] for segment in snapshot["segments"]),
        "allocated_bytes": sum(block["size"] for block in allocated),
        "requested_bytes": sum(block["requested"] for block in allocated),
        "free_bytes": sum(block["size"] for block in blocks if block["state"] == "free"),
        "segment_count": len(snapshot["segments"]),
        "allocation_count": len(allocated),
        "free_block_count": len(blocks) - len(allocated),
    }
    return snapshot


def save_memory_snapshot(device_id: int, path: str | Path) -> None:
    """Writes memory_snapshot(device_id) as JSON (print it later with `ascendsim memory PATH`)."""
    Path(path).write_text(json.dumps(memory_snapshot(device_id), indent=1))


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    value = float(n)
    for unit in ("KiB", "MiB", "GiB"):
        value /= 1024
        if value < 1024 or unit == "GiB":
            break
    return f"{value:.2f} {unit}"


def format_memory_snapshot(snapshot: dict[str, Any]) -> str:
    """A segment per paragraph, one line per block, then the totals."""
    lines = [f"device {snapshot['device']}: {len(snapshot['segments'])} segments"]
    for segment in snapshot["segments"]:
        stream = f", stream {segment['stream']:#x}" if segment["stream"] else ""
        used = sum(block["size"] for block in segment["blocks"] if block["state"] == "allocated")
        lines.append(f"segment {segment['address']:#x} {_size(segment['size'])} ({segment['pool']} pool{stream}), "
                     f"{_size(used)} used")
        for block in segment["blocks"]:
            offset = block["address"] - segment["address"]
            if block["state"] == "allocated":
                lines.append(f"  +{offset:<12} {_size(block['size']):>12}  allocated  {block['requested']} bytes "
                             f"requested by {block['api']} (#{block['seq']})")
            else:
                lines.append(f"  +{offset:<12} {_size(block['size']):>12}  free")
    t = snapshot["totals"]
    lines.append(f"total: reserved {_size(t['reserved_bytes'])}, allocated {_size(t['allocated_bytes'])} "
                 f"({t['allocation_count']} blocks, {_size(t['requested_bytes'])} requested), free "
                 f"{_size(t['free_bytes'])} ({t['free_block_count']} blocks)")
    return "\n".join(lines)


def print_snapshot_file(path: str) -> int:
    """`ascendsim memory FILE`: prints a saved snapshot; 1 with a message if it cannot be read."""
    try:
        snapshot = json.loads(Path(path).read_text())
        text = format_memory_snapshot(snapshot)
    except (OSError, ValueError) as error:
        print(f"ascendsim memory: cannot read {path}: {error}", file=sys.stderr)
        return 1
    except (KeyError, TypeError) as error:
        print(f"ascendsim memory: {path} is not a memory snapshot (missing {error})", file=sys.stderr)
        return 1
    print(text)
    return 0
